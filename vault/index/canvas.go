package index

import (
	"context"
	"io"
	"slices"
	"strings"

	"vaultmcp/vault"
	"vaultmcp/vault/canvas"
)

// canvasNote is a canvas as the index holds it. Its file nodes are links
// from the canvas, as Obsidian's link cache has them: the embedded note's
// doc.links are the file nodes (resolved by exact path, as Obsidian reads
// a node's "file"), and they count in backlinks, broken links and
// re-resolution like a note's links. Wikilinks typed in text cards are
// kept apart (text): Obsidian leaves them out of its link cache, but
// find_links lists them and renames rewrite them. Canvases live in a map
// of their own, so a vault without canvases pays for none of this.
type canvasNote struct {
	note
	nodes   []string // the id of the file node of each doc.links[i]
	text    []canvasTextLink
	invalid string // why the file is not a canvas ("" when it is)
}

// canvasTextLink is one link typed in a text card.
type canvasTextLink struct {
	node   string
	raw    string
	target string
	bucket string // linkKey(target): only a file of that bucket can be its target
	line   int32
}

// source returns the note or canvas rel, which links to files, or nil.
// Caller holds mu.
func (ix *Index) source(rel string) *note {
	if n := ix.notes[rel]; n != nil {
		return n
	}
	if c := ix.canvases[rel]; c != nil {
		return &c.note
	}
	return nil
}

// readCanvas reads and parses the canvas at abs; nil when it cannot be
// read. A file that is not valid JSON is kept, without links, and named
// by InvalidCanvases.
func (ix *Index) readCanvas(rel, abs string) *canvasNote {
	f, fi, err := vault.OpenRegular(abs)
	if err != nil {
		return nil
	}
	defer f.Close()
	cn := &canvasNote{note: note{rel: rel, size: fi.Size(), modTime: fi.ModTime(), seq: ix.seq.Add(1)}}
	if fi.Size() > ix.maxNote {
		cn.tooLarge = true
		return cn
	}
	src, err := io.ReadAll(io.LimitReader(f, ix.maxNote+1))
	if err != nil {
		return nil
	}
	cn.parse(src)
	return cn
}

// parse fills in cn from the canvas's bytes.
func (cn *canvasNote) parse(src []byte) {
	c, err := canvas.Parse(src)
	if err != nil {
		cn.invalid = err.Error()
		return
	}
	for _, fl := range c.FileLinks() {
		cn.doc.links = append(cn.doc.links, docLink{raw: fl.File + fl.Subpath, target: fl.File, bucket: linkKey(fl.File), line: int32(fl.Line), exact: true})
		cn.nodes = append(cn.nodes, fl.Node)
	}
	for _, tl := range c.TextLinks() {
		cn.text = append(cn.text, canvasTextLink{node: tl.Node, raw: tl.Link.Raw, target: tl.Link.Target, bucket: linkKey(tl.Link.Target), line: int32(tl.Line)})
	}
}

// putCanvas installs a canvas read anew (nil: rel is gone or unreadable)
// in place of what the index had at rel. Caller holds mu.
func (ix *Index) putCanvas(rel string, cn *canvasNote) {
	if old := ix.canvases[rel]; old != nil {
		ix.removeContributions(&old.note)
		delete(ix.canvases, rel)
	}
	if cn == nil {
		ix.removeFile(rel)
		return
	}
	if ix.canvases == nil {
		ix.canvases = map[string]*canvasNote{}
	}
	ix.canvases[rel] = cn
	ix.putName(rel)
	ix.addContributions(&cn.note)
}

// refreshCanvas re-reads the canvas rel, found at abs, or takes it as a
// rename just wrote it (takeCanvas).
func (ix *Index) refreshCanvas(rel, abs string) {
	cn := ix.takeCanvas(rel, abs)
	if cn == nil {
		cn = ix.readCanvas(rel, abs)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.putCanvas(rel, cn)
}

// loadCanvases reads a build's canvases among the other files it found
// (none in most vaults: then nothing is read or kept).
func (ix *Index) loadCanvases(root string, others []string) []*canvasNote {
	var out []*canvasNote
	var ld loader
	for _, rel := range others {
		if !canvas.IsCanvas(rel) {
			continue
		}
		if cn := ix.readCanvas(rel, ld.pathOf(root, rel)); cn != nil {
			out = append(out, cn)
		}
	}
	return out
}

// CanvasTextLink is a link typed in a canvas's text card.
type CanvasTextLink struct {
	Canvas string // vault-relative path of the canvas
	Node   string // the text card's id
	Link   string // as written
	Target string // the file it resolves to, "" when none
	Line   int    // the line of the card's text in the canvas file
}

// CanvasTextLinksTo returns the text-card links that resolve to rel, by
// canvas and then in order. They are not backlinks (Obsidian does not
// count them), but a reader of the card expects them to follow the note.
func (ix *Index) CanvasTextLinksTo(ctx context.Context, rel string) ([]CanvasTextLink, error) {
	if err := ix.Wait(ctx); err != nil {
		return nil, err
	}
	scope, hides := ix.scopeOf(ctx)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out []CanvasTextLink
	k := linkKey(rel)
	for crel, cn := range ix.canvases {
		if hides && !scope.Visible(crel) {
			continue
		}
		for _, t := range cn.text {
			if t.bucket != k {
				continue
			}
			if got, ok := ix.names.resolve(t.target, crel); ok && got == rel {
				out = append(out, CanvasTextLink{Canvas: crel, Node: t.node, Link: t.raw, Target: got, Line: int(t.line)})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b CanvasTextLink) int { return strings.Compare(a.Canvas, b.Canvas) })
	return out, nil
}

// CanvasTextLinksFrom returns the text-card links of the canvas rel, in
// order; ok is false when rel is no indexed canvas.
func (ix *Index) CanvasTextLinksFrom(ctx context.Context, rel string) ([]CanvasTextLink, bool, error) {
	if err := ix.Wait(ctx); err != nil {
		return nil, false, err
	}
	scope, hides := ix.scopeOf(ctx)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	cn := ix.canvases[rel]
	if cn == nil || hides && !scope.Visible(rel) {
		return nil, false, nil
	}
	out := make([]CanvasTextLink, 0, len(cn.text))
	for _, t := range cn.text {
		target, _ := ix.names.resolve(t.target, rel)
		if hides && target != "" && !scope.Visible(target) {
			target = ""
		}
		out = append(out, CanvasTextLink{Canvas: rel, Node: t.node, Link: t.raw, Target: target, Line: int(t.line)})
	}
	return out, true, nil
}

// InvalidCanvases returns the canvases that are not valid JSON (or not a
// canvas's shape), each with why, sorted by path.
func (ix *Index) InvalidCanvases(ctx context.Context) ([][2]string, error) {
	if err := ix.Wait(ctx); err != nil {
		return nil, err
	}
	scope, hides := ix.scopeOf(ctx)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out [][2]string
	for rel, cn := range ix.canvases {
		if cn.invalid != "" && (!hides || scope.Visible(rel)) {
			out = append(out, [2]string{rel, cn.invalid})
		}
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out, nil
}

// nodesOf returns, for the source n, the ids of the canvas nodes whose
// links match (nil when n is no canvas). Caller holds mu.
func (ix *Index) nodesOf(n *note, match func(n *note, i int) bool) []string {
	cn := ix.canvases[n.rel]
	if cn == nil || &cn.note != n {
		return nil
	}
	var ids []string
	for i := range n.doc.links {
		if match(n, i) && !slices.Contains(ids, cn.nodes[i]) {
			ids = append(ids, cn.nodes[i])
		}
	}
	return ids
}
