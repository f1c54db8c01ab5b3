// Package regularfile opens files for reading only when they are regular
// files, and never blocks doing so: opening a FIFO for reading waits for a
// writer, so a FIFO named x.md in a vault would hang a scan, a read or a
// commit. Every open is non-blocking; a FIFO, socket or device swapped in
// after the caller's stat opens at once and is refused unread.
package regularfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// NotRegularError is the error of an open that found something other than
// a regular file.
type NotRegularError struct {
	Mode fs.FileMode // what was found
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("not a regular file (%v)", e.Mode.Type())
}

// ErrShrunk is Read's error for a file that ended before the size its
// stat gave.
var ErrShrunk = errors.New("file shrank while read")

// Open opens path for reading if, and only if, it is a regular file; a
// final symbolic link is followed. A path naming anything else is an
// *fs.PathError wrapping a *NotRegularError.
func Open(path string) (*os.File, fs.FileInfo, error) {
	return open(path, readFlags)
}

// OpenNoFollow is Open without following a final symbolic link: a file
// swapped for a link after a walk saw it is refused (with the system's
// error, ELOOP on unix). Where the system cannot refuse it, it is Open.
func OpenNoFollow(path string) (*os.File, fs.FileInfo, error) {
	return open(path, noFollowFlags)
}

func open(path string, flags int) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flags, 0)
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
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: &NotRegularError{Mode: fi.Mode()}}
	}
	return f, fi, nil
}
