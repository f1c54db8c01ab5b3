//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package store

import (
	"os"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// FillStat copies the stat data this platform offers into e.
func FillStat(e *index.Entry, fi os.FileInfo) {
	e.ModifiedAt = fi.ModTime()
	e.CreatedAt = fi.ModTime()
	e.Size = uint32(fi.Size())
}

// InodeOf returns 0: this platform has no inode numbers in os.FileInfo.
func InodeOf(os.FileInfo) uint64 { return 0 }

// StatUnchanged compares size and mtime only.
func StatUnchanged(e *index.Entry, fi os.FileInfo) bool {
	return e.Size == uint32(fi.Size()) && sameTime(e.ModifiedAt, fi.ModTime())
}

func sameTime(a, b time.Time) bool {
	return uint32(a.Unix()) == uint32(b.Unix()) && a.Nanosecond() == b.Nanosecond()
}
