package index

import (
	"context"
	"path"
	"slices"
	"strings"
)

// LinkingNote is a note that links to the queried file, with only the
// links that point there.
type LinkingNote struct {
	Source string   // vault-relative path of the linking note
	Links  []string // its links to the file, as written, distinct, in order
	Lines  []int    // the lines those links are on, ascending, distinct
	// Nodes, for a canvas, are the ids of the file nodes those links
	// are, in order.
	Nodes []string
}

// Linkers pages through the notes whose links resolve to the file rel,
// sorted by path: total counts them all, page holds those in [offset,
// offset+limit). Only the page's links are gathered, so a note with
// thousands of backlinks costs little more than one with ten.
func (ix *Index) Linkers(ctx context.Context, rel string, offset, limit int) (total int, page []LinkingNote, err error) {
	if err := ix.Wait(ctx); err != nil {
		return 0, nil, err
	}
	scope, hides := ix.scopeOf(ctx)
	if hides && !scope.Visible(rel) {
		return 0, nil, nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	srcs := make([]string, 0, ix.backlinks[rel].len())
	for src := range ix.backlinks[rel].all() {
		if ix.source(src) != nil && (!hides || scope.Visible(src)) {
			srcs = append(srcs, src)
		}
	}
	slices.Sort(srcs)
	return len(srcs), ix.linkingNotes(window(srcs, offset, limit), func(n *note, i int) bool { return n.out[i] == rel }), nil
}

// LinkersOfName is Linkers for a name no file has: the notes with
// unresolved links to that name (a note can be linked to before it
// exists).
func (ix *Index) LinkersOfName(ctx context.Context, name string, offset, limit int) (total int, page []LinkingNote, err error) {
	if err := ix.Wait(ctx); err != nil {
		return 0, nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	want := key(strings.TrimSuffix(strings.TrimSpace(name), ".md"))
	match := func(n *note, i int) bool {
		l := n.doc.links[i]
		return n.out[i] == "" && l.target != "" && key(strings.TrimSuffix(l.target, ".md")) == want
	}
	scope, hides := ix.scopeOf(ctx)
	var srcs []string
	for src := range ix.linkers[linkKey(name)].all() {
		n := ix.source(src)
		if n == nil || hides && !scope.Visible(src) {
			continue
		}
		for i := range n.doc.links {
			if match(n, i) {
				srcs = append(srcs, src)
				break
			}
		}
	}
	slices.Sort(srcs)
	return len(srcs), ix.linkingNotes(window(srcs, offset, limit), match), nil
}

// linkingNotes gathers, for each source note, the links for which match
// holds. ix.mu must be held.
func (ix *Index) linkingNotes(srcs []string, match func(n *note, i int) bool) []LinkingNote {
	out := make([]LinkingNote, 0, len(srcs))
	for _, src := range srcs {
		n := ix.source(src)
		ln := LinkingNote{Source: src, Nodes: ix.nodesOf(n, match)}
		for i, l := range n.doc.links {
			if !match(n, i) {
				continue
			}
			if !slices.Contains(ln.Links, l.raw) {
				ln.Links = append(ln.Links, l.raw)
			}
			if line := int(l.line); !slices.Contains(ln.Lines, line) {
				ln.Lines = append(ln.Lines, line)
			}
		}
		// Frontmatter links come first in the parse; lines read best in order.
		slices.Sort(ln.Lines)
		out = append(out, ln)
	}
	return out
}

// window returns items[offset:offset+limit], clamped.
func window(items []string, offset, limit int) []string {
	offset = min(max(offset, 0), len(items))
	return items[offset : offset+min(max(limit, 0), len(items)-offset)]
}

// Named resolves a note name (or path) as a link from the vault root
// would ([[name]]), and lists every other file with that name, nearest
// the root first: a client asking by name should learn that the name is
// shared. ok is false when no file has the name.
func (ix *Index) Named(ctx context.Context, name string) (rel string, others []string, ok bool, err error) {
	if err := ix.Wait(ctx); err != nil {
		return "", nil, false, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	rel, ok = ix.names.resolve(name, "")
	scope, hides := ix.scopeOf(ctx)
	if !ok || hides && !scope.Visible(rel) {
		return "", nil, false, nil
	}
	base := path.Base(strings.TrimSpace(name))
	seen := map[string]bool{rel: true}
	for _, b := range []string{base + ".md", base} {
		for _, other := range ix.names.byBase[key(b)] {
			if !seen[other] && (!hides || scope.Visible(other)) {
				seen[other] = true
				others = append(others, other)
			}
		}
	}
	return rel, others, true, nil
}
