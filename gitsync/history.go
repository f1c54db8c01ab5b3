package gitsync

import (
	"container/heap"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// ChangeKind is what a commit did to a file.
type ChangeKind string

// The kinds of file change, as get_recent_changes prints them.
const (
	Added    ChangeKind = "added"
	Modified ChangeKind = "modified"
	Deleted  ChangeKind = "deleted"
	Renamed  ChangeKind = "renamed"
)

// Limits of Recent.
const (
	// MaxDiffLines is the number of +/- lines kept per file.
	MaxDiffLines = 80
	// DefaultRecent is the number of commits when n <= 0.
	DefaultRecent = 10
	// maxRecent caps n, whatever the caller asks.
	maxRecent = 1000
	// maxDiffBytes: bigger blobs are listed without a line diff.
	maxDiffBytes = 4 << 20
)

// Commit is one commit of the history with its file changes.
type Commit struct {
	Hash     string // short
	FullHash string
	Time     time.Time // author time
	Author   string
	// Message is the commit message without its trailing newline.
	Message string
	// Merge is true for a commit with several parents; like `git log -p`,
	// no file changes are listed for it.
	Merge bool
	Files []FileChange
}

// FileChange is one file a commit changed.
type FileChange struct {
	Path string
	// OldPath is the previous path of a renamed file.
	OldPath string
	Kind    ChangeKind
	// Binary files (and text over 4 MiB) get no line diff.
	Binary bool
	// Lines are the removed ("-" prefix) and added ("+" prefix) lines, in
	// order, without their newline; at most MaxDiffLines.
	Lines []string
	// Truncated is how many diff lines were cut after MaxDiffLines.
	Truncated int
}

// history caches what walks of the commit graph learn: each commit's
// parents, time and changed paths never change, so they are computed once
// and later queries (above all path-filtered ones, which may walk the whole
// history) cost map lookups. It has its own go-git storage and lock, so
// reading history never waits for a commit nor delays one.
type history struct {
	mu   sync.Mutex
	obj  *objects
	meta map[plumbing.Hash]*commitMeta
	// touched memoises, for recently asked paths, whether a commit changed
	// the path (for commits whose full change list is not cached yet).
	touched map[string]map[plumbing.Hash]bool
}

// touchedPaths bounds the number of paths memoised in history.touched.
const touchedPaths = 64

// commitMeta is the cached part of a commit.
type commitMeta struct {
	hash    plumbing.Hash
	parents []plumbing.Hash
	tree    plumbing.Hash
	when    time.Time // committer time: the walk order
	author  time.Time
	name    string
	message string
	changes []fileDiff // vs the first parent; nil until computed
	diffed  bool
}

// historyCacheLimit bounds the number of cached commits (about 200 bytes
// each plus their changed paths).
const historyCacheLimit = 200000

func newHistory(st *filesystem.Storage, gitDir string) *history {
	return &history{obj: newObjects(st, gitDir), meta: map[plumbing.Hash]*commitMeta{}, touched: map[string]map[plumbing.Hash]bool{}}
}

// commit returns the cached metadata of a commit.
func (h *history) commit(hash plumbing.Hash) (*commitMeta, error) {
	if m, ok := h.meta[hash]; ok {
		return m, nil
	}
	c, err := h.obj.commit(hash)
	if err != nil {
		return nil, err
	}
	if len(h.meta) >= historyCacheLimit {
		h.meta = map[plumbing.Hash]*commitMeta{}
		clear(h.touched)
	}
	m := &commitMeta{
		hash: hash, parents: c.ParentHashes, tree: c.TreeHash, when: c.Committer.When,
		author: c.Author.When, name: c.Author.Name, message: strings.TrimRight(c.Message, "\n"),
	}
	h.meta[hash] = m
	return m, nil
}

// changes returns the files a commit changed against its first parent.
func (h *history) changes(m *commitMeta) ([]fileDiff, error) {
	if m.diffed {
		return m.changes, nil
	}
	parentTree := emptyTree
	if len(m.parents) > 0 {
		p, err := h.commit(m.parents[0])
		if err != nil {
			return nil, err
		}
		parentTree = p.tree
	}
	d, err := h.obj.diffTrees(parentTree, m.tree)
	if err != nil {
		return nil, err
	}
	m.changes, m.diffed = d, true
	return d, nil
}

// metaQueue orders commits newest first (committer time), like git log.
type metaQueue []*commitMeta

func (q metaQueue) Len() int           { return len(q) }
func (q metaQueue) Less(i, j int) bool { return q[i].when.After(q[j].when) }
func (q metaQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *metaQueue) Push(x any)        { *q = append(*q, x.(*commitMeta)) }
func (q *metaQueue) Pop() any {
	old := *q
	m := old[len(old)-1]
	*q = old[:len(old)-1]
	return m
}

// walk visits the commits reachable from head newest first until fn returns
// false.
func (h *history) walk(ctx context.Context, head plumbing.Hash, fn func(*commitMeta) (bool, error)) error {
	if head.IsZero() {
		return nil
	}
	seen := map[plumbing.Hash]bool{head: true}
	m, err := h.commit(head)
	if err != nil {
		return err
	}
	q := &metaQueue{m}
	for n := 0; q.Len() > 0; n++ {
		if n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		m := heap.Pop(q).(*commitMeta)
		more, err := fn(m)
		if err != nil || !more {
			return err
		}
		for _, p := range m.parents {
			if seen[p] {
				continue
			}
			seen[p] = true
			pm, err := h.commit(p)
			if err != nil {
				return err
			}
			heap.Push(q, pm)
		}
	}
	return nil
}

// touches reports whether commit m changed path p, comparing only the
// trees along p with its first parent's, and memoises the answer.
func (h *history) touches(m *commitMeta, p string) (bool, error) {
	memo := h.touched[p]
	if memo == nil {
		if len(h.touched) >= touchedPaths {
			clear(h.touched)
		}
		memo = map[plumbing.Hash]bool{}
		h.touched[p] = memo
	}
	if t, ok := memo[m.hash]; ok {
		return t, nil
	}
	parentTree := emptyTree
	if len(m.parents) > 0 {
		pm, err := h.commit(m.parents[0])
		if err != nil {
			return false, err
		}
		parentTree = pm.tree
	}
	same, err := h.obj.samePath(m.tree, parentTree, p)
	if err != nil {
		return false, err
	}
	memo[m.hash] = !same
	return !same, nil
}

// touchesPath reports whether a change concerns path p (a file, or a folder and
// everything under it).
func touchesPath(d fileDiff, p string) bool {
	return d.Path == p || strings.HasPrefix(d.Path, p+"/")
}

// Recent returns the n most recent commits (DefaultRecent when n <= 0),
// newest first, with their file changes and line diffs. A non-empty path
// keeps only the commits that touched that file (or anything under that
// folder) and only those files in each commit, like `git log -p -- path`.
// Files ctx's access scope hides are left out (package access), and so
// are commits that changed nothing else.
func (r *Repo) Recent(ctx context.Context, n int, path string) ([]Commit, error) {
	if n <= 0 {
		n = DefaultRecent
	}
	n = min(n, maxRecent)
	if path != "" {
		p, err := cleanPath(path)
		if err != nil {
			return nil, err
		}
		path = p
	}
	r.mu.Lock()
	head, err := r.refHash(r.branch)
	r.mu.Unlock()
	if err != nil {
		return nil, r.scrub(err)
	}
	h := r.hist
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Commit
	err = h.walk(ctx, head, func(m *commitMeta) (bool, error) {
		if path != "" && len(m.parents) > 1 {
			return true, nil
		}
		if path != "" && !m.diffed {
			// Cheap test first: most commits did not touch path.
			touched, err := h.touches(m, path)
			if err != nil || !touched {
				return err == nil, err
			}
		}
		var files []fileDiff
		if len(m.parents) <= 1 {
			all, err := h.changes(m)
			if err != nil {
				return false, err
			}
			files = all
			if path != "" {
				files = nil
				for _, d := range all {
					if touchesPath(d, path) {
						files = append(files, d)
					}
				}
				if len(files) == 0 {
					return true, nil
				}
			}
		}
		files, hid := visibleChanges(ctx, files)
		if hid && len(files) == 0 {
			return true, nil
		}
		c, err := h.render(m, files)
		if err != nil {
			return false, err
		}
		if hid || namesHidden(ctx, c.Message) {
			c.Message = withheldMessage
		}
		out = append(out, c)
		return len(out) < n, nil
	})
	if err != nil {
		return nil, fmt.Errorf("history: %w", r.scrub(err))
	}
	return out, nil
}

// render turns a cached commit and its changed files into a Commit with
// line diffs; an added and a deleted file with the same content are a
// rename.
func (h *history) render(m *commitMeta, files []fileDiff) (Commit, error) {
	c := Commit{
		Hash: short(m.hash), FullHash: m.hash.String(), Time: m.author, Author: m.name,
		Message: m.message, Merge: len(m.parents) > 1,
	}
	deleted := map[plumbing.Hash][]int{}
	for i, d := range files {
		if d.To.Hash.IsZero() {
			deleted[d.From.Hash] = append(deleted[d.From.Hash], i)
		}
	}
	renamedFrom := map[int]bool{}
	for i, d := range files {
		if !d.From.Hash.IsZero() || d.To.Hash.IsZero() {
			continue
		}
		if olds := deleted[d.To.Hash]; len(olds) > 0 {
			j := olds[0]
			deleted[d.To.Hash] = olds[1:]
			renamedFrom[j] = true
			files[i].From = files[j].From
			files[i].From.Path = files[j].Path
		}
	}
	for i, d := range files {
		if renamedFrom[i] {
			continue
		}
		fc, err := h.fileChange(d)
		if err != nil {
			return Commit{}, err
		}
		c.Files = append(c.Files, fc)
	}
	sort.SliceStable(c.Files, func(i, j int) bool { return c.Files[i].Path < c.Files[j].Path })
	return c, nil
}

// fileChange computes the kind and line diff of one changed file.
func (h *history) fileChange(d fileDiff) (FileChange, error) {
	fc := FileChange{Path: d.Path}
	switch {
	case d.From.Hash.IsZero():
		fc.Kind = Added
	case d.To.Hash.IsZero():
		fc.Kind = Deleted
	case d.From.Path != "" && d.From.Path != d.Path:
		fc.Kind, fc.OldPath = Renamed, d.From.Path
		if d.From.Hash == d.To.Hash {
			return fc, nil
		}
	default:
		fc.Kind = Modified
	}
	if d.From.Mode == filemode.Submodule || d.To.Mode == filemode.Submodule {
		return fc, nil
	}
	var old, cur []byte
	var err error
	if !d.From.Hash.IsZero() {
		if old, err = h.obj.blob(d.From.Hash); err != nil {
			return fc, err
		}
	}
	if !d.To.Hash.IsZero() {
		if cur, err = h.obj.blob(d.To.Hash); err != nil {
			return fc, err
		}
	}
	if isBinary(old) || isBinary(cur) || len(old) > maxDiffBytes || len(cur) > maxDiffBytes {
		fc.Binary = true
		return fc, nil
	}
	fc.Lines, fc.Truncated = diffLines(string(old), string(cur), MaxDiffLines)
	return fc, nil
}

// diffLines returns the removed and added lines from a to b, prefixed with
// "-" and "+", keeping at most limit of them and counting the rest.
func diffLines(a, b string, limit int) (lines []string, cut int) {
	add := func(prefix string, text string) {
		for _, l := range splitLines(text) {
			if len(lines) < limit {
				lines = append(lines, prefix+strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r"))
			} else {
				cut++
			}
		}
	}
	switch {
	case a == "":
		add("+", b)
		return lines, cut
	case b == "":
		add("-", a)
		return lines, cut
	}
	for _, d := range lineDiff(a, b) {
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			add("-", d.Text)
		case diffmatchpatch.DiffInsert:
			add("+", d.Text)
		}
	}
	return lines, cut
}

// warmHistory fills the history cache (commit metadata and changed paths) for the
// whole history, so that the first path-filtered Recent does not pay for
// it. Start runs it in the background; it holds only the history lock, in
// short stretches.
func (r *Repo) warmHistory(ctx context.Context) {
	r.mu.Lock()
	head, err := r.refHash(r.branch)
	r.mu.Unlock()
	if err != nil || head.IsZero() {
		return
	}
	const stretch = 200
	h := r.hist
	h.mu.Lock()
	count := 0
	err = h.walk(ctx, head, func(m *commitMeta) (bool, error) {
		if _, err := h.changes(m); err != nil {
			return false, err
		}
		count++
		if count%stretch == 0 {
			// Let queries in between.
			h.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(time.Millisecond):
			}
			h.mu.Lock()
		}
		return ctx.Err() == nil, nil
	})
	h.mu.Unlock()
	if err != nil && ctx.Err() == nil {
		r.log.Debug("warming the history cache", "err", err)
	}
}
