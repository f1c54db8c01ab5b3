package gitsync

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
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
// flushed. A large commit (a rename relinking hundreds of notes in
// hundreds of folders) is flushed instead by one syncfs of the file
// system once its ref lock is written (see fsBarrier).

// maxParallelSync bounds the fsyncs in flight.
const maxParallelSync = 16

// minBarrierFlush is how many files and folders a commit flushes before
// one syncfs of the file system (see fsBarrier) replaces their fsyncs. A
// single write flushes about 15, each in the same journal commit when run
// in parallel, and syncfs would also wait for any other dirty data on the
// file system; a rename relinking 1,800 notes flushes some 250 folders.
const minBarrierFlush = 64

// flush fsyncs the given files and folders when durability is on.
func (r *Repo) flush(paths ...string) error {
	if r.opts.NoFsync || len(paths) == 0 {
		return nil
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
	// bar, when set, flushes the paths it covers with one syncfs in wait
	// instead of an fsync each; barred counts them.
	bar    *fsBarrier
	barred int
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
// with add, and wait for all of them with wait. From minBarrierFlush paths
// on, those on the repository's file system are flushed together by one
// syncfs when wait is called.
func (r *Repo) startFlush(paths ...string) *flusher {
	f := newFlusher(r.opts.NoFsync)
	if !f.off && distinctAtLeast(paths, minBarrierFlush) {
		f.bar = openBarrier(r.dir)
	}
	f.add(paths...)
	return f
}

// distinctAtLeast reports whether paths holds at least n different ones:
// a commit's folders repeat, one for each note committed in them.
func distinctAtLeast(paths []string, n int) bool {
	if len(paths) < n {
		return false
	}
	seen := make(map[string]bool, n)
	for _, p := range paths {
		seen[p] = true
		if len(seen) >= n {
			return true
		}
	}
	return false
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
		if f.bar.covers(p) {
			f.barred++
			continue
		}
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
}

// wait returns when every path added is flushed, with the first error.
// It is called once.
func (f *flusher) wait() error {
	var barErr error
	if f.bar != nil {
		if f.barred > 0 {
			if err := f.bar.sync(); err != nil {
				barErr = fmt.Errorf("flush the file system: %w", err)
			}
		}
		f.bar.close()
		f.bar = nil
	}
	f.wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.first == nil {
		f.first = barErr
	}
	return f.first
}

func fsyncPath(p string) error {
	f, err := openFile(p, os.O_RDONLY, 0)
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
