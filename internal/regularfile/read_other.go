//go:build !linux

package regularfile

import (
	"io"
	"time"
)

// Read reads the regular file at path whole into the buffer alloc returns
// for its size, unless the file is larger than limit: content is then nil
// and size and modTime say what was found. Like Open it never blocks on a
// FIFO and refuses anything but a regular file (a *NotRegularError); a
// file that ends early is ErrShrunk. cpath (path and a NUL byte, for
// Linux's system calls) is not used here.
func Read(path string, _ []byte, limit int64, alloc func(n int) []byte) (content []byte, size int64, modTime time.Time, err error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	defer f.Close()
	size, modTime = fi.Size(), fi.ModTime()
	if size > limit {
		return nil, size, modTime, nil
	}
	content = alloc(int(size))
	if _, err := io.ReadFull(f, content); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			err = ErrShrunk
		}
		return nil, 0, time.Time{}, err
	}
	return content, size, modTime, nil
}
