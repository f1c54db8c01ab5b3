//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package gitsync

import (
	"os"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// fillStat copies the stat data this platform offers into e.
func fillStat(e *index.Entry, fi os.FileInfo) {
	e.ModifiedAt = fi.ModTime()
	e.CreatedAt = fi.ModTime()
	e.Size = uint32(fi.Size())
}

// inodeOf returns 0: this platform has no inode numbers in os.FileInfo.
func inodeOf(os.FileInfo) uint64 { return 0 }

// statUnchanged compares size and mtime only.
func statUnchanged(e *index.Entry, fi os.FileInfo) bool {
	return e.Size == uint32(fi.Size()) && sameTime(e.ModifiedAt, fi.ModTime())
}

func sameTime(a, b time.Time) bool {
	return uint32(a.Unix()) == uint32(b.Unix()) && a.Nanosecond() == b.Nanosecond()
}
