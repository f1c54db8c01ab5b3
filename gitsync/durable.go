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
// folders, the index and ref lock files are flushed (fsync) before the
// ref is renamed into place, and the folders of the renames after. So a
// power loss leaves either the old commit or the new one, never a ref
// pointing at an object that never reached the disk. The flushes of one
// commit run in parallel: the file system folds them into one or two
// journal commits.

// maxParallelSync bounds the fsyncs in flight.
const maxParallelSync = 16

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
	seen := make(map[string]bool, len(paths))
	var uniq []string
	for _, p := range paths {
		if p != "" && !seen[p] {
			seen[p] = true
			uniq = append(uniq, p)
		}
	}
	if len(uniq) == 1 {
		return fsyncPath(uniq[0])
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		sem   = make(chan struct{}, maxParallelSync)
	)
	for _, p := range uniq {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fsyncPath(p); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

func fsyncPath(p string) error {
	f, err := os.Open(p)
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
