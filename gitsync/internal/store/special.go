package store

import (
	"fmt"
	"os"
)

// OpenRegular opens a worktree file for reading if it is a regular file.
// The open does not block (openFlags), so a FIFO in the vault — even one
// that replaced a file after a scan saw it — is refused instead of
// hanging a commit; devices and sockets are refused the same way.
func OpenRegular(full string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(full, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file (%v): never read", full, fi.Mode().Type())
	}
	return f, fi, nil
}
