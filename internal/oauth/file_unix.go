//go:build unix

package oauth

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive lock on f, waiting for it.
func lockFile(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

func unlockFile(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// inode is the file's inode number, to tell a replaced file from one
// rewritten in place within the same clock tick.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// noFollow keeps an open from following a symbolic link.
const noFollow = unix.O_NOFOLLOW

// runtimeChecksModes: Unix permission bits mean what they say.
const runtimeChecksModes = true

// ownedByUs reports whether the file belongs to the user the server runs
// as.
func ownedByUs(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Geteuid()
}
