package gitsync

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"vaultmcp/internal/syncfs"
)

// fsBarrier flushes the files and folders of a commit with one syncfs(2)
// of the file system the repository is on, instead of an fsync each. A
// commit of one note writes about five loose objects, each in a folder of
// its own, so it flushed some twelve files and folders, and parallel
// fsyncs do not fold into one journal commit: each one with data to
// write waits for its own device flush (here 2.2-2.9 ms for ten of them,
// against 0.7 ms for one file and its folder and 0.9 ms for a syncfs).
// The barrier is opened before the commit writes anything: since Linux
// 5.8, syncfs reports any write-back error on the file system since its
// descriptor was opened, so a failed write of an object is not missed.
// There is none on an older kernel, nor on a file system whose syncfs
// may not reach the disk (FUSE, network mounts; see package syncfs).
type fsBarrier struct {
	dir *os.File
	dev uint64
}

// openBarrier opens the barrier for the file system holding dir; nil
// (each path is then flushed on its own) when it cannot.
func openBarrier(dir string) *fsBarrier {
	f, err := openFile(dir, os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	if !syncfs.Usable(f) {
		f.Close()
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil
	}
	return &fsBarrier{dir: f, dev: st.Dev}
}

// covers reports whether path p is on the barrier's file system, so that
// sync flushes it. A worktree folder may be another mount, and a path
// that cannot be looked at is left to its own fsync, which reports why.
// A symbolic link is followed, as fsync follows it: .git/objects linked
// to another disk is flushed there.
// gone reports that p no longer exists: it was replaced meanwhile, and
// what replaced it is flushed on its own (as fsyncPath skips it).
func (b *fsBarrier) covers(p string) (covered, gone bool) {
	if b == nil {
		return false, false
	}
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return false, true
	}
	if err != nil {
		return false, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && uint64(st.Dev) == b.dev, false
}

// sync flushes the file system: every path covers accepted is durable
// when it returns nil.
func (b *fsBarrier) sync() error {
	return syncfs.Sync(b.dir)
}

// close releases the barrier; a nil barrier is fine.
func (b *fsBarrier) close() {
	if b != nil {
		b.dir.Close()
	}
}
