// Package lastread remembers, per credential and file, the version the
// credential last read, in bounded memory, so that a write made without a
// version can still be told that the file changed since the credential
// read it.
package lastread

import (
	"container/list"
	"sync"
)

// DefaultSize is how many (credential, file) pairs a zero Log keeps.
const DefaultSize = 10000

// Log is a least-recently-used map of (credential, path) to the version
// read. The zero Log is ready to use and keeps DefaultSize pairs; a nil
// *Log remembers nothing.
type Log struct {
	// Size bounds the pairs kept; <= 0 means DefaultSize.
	Size int

	mu    sync.Mutex
	order list.List // of *entry, most recent first
	index map[key]*list.Element
}

type key struct{ credential, path string }

type entry struct {
	k       key
	version string
}

// Read records that credential read version of path.
func (l *Log) Read(credential, path, version string) {
	if l == nil || version == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k := key{credential, path}
	if l.index == nil {
		l.index = map[key]*list.Element{}
	}
	if e, ok := l.index[k]; ok {
		e.Value.(*entry).version = version
		l.order.MoveToFront(e)
		return
	}
	l.index[k] = l.order.PushFront(&entry{k, version})
	size := l.Size
	if size <= 0 {
		size = DefaultSize
	}
	for l.order.Len() > size {
		old := l.order.Back()
		delete(l.index, old.Value.(*entry).k)
		l.order.Remove(old)
	}
}

// Last is the version credential last read of path, if remembered.
func (l *Log) Last(credential, path string) (string, bool) {
	if l == nil {
		return "", false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.index[key{credential, path}]
	if !ok {
		return "", false
	}
	return e.Value.(*entry).version, true
}
