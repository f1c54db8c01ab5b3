package gitsync

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/internal/syncfs"
)

// Durability. A write is acknowledged only after its commit is on disk:
// with Options.NoFsync false (the default) the new loose objects, their
// folders and the ref lock file are flushed (fsync) before the ref is
// renamed into place, and the ref's folder after. So a power loss leaves
// either the old commit or the new one, never a ref pointing at an object
// that never reached the disk. The index is not flushed: it is derived
// data, and a start after a power loss repairs it (see indexmark.go). The
// flushes of one commit run in parallel: the file system folds them into
// one or two journal commits. They start as soon as their files are
// complete (see flusher), so the disk works while the commit goes on: the
// index is encoded and written, and the ref locked, while the objects are
// flushed. Where there is a barrier for the whole file system (Linux's
// syncfs, see package syncfs), a commit's files and folders on the
// repository's file system are flushed by one barrier instead, at the
// end: parallel fsyncs fold less well than that, each file with data
// waiting for a device flush of its own.

// maxParallelSync bounds the fsyncs in flight.
const maxParallelSync = 16

// flush fsyncs the given files and folders when durability is on; ""
// stands for none.
func (r *Repo) flush(paths ...string) error {
	if r.opts.NoFsync {
		return nil
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return p == "" })
	if len(paths) == 0 {
		return nil
	}
	if err := r.testHooks.Load().flushErr(paths); err != nil {
		return err
	}
	return fsyncAll(paths)
}

// fsyncAll fsyncs every path (files or folders), in parallel, and returns
// the first error. A path that no longer exists is skipped: it was
// replaced meanwhile, and what replaced it is flushed on its own.
func fsyncAll(paths []string) error {
	if len(paths) == 1 {
		return fsyncPath(paths[0])
	}
	f := newFlusher(false)
	f.add(paths...)
	return f.wait()
}

// flusher fsyncs files and folders in the background from the moment
// they are added, so that the flushes of a commit's objects run while the
// commit goes on with other work (encoding the index, locking the ref);
// wait returns when all of them are done. A folder must be added only
// after the last entry that has to be durable was made in it. The zero
// value is not usable: see newFlusher.
type flusher struct {
	off bool // durability is off: add does nothing
	// bar, when set, flushes every path on its file system with one
	// syncfs in wait; barred says a path is waiting for it.
	bar    *syncfs.Barrier
	barred bool
	wg     sync.WaitGroup
	sem    chan struct{}
	mu     sync.Mutex
	seen   map[string]bool
	first  error
}

// newFlusher returns a flusher; with off set it flushes nothing.
func newFlusher(off bool) *flusher {
	return &flusher{off: off, sem: make(chan struct{}, maxParallelSync), seen: map[string]bool{}}
}

// startFlush starts flushing paths, as Options.NoFsync allows; add more
// with add, and wait for all of them with wait. With a barrier (nil for
// none), the paths on its file system are flushed by one barrier in wait,
// which must be opened before any of them was written.
func (r *Repo) startFlush(bar *syncfs.Barrier, paths ...string) *flusher {
	f := newFlusher(r.opts.NoFsync)
	f.bar = bar
	f.add(paths...)
	return f
}

// add starts flushing paths (at most maxParallelSync at a time). A path
// added before is not flushed again.
func (f *flusher) add(paths ...string) {
	if f.off {
		return
	}
	for _, p := range paths {
		if p == "" || f.seen[p] {
			continue
		}
		f.seen[p] = true
		if covered, gone := barrierCovers(f.bar, p); covered || gone {
			f.barred = f.barred || covered
			continue
		}
		f.start(p)
	}
}

// addOwn starts flushing p with an fsync of its own, whatever the
// barrier covers: for a file written before the barrier was opened, a
// write-back error of which the barrier might not report.
func (f *flusher) addOwn(p string) {
	if f.off || p == "" || f.seen[p] {
		return
	}
	f.seen[p] = true
	f.start(p)
}

// start flushes p in the background (at most maxParallelSync at a time).
func (f *flusher) start(p string) {
	f.wg.Add(1)
	go func() {
		f.sem <- struct{}{}
		defer func() { <-f.sem; f.wg.Done() }()
		if err := fsyncPath(p); err != nil {
			f.mu.Lock()
			if f.first == nil {
				f.first = err
			}
			f.mu.Unlock()
		}
	}()
}

// wait returns when every path added is flushed, with the first error.
func (f *flusher) wait() error {
	if f.barred {
		f.barred = false
		if err := f.bar.Sync(); err != nil {
			f.mu.Lock()
			if f.first == nil {
				f.first = fmt.Errorf("flush the commit's files: %w", err)
			}
			f.mu.Unlock()
		}
	}
	f.wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.first
}

// barrierCovers reports whether path p is on bar's file system, so that
// its Sync flushes p. A worktree folder may be another mount, and a path
// that cannot be looked at is left to its own fsync, which reports why. A
// symbolic link is followed, as fsync follows it: .git/objects linked to
// another disk is flushed there. gone reports that p no longer exists: it
// was replaced meanwhile, and what replaced it is flushed on its own (as
// fsyncPath skips it).
func barrierCovers(bar *syncfs.Barrier, p string) (covered, gone bool) {
	if bar == nil {
		return false, false
	}
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return false, true
	}
	if err != nil {
		return false, false
	}
	return bar.Covers(fi), false
}

func fsyncPath(p string) error {
	f, err := store.OpenFile(p, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("flush %s: %w", filepath.Base(p), err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("flush %s: %w", filepath.Base(p), err)
	}
	return nil
}

// worktreeDirs returns the folders holding the given vault paths, whose
// entries (a new or renamed note) must reach the disk with the commit.
func (r *Repo) worktreeDirs(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		out = append(out, filepath.Dir(filepath.Join(r.dir, filepath.FromSlash(p))))
	}
	return out
}

// worktreeFiles returns the given vault paths and their folders, for
// flushing files a pull wrote.
func (r *Repo) worktreeFiles(paths []string) []string {
	out := r.worktreeDirs(paths)
	for _, p := range paths {
		out = append(out, filepath.Join(r.dir, filepath.FromSlash(p)))
	}
	return out
}
