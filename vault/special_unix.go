//go:build unix

package vault

import "syscall"

// openReadFlags open without blocking, so that a FIFO is never waited on;
// on a regular file O_NONBLOCK changes nothing.
const openReadFlags = syscall.O_RDONLY | syscall.O_NONBLOCK
