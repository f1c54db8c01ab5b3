//go:build !linux

package index

import (
	"time"

	"vaultmcp/vault"
)

// readNote reads the note at abs into a buffer from texts, unless it is
// larger than limit (content is then nil); see vault.OpenRegular. cpath
// (abs and a NUL byte, for Linux's system calls) is not used here.
func readNote(abs string, _ []byte, limit int64, texts *slab) (content []byte, size int64, modTime time.Time, err error) {
	f, fi, err := vault.OpenRegular(abs)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	defer f.Close()
	size, modTime = fi.Size(), fi.ModTime()
	if size > limit {
		return nil, size, modTime, nil
	}
	content = texts.alloc(int(size))
	if _, err := readFull(f, content); err != nil {
		return nil, 0, time.Time{}, err
	}
	return content, size, modTime, nil
}
