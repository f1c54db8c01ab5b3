//go:build linux || darwin || freebsd || netbsd || openbsd

package store

import (
	"os"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// FillStat copies the stat data git compares ("is this file still what the
// index says") into e, so `git status` finds the entry clean without hashing.
func FillStat(e *index.Entry, fi os.FileInfo) {
	e.ModifiedAt = fi.ModTime()
	e.CreatedAt = fi.ModTime()
	e.Size = uint32(fi.Size())
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	e.CreatedAt = ctimeOf(st)
	e.Dev = uint32(st.Dev)
	e.Inode = uint32(st.Ino)
	e.UID = st.Uid
	e.GID = st.Gid
}

// InodeOf returns the file's inode number, 0 when unknown.
func InodeOf(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// StatUnchanged reports whether fi still matches the stat data recorded in
// e, the way git decides an entry needs no re-hashing (mtime, ctime, inode,
// size; not the device number).
func StatUnchanged(e *index.Entry, fi os.FileInfo) bool {
	if e.Size != uint32(fi.Size()) || !sameTime(e.ModifiedAt, fi.ModTime()) {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	return sameTime(e.CreatedAt, ctimeOf(st)) && e.Inode == uint32(st.Ino)
}

// sameTime compares two timestamps as the index stores them (32-bit
// seconds and nanoseconds).
func sameTime(a, b time.Time) bool {
	return uint32(a.Unix()) == uint32(b.Unix()) && a.Nanosecond() == b.Nanosecond()
}
