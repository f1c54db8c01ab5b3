//go:build windows

package oauth

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockFile takes an exclusive lock on f, waiting for it.
func lockFile(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

func unlockFile(f *os.File) error {
	var ol windows.Overlapped
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}

// inode is 0: the size and time tell changes apart here.
func inode(os.FileInfo) uint64 { return 0 }

// noFollow is 0: opens here have no flag for it.
const noFollow = 0

// runtimeChecksModes is false: permission bits here do not say who may
// write.
const runtimeChecksModes = false

// ownedByUs is true: ownership is not checked here.
func ownedByUs(os.FileInfo) bool { return true }
