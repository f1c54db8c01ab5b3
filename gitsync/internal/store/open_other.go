//go:build !unix

package store

import "os"

// OpenFile is os.OpenFile (see open_unix.go for why unix differs).
func OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// renameFile is os.Rename (see open_unix.go for why unix differs).
func renameFile(from, to string) error { return os.Rename(from, to) }
