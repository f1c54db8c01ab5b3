package gitsync

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"vaultmcp/gitsync/internal/store"
)

// commitExternal commits every difference between the worktree and HEAD
// (files edited, created or deleted outside the server: Obsidian on the same
// disk, an editor, a script, or a write of ours a crash stopped before its
// commit) as one ExternalChangesMessage commit. Files whose stat data match
// the index are not read; the others are hashed. Temporary files of atomic
// writes are never committed, and those a dead process left are removed;
// names that must not be in a commit (see checkName) are left out. A mass
// deletion is held back (see holdDeletion). r.mu is held, and the caller
// holds the vault lock so that no server write is caught half-done.
func (r *Repo) commitExternal() (Result, []string, error) {
	idx, err := r.index.Load()
	if err != nil {
		return Result{}, nil, err
	}
	head, err := r.headHash()
	if err != nil {
		return Result{}, nil, err
	}
	baseTree := store.EmptyTree
	if !head.IsZero() {
		c, err := r.obj.Commit(head)
		if err != nil {
			return Result{}, nil, err
		}
		baseTree = c.TreeHash
	}
	headFiles, err := r.obj.Flatten(baseTree)
	if err != nil {
		return Result{}, nil, err
	}
	headDirs := map[string]bool{}
	for p := range headFiles {
		for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p[:i], '/') {
			if headDirs[p[:i]] {
				break
			}
			headDirs[p[:i]] = true
		}
	}
	ig := newIgnorer(r.dir)
	seen := map[string]bool{}
	var changed []string
	err = filepath.WalkDir(r.dir, func(fp string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if fp == r.dir {
			return nil
		}
		rel, err := filepath.Rel(r.dir, fp)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if isTempName(d.Name()) && !d.IsDir() {
			r.removeStaleTemp(fp, rel)
			return nil
		}
		if err := store.CheckName(d.Name(), modeOfEntry(d)); err != nil {
			r.warnUnsafe(rel, err)
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" || isNestedRepo(fp) {
				return filepath.SkipDir
			}
			if ig.ignored(rel, true) && !headDirs[rel] && !store.HasEntriesUnder(idx, rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		e := store.EntryFor(idx, rel)
		hf, inHead := headFiles[rel]
		if e == nil && !inHead && ig.ignored(rel, false) {
			return nil
		}
		seen[rel] = true
		fi, err := d.Info()
		if err != nil {
			return nil // vanished meanwhile: the next scan sees it
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(fp)
			if err != nil {
				return nil
			}
			if err := store.CheckLinkTarget(rel, filepath.ToSlash(target)); err != nil {
				r.warnUnsafe(rel, err)
				return nil // seen: a tracked link keeps its committed version
			}
		}
		mode := store.ModeOf(fi)
		var h plumbing.Hash
		if e != nil && e.Mode == mode && store.StatUnchanged(e, fi) {
			h = e.Hash
		} else if fi.Mode().IsRegular() && fi.Size() > r.opts.MaxFileBytes {
			r.warnTooLarge(rel, fi.Size(), inHead)
			return nil // seen: a tracked file keeps its committed version
		} else {
			if h, err = hashWorktreeFile(fp); err != nil {
				return nil
			}
			if e != nil && e.Hash == h && inHead && hf.Hash == h {
				// Same content, only the stat data moved (touch, a copy):
				// refresh the index entry along with the commit.
				changed = append(changed, rel)
				return nil
			}
		}
		// An index entry that differs from both is what a kill between the
		// ref update and the index rename leaves (HEAD has the edit, the
		// index the version before): staging the file puts the index right
		// even when the tree is unchanged, or `git status` shows it as
		// modified both ways (MM).
		if !inHead || hf.Hash != h || hf.Mode != mode || e == nil || e.Hash != h || e.Mode != mode {
			changed = append(changed, rel)
		}
		return nil
	})
	if err != nil {
		return Result{}, nil, fmt.Errorf("scan the vault: %w", err)
	}
	var deleted []string
	tracked := 0
	for p, f := range headFiles {
		if f.Mode == filemode.Submodule {
			continue
		}
		tracked++
		if !seen[p] {
			deleted = append(deleted, p)
		}
	}
	if r.isMassDeletion(len(deleted), tracked) {
		r.holdDeletion(deleted, tracked)
	} else {
		r.releaseDeletion()
		changed = append(changed, deleted...)
	}
	for _, e := range idx.Entries {
		if _, ok := headFiles[e.Name]; !ok && !seen[e.Name] && e.Mode != filemode.Submodule {
			changed = append(changed, e.Name) // staged by hand, then removed
		}
	}
	if len(changed) == 0 {
		return Result{Hash: short(head), Full: head}, nil, nil
	}
	res, err := r.commitLocked(request{}, ExternalChangesMessage, changed)
	return res, changed, err
}

// modeOfEntry is the git mode a walked entry would get, as far as checkName
// cares (folder, symbolic link or file).
func modeOfEntry(d fs.DirEntry) filemode.FileMode {
	switch {
	case d.IsDir():
		return filemode.Dir
	case d.Type()&fs.ModeSymlink != 0:
		return filemode.Symlink
	}
	return filemode.Regular
}

// warnTooLarge logs, once per path, a worktree file left out of commits
// because it is larger than Options.MaxFileBytes.
func (r *Repo) warnTooLarge(rel string, size int64, tracked bool) {
	r.statMu.Lock()
	defer r.statMu.Unlock()
	if r.state.warned == nil {
		r.state.warned = map[string]bool{}
	}
	key := rel + "\x00large"
	if r.state.warned[key] || len(r.state.warned) > 1000 {
		return
	}
	r.state.warned[key] = true
	msg := "left out of commits: larger than limits.max_note_bytes"
	if tracked {
		msg += " (its last committed version stays)"
	}
	r.log.Warn(msg, "path", rel, "bytes", size, "limit", r.opts.MaxFileBytes)
}

// warnUnsafe logs, once per path, a worktree file left out of commits
// because its name, or a symbolic link's target, must not be in one.
func (r *Repo) warnUnsafe(rel string, err error) {
	r.statMu.Lock()
	defer r.statMu.Unlock()
	if r.state.warned == nil {
		r.state.warned = map[string]bool{}
	}
	if r.state.warned[rel] || len(r.state.warned) > 1000 {
		return
	}
	r.state.warned[rel] = true
	r.log.Warn("left out of commits: not safe to share through the repository", "path", rel, "err", err)
}
