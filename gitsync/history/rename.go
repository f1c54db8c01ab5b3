package history

import (
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"vaultmcp/gitsync/internal/store"
)

// Rename detection follows git's defaults for `git log -M`: a deleted and
// an added file are one rename when their contents are at least half
// alike (go-git's port of git's similarity index); comparing contents is
// skipped when a commit adds and deletes so many files that the pairs
// would be too many to score, as git's diff.renameLimit does.
const (
	renameScore = 50
	renameLimit = 100
)

// renameKey names an added path in one commit.
type renameKey struct {
	commit plumbing.Hash
	path   string
}

// renameSource is what rename detection found for an added path: the path
// it came from ("" for a new file) and a notice when contents could not be
// compared.
type renameSource struct {
	from   string
	notice string
}

// pairRenames finds the renames among one commit's changed files: it
// returns, for the index of each added file that is a rename, the index of
// the deleted file it came from. Our own "rename a -> b" commits name
// their pair; the rest are matched by identical content, then by similar
// content. When contents cannot be read, only identical ones are paired
// and the notice says so.
func (h *history) pairRenames(m *commitMeta, parentTree plumbing.Hash, files []store.FileDiff) (map[int]int, string) {
	return h.pairRenamesIn(m.message, parentTree, m.tree, files)
}

// pairRenamesIn is pairRenames for the changes from tree parentTree to
// tree; message is the commit message that made them ("" for a span of
// several commits).
func (h *history) pairRenamesIn(message string, parentTree, tree plumbing.Hash, files []store.FileDiff) (map[int]int, string) {
	var added, deleted []int
	for i, d := range files {
		switch {
		case d.From.Hash.IsZero() && !d.To.Hash.IsZero():
			added = append(added, i)
		case d.To.Hash.IsZero() && !d.From.Hash.IsZero():
			deleted = append(deleted, i)
		}
	}
	if len(added) == 0 || len(deleted) == 0 {
		return nil, ""
	}
	pairs := map[int]int{}
	used := map[int]bool{}
	if first := firstLine(message); strings.Contains(first, " -> ") {
		for _, a := range added {
			for _, d := range deleted {
				if !used[d] && strings.Contains(first, "rename "+files[d].Path+" -> "+files[a].Path) {
					pairs[a], used[d] = d, true
					break
				}
			}
		}
	}
	var srcs, dsts []int
	for _, d := range deleted {
		if !used[d] {
			srcs = append(srcs, d)
		}
	}
	for _, a := range added {
		if _, ok := pairs[a]; !ok {
			dsts = append(dsts, a)
		}
	}
	if len(srcs) == 0 || len(dsts) == 0 {
		return pairs, ""
	}
	exactOnly := len(srcs)*len(dsts) > renameLimit*renameLimit
	found, err := h.detectRenames(parentTree, tree, files, srcs, dsts, exactOnly)
	notice := ""
	if err != nil {
		notice = unreadable("renames detected by identical content only", err)
		found, _ = h.detectRenames(parentTree, tree, files, srcs, dsts, true)
	}
	for a, d := range found {
		pairs[a] = d
	}
	return pairs, notice
}

// detectRenames runs go-git's rename detection over the deleted (srcs)
// and added (dsts) files of one commit.
func (h *history) detectRenames(parentTree, tree plumbing.Hash, files []store.FileDiff, srcs, dsts []int, exactOnly bool) (map[int]int, error) {
	from, err := object.GetTree(h.obj.St, store.OrEmpty(parentTree))
	if err != nil {
		return nil, err
	}
	to, err := object.GetTree(h.obj.St, store.OrEmpty(tree))
	if err != nil {
		return nil, err
	}
	byName := map[string]int{}
	changes := make(object.Changes, 0, len(srcs)+len(dsts))
	entry := func(t *object.Tree, e store.FileEntry) object.ChangeEntry {
		return object.ChangeEntry{Name: e.Path, Tree: t, TreeEntry: object.TreeEntry{Name: path.Base(e.Path), Mode: e.Mode, Hash: e.Hash}}
	}
	for _, i := range srcs {
		e := files[i].From
		e.Path = files[i].Path
		if !exactOnly && e.Mode == filemode.Regular {
			h.obj.Has(e.Hash) // picks up packs written since the storage was opened
		}
		changes = append(changes, &object.Change{From: entry(from, e)})
		byName["-"+e.Path] = i
	}
	for _, i := range dsts {
		e := files[i].To
		e.Path = files[i].Path
		if !exactOnly && e.Mode == filemode.Regular {
			h.obj.Has(e.Hash)
		}
		changes = append(changes, &object.Change{To: entry(to, e)})
		byName["+"+e.Path] = i
	}
	out, err := object.DetectRenames(changes, &object.DiffTreeOptions{
		DetectRenames: true, RenameScore: renameScore, RenameLimit: renameLimit, OnlyExactRenames: exactOnly,
	})
	if err != nil {
		return nil, err
	}
	pairs := map[int]int{}
	for _, c := range out {
		if c.From.Name == "" || c.To.Name == "" {
			continue
		}
		a, okA := byName["+"+c.To.Name]
		d, okD := byName["-"+c.From.Name]
		if okA && okD {
			pairs[a] = d
		}
	}
	return pairs, nil
}

// renameFrom reports where the file added at p in commit m came from: the
// deleted path it was renamed from, or "" for a new file. The answer is
// memoised.
func (h *history) renameFrom(m *commitMeta, p string) renameSource {
	key := renameKey{m.hash, p}
	if rs, ok := h.renames[key]; ok {
		return rs
	}
	files := h.changes(m)
	parentTree := store.EmptyTree
	if len(m.parents) > 0 {
		if pm, err := h.commit(m.parents[0]); err == nil {
			parentTree = pm.tree
		}
	}
	var rs renameSource
	pairs, notice := h.pairRenames(m, parentTree, files)
	rs.notice = notice
	for a, d := range pairs {
		if files[a].Path == p {
			rs.from = files[d].Path
		}
	}
	if len(h.renames) >= statsCacheLimit {
		clear(h.renames)
	}
	h.renames[key] = rs
	// The other added files of the commit were paired in the same pass:
	// remember them too, so renamedTo and forward, which ask about each,
	// pair the commit once rather than once per added file.
	if added := countAdded(files); added > 1 && len(h.renames)+added < statsCacheLimit {
		for i, f := range files {
			if f.From.Hash.IsZero() && !f.To.Hash.IsZero() && f.Path != p {
				other := renameSource{notice: notice}
				if d, ok := pairs[i]; ok {
					other.from = files[d].Path
				}
				h.renames[renameKey{m.hash, f.Path}] = other
			}
		}
	}
	return rs
}

// countAdded counts the files a change list adds.
func countAdded(files []store.FileDiff) int {
	n := 0
	for _, f := range files {
		if f.From.Hash.IsZero() && !f.To.Hash.IsZero() {
			n++
		}
	}
	return n
}

// renamedTo reports where the file deleted at p in commit m went: the
// path it was renamed to, or "" when the commit deleted it for good.
func (h *history) renamedTo(m *commitMeta, p string) string {
	for _, a := range h.changes(m) {
		if a.From.Hash.IsZero() && !a.To.Hash.IsZero() && h.renameFrom(m, a.Path).from == p {
			return a.Path
		}
	}
	return ""
}
