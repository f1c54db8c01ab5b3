//go:build unix

package regularfile

import "syscall"

// On a regular file O_NONBLOCK changes nothing; on a FIFO it makes the
// open return at once. os.OpenFile adds O_CLOEXEC itself.
const (
	readFlags     = syscall.O_RDONLY | syscall.O_NONBLOCK
	noFollowFlags = readFlags | syscall.O_NOFOLLOW
)
