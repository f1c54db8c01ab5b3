package gitsync

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// fsBarrier flushes a large commit's files and folders with one syncfs(2)
// of the file system the repository is on, instead of one fsync each: a
// rename relinking 1,800 notes has some 250 folders and the pack to flush,
// and the file system then commits its journal once instead of for each
// round of parallel fsyncs. Since Linux 5.8 syncfs reports a write-back
// error on the file system that came after its descriptor was opened, or
// before and was not yet reported to anyone: what fsync on a descriptor
// opened anew (as fsyncPath does) reports for its one file.
type fsBarrier struct {
	dir *os.File
	dev uint64
}

// openBarrier opens the barrier for the file system holding dir; nil
// (each path is then flushed on its own) when it cannot.
func openBarrier(dir string) *fsBarrier {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil
	}
	return &fsBarrier{dir: f, dev: st.Dev}
}

// covers reports whether the file or folder p is on the barrier's file
// system: a folder of the vault may be another mount, whose files syncfs
// of the repository's file system would not flush.
func (b *fsBarrier) covers(p string) bool {
	if b == nil {
		return false
	}
	fi, err := os.Stat(p)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && uint64(st.Dev) == b.dev
}

// sync flushes the file system: every path covers accepted is durable
// when it returns nil.
func (b *fsBarrier) sync() error {
	for {
		err := unix.Syncfs(int(b.dir.Fd()))
		if err != unix.EINTR {
			return err
		}
	}
}

// close releases the barrier; a nil barrier is fine.
func (b *fsBarrier) close() {
	if b != nil {
		b.dir.Close()
	}
}
