//go:build !unix

package search

import "os"

// openFlags opens a file for reading. (Walks never hand symbolic links to
// the readers; only unix can refuse a link swapped in afterwards.)
const openFlags = os.O_RDONLY
