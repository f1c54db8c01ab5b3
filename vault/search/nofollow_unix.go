//go:build unix

package search

import "syscall"

// openFlags opens a file for reading without following a final symbolic
// link: a file swapped for a link after the walk saw it is not read.
const openFlags = syscall.O_RDONLY | syscall.O_NOFOLLOW
