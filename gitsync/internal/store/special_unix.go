//go:build unix

package store

import "syscall"

// openFlags read without blocking on a FIFO; regular files ignore it.
const openFlags = syscall.O_RDONLY | syscall.O_NONBLOCK
