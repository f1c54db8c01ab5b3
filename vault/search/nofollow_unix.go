//go:build unix

package search

import "syscall"

// openFlags opens a file for reading without following a final symbolic
// link: a file swapped for a link after the walk saw it is not read. The
// open does not block, so a FIFO swapped in is refused (readFile checks
// the type), not waited on.
const openFlags = syscall.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
