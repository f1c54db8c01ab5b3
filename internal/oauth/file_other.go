//go:build !unix && !windows

package oauth

import "os"

// lockFile does nothing where the system has no file locks: the server
// and `vaultmcp oauth` then must not change the state at the same time.
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) error { return nil }

// inode is 0: the size and time tell changes apart here.
func inode(os.FileInfo) uint64 { return 0 }

// noFollow is 0: opens here have no flag for it.
const noFollow = 0

// runtimeChecksModes is false: permission bits here do not say who may
// write.
const runtimeChecksModes = false

// ownedByUs is true: ownership is not checked here.
func ownedByUs(os.FileInfo) bool { return true }
