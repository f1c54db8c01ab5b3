package search

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"time"

	"vaultmcp/internal/regularfile"
)

const (
	// binaryProbe is how much of a file is checked for a NUL byte to call
	// it binary, as ripgrep and git do.
	binaryProbe = 8000
	// maxFileBytes is the largest file grep reads; a note is never this
	// big, and a model could not use the matches of one that is.
	maxFileBytes = 64 << 20
	// maxCachedFile is the largest file the content cache keeps.
	maxCachedFile = 4 << 20
	// racyWindow: a file modified this recently may change again within
	// the file system's timestamp granularity without its size or mtime
	// changing, so its cached copy is not trusted (git's "racy" files).
	racyWindow = 2 * time.Second
)

// isBinary reports whether content looks binary: a NUL byte near the
// start.
func isBinary(content []byte) bool {
	return bytes.IndexByte(content[:min(len(content), binaryProbe)], 0) >= 0
}

// contentCache keeps the text of files read from disk, keyed by path and
// checked against size and modification time on every use, so grep
// without the live index reads only what changed. Binary files are
// remembered as such, without their content.
type contentCache struct {
	limit int64 // bytes of content kept at most; 0 disables the cache

	mu      sync.Mutex
	entries map[string]*cached
	bytes   int64
	gen     uint64 // full scans done, for sweeping deleted files
}

type cached struct {
	size    int64
	mtime   int64 // UnixNano
	content []byte
	binary  bool
	racy    bool
	gen     uint64
}

func newContentCache(limit int64) *contentCache {
	return &contentCache{limit: limit, entries: map[string]*cached{}}
}

// load returns the text of a regular file, from the cache when its size
// and mtime are unchanged. binary is true (and content nil) for binary
// files; kept says the cache holds content, so it may be referenced after
// the call without pinning extra memory.
func (c *contentCache) load(f fileRef) (content []byte, binary, kept bool, err error) {
	if c.limit > 0 {
		fi, err := f.info()
		if err != nil {
			return nil, false, false, err
		}
		size, mtime := fi.Size(), fi.ModTime().UnixNano()
		c.mu.Lock()
		e := c.entries[f.rel]
		if e != nil && e.size == size && e.mtime == mtime && !e.racy {
			e.gen = c.gen
			c.mu.Unlock()
			return e.content, e.binary, e.content != nil, nil
		}
		c.mu.Unlock()
	}
	content, fi, err := readFile(f.abs)
	if err != nil {
		return nil, false, false, err
	}
	binary = isBinary(content)
	if binary {
		content = nil
	}
	if c.limit <= 0 || fi.Size() > maxCachedFile {
		return content, binary, false, nil
	}
	e := &cached{size: fi.Size(), mtime: fi.ModTime().UnixNano(), content: content, binary: binary,
		racy: time.Since(fi.ModTime()) < racyWindow}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.entries[f.rel]
	grow := int64(len(content))
	if old != nil {
		grow -= int64(len(old.content))
	}
	if c.bytes+grow > c.limit {
		return content, binary, false, nil
	}
	e.gen = c.gen
	c.entries[f.rel] = e
	c.bytes += grow
	return content, binary, content != nil, nil
}

// sweep drops entries a full scan of the vault did not see (deleted or
// renamed files) and starts the next generation.
func (c *contentCache) sweep() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for rel, e := range c.entries {
		if e.gen != c.gen {
			c.bytes -= int64(len(e.content))
			delete(c.entries, rel)
		}
	}
	c.gen++
}

// readFile reads a whole regular file without following a final symlink.
func readFile(abs string) ([]byte, fs.FileInfo, error) {
	// A file swapped for a link after the walk saw it is not read; a FIFO
	// swapped in is refused, not waited on. (Walks never hand symbolic
	// links to the readers.)
	f, fi, err := regularfile.OpenNoFollow(abs)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi.Size() > maxFileBytes {
		return nil, nil, fmt.Errorf("larger than %d MB", maxFileBytes>>20)
	}
	buf := make([]byte, fi.Size())
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, nil, err
	}
	return buf[:n], fi, nil
}
