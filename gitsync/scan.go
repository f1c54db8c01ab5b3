package gitsync

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// commitExternal commits every difference between the worktree and HEAD
// (files edited, created or deleted outside the server: Obsidian on the same
// disk, an editor, a script) as one ExternalChangesMessage commit. Files
// whose stat data match the index are not read; the others are hashed. r.mu
// is held, and the caller holds the vault lock so that no server write is
// caught half-done.
func (r *Repo) commitExternal() (Result, []string, error) {
	idx, err := r.index.load()
	if err != nil {
		return Result{}, nil, err
	}
	head, err := r.headHash()
	if err != nil {
		return Result{}, nil, err
	}
	baseTree := emptyTree
	if !head.IsZero() {
		c, err := r.obj.commit(head)
		if err != nil {
			return Result{}, nil, err
		}
		baseTree = c.TreeHash
	}
	headFiles, err := r.obj.flatten(baseTree)
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
		if d.IsDir() {
			if d.Name() == ".git" || isNestedRepo(fp) {
				return filepath.SkipDir
			}
			if ig.ignored(rel, true) && !headDirs[rel] && !hasEntriesUnder(idx, rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		e := entryFor(idx, rel)
		hf, inHead := headFiles[rel]
		if e == nil && !inHead && ig.ignored(rel, false) {
			return nil
		}
		seen[rel] = true
		fi, err := d.Info()
		if err != nil {
			return nil // vanished meanwhile: the next scan sees it
		}
		mode := modeOf(fi)
		var h plumbing.Hash
		if e != nil && e.Mode == mode && statUnchanged(e, fi) {
			h = e.Hash
		} else {
			content, _, err := readWorktreeFile(fp)
			if err != nil {
				return nil
			}
			h = plumbing.ComputeHash(plumbing.BlobObject, content)
			if e != nil && e.Hash == h && inHead && hf.Hash == h {
				// Same content, only the stat data moved (touch, a copy):
				// refresh the index entry along with the commit.
				changed = append(changed, rel)
				return nil
			}
		}
		if !inHead || hf.Hash != h || hf.Mode != mode || e == nil {
			changed = append(changed, rel)
		}
		return nil
	})
	if err != nil {
		return Result{}, nil, fmt.Errorf("scan the vault: %w", err)
	}
	for p, f := range headFiles {
		if !seen[p] && f.Mode != filemode.Submodule {
			changed = append(changed, p)
		}
	}
	for _, e := range idx.Entries {
		if _, ok := headFiles[e.Name]; !ok && !seen[e.Name] && e.Mode != filemode.Submodule {
			changed = append(changed, e.Name) // staged by hand, then removed
		}
	}
	if len(changed) == 0 {
		return Result{Hash: short(head), Full: head}, nil, nil
	}
	res, err := r.commitLocked(ExternalChangesMessage, changed)
	return res, changed, err
}
