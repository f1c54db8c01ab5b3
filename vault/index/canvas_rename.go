package index

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"vaultmcp/vault"
	"vaultmcp/vault/canvas"
	"vaultmcp/vault/markdown"
)

// Relinked is what a rename's relinking did.
type Relinked struct {
	Links, Notes int // links rewritten in notes, and the notes
	// CanvasLinks counts the file nodes and text-card links rewritten,
	// in Canvases canvases.
	CanvasLinks, Canvases int
	// LeftAlone names the canvases that may show the file but are not
	// valid JSON: they are not rewritten (see canvas.ErrInvalid).
	LeftAlone []string
}

// FollowRenameAll is FollowRename with canvases: their file nodes and
// the links in their text cards follow the file too, written in the same
// batch, so notes and canvases land in one commit. Every other byte of a
// canvas stays as written.
func (ix *Index) FollowRenameAll(ctx context.Context, tx *vault.Tx, from, to string) (Relinked, error) {
	var r Relinked
	rewrites, err := ix.PlanRename(ctx, from, to)
	if err != nil {
		return r, err
	}
	boards, leftAlone, err := ix.PlanCanvasRename(ctx, from, to)
	if err != nil {
		return r, err
	}
	r.LeftAlone = leftAlone
	batch := make([]vault.FileWrite, 0, len(rewrites)+len(boards))
	for _, rw := range rewrites {
		batch = append(batch, vault.FileWrite{Path: rw.path, Data: rw.Content})
		r.Links += rw.Links
		r.Notes++
	}
	for _, rw := range boards {
		batch = append(batch, vault.FileWrite{Path: rw.path, Data: rw.Content})
		r.CanvasLinks += rw.Links
		r.Canvases++
	}
	var ahead *parsedAhead
	if len(rewrites) >= minParseAhead {
		ahead = ix.parseAhead(rewrites)
	}
	boardsAhead := parseCanvasesAhead(boards)
	infos, err := tx.WriteFiles(batch)
	if err != nil {
		return Relinked{}, err
	}
	ix.keepWritten(batch[:len(rewrites)], infos[:len(rewrites)], ahead)
	ix.keepCanvases(batch[len(rewrites):], infos[len(rewrites):], boardsAhead)
	return r, nil
}

// writtenCanvas is a canvas a rename's relinking wrote, until the
// refresh that follows the commit takes it in.
type writtenCanvas struct {
	fi    fs.FileInfo // the file as written
	abs   string
	ahead *canvasesAhead
	i     int // its place in ahead
}

// canvasesAhead is the parse of the canvases a rename writes, run beside
// the writing and the commit, as parseAhead is for the notes: the
// refresh that follows then finds them parsed.
type canvasesAhead struct {
	done chan struct{}
	cns  []*canvasNote
}

// parseCanvasesAhead starts parsing the rewritten canvases (nil: none).
func parseCanvasesAhead(boards []Rewrite) *canvasesAhead {
	if len(boards) == 0 {
		return nil
	}
	a := &canvasesAhead{done: make(chan struct{}), cns: make([]*canvasNote, len(boards))}
	go func() {
		defer close(a.done)
		for i, rw := range boards {
			cn := &canvasNote{note: note{rel: rw.Rel}}
			cn.parse(rw.Content)
			a.cns[i] = cn
		}
	}()
	return a
}

// keepCanvases remembers the canvases a rename wrote (replacing those of
// the rename before), for takeCanvas.
func (ix *Index) keepCanvases(batch []vault.FileWrite, fis []fs.FileInfo, ahead *canvasesAhead) {
	ix.ownMu.Lock()
	defer ix.ownMu.Unlock()
	ix.ownCanvases = nil
	if ahead == nil {
		return
	}
	ix.ownCanvases = make(map[string]writtenCanvas, len(batch))
	for i, fw := range batch {
		ix.ownCanvases[fw.Path.Rel] = writtenCanvas{fi: fis[i], abs: fw.Path.Abs, ahead: ahead, i: i}
	}
}

// takeCanvas returns the canvas rel as a rename wrote it and parsed it
// ahead, once, if the file at abs is still the one written (same
// identity, size and modification time); else nil, and the refresh reads
// the file.
func (ix *Index) takeCanvas(rel, abs string) *canvasNote {
	ix.ownMu.Lock()
	w, ok := ix.ownCanvases[rel]
	delete(ix.ownCanvases, rel)
	ix.ownMu.Unlock()
	if !ok || w.abs != abs {
		return nil
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > ix.maxNote || !os.SameFile(fi, w.fi) || fi.Size() != w.fi.Size() || !fi.ModTime().Equal(w.fi.ModTime()) {
		return nil
	}
	<-w.ahead.done
	cn := w.ahead.cns[w.i]
	cn.size, cn.modTime, cn.seq = fi.Size(), fi.ModTime(), ix.seq.Add(1)
	return cn
}

// PlanCanvasRename works out, as PlanRename does for notes, how every
// canvas showing the file from must change once it is at to: file nodes
// whose "file" is from, and links in text cards that resolve to from.
// Each canvas is read from disk and only those strings are spliced in.
// leftAlone names the canvases that are not valid JSON and mention
// from's name: they are not rewritten. Call it with the vault's write
// lock held.
func (ix *Index) PlanCanvasRename(ctx context.Context, from, to string) (rewrites []Rewrite, leftAlone []string, err error) {
	if err := ix.Wait(ctx); err != nil {
		return nil, nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if len(ix.canvases) == 0 {
		return nil, nil, nil
	}
	after := ix.names.renamed(from, to)
	fromName := strings.TrimSuffix(path.Base(from), path.Ext(from))
	dirs := map[string]vault.Path{}
	for _, rel := range slices.Sorted(maps.Keys(ix.canvases)) {
		cn := ix.canvases[rel]
		if rel == from || cn.tooLarge {
			continue
		}
		if cn.invalid == "" && !ix.canvasShows(cn, from) {
			continue
		}
		p, _, err := ix.statNote(rel, dirs)
		if err != nil {
			continue
		}
		src, err := ix.readNote(p)
		if err != nil {
			continue
		}
		c, err := canvas.Parse(src)
		if errors.Is(err, canvas.ErrInvalid) {
			if bytes.Contains(src, []byte(fromName)) {
				leftAlone = append(leftAlone, rel)
			}
			continue
		}
		if err != nil {
			continue
		}
		sets, count := ix.canvasSets(c, rel, from, to, &after)
		if count == 0 {
			continue
		}
		content, err := c.WithStrings(sets)
		if err != nil {
			continue
		}
		rewrites = append(rewrites, Rewrite{Rel: rel, Content: content, Links: count, path: p})
	}
	return rewrites, leftAlone, nil
}

// canvasShows reports whether the canvas, as indexed, has a file node or
// a text-card link resolving to rel. Caller holds mu.
func (ix *Index) canvasShows(cn *canvasNote, rel string) bool {
	if slices.Contains(cn.out, rel) {
		return true
	}
	k := linkKey(rel)
	for _, t := range cn.text {
		if t.bucket != k {
			continue
		}
		if got, ok := ix.names.resolve(t.target, cn.rel); ok && got == rel {
			return true
		}
	}
	return false
}

// canvasSets are the strings of the canvas rel to change so its file
// nodes and text-card links still show from once it is at to, and how
// many links they change. Caller holds mu.
func (ix *Index) canvasSets(c *canvas.Canvas, rel, from, to string, after *names) ([]canvas.Set, int) {
	var sets []canvas.Set
	count := 0
	for i, n := range c.Nodes {
		switch n.Type {
		case "file":
			if got, ok := ix.names.resolveLink(docLink{target: n.File, exact: true}, rel); ok && got == from {
				sets = append(sets, canvas.Set{Node: i, Key: "file", Value: to})
				count++
			}
		case "text":
			if !strings.Contains(n.Text, "[") {
				continue
			}
			text, k := ix.relinkText(n.Text, rel, from, to, after)
			if k > 0 {
				sets = append(sets, canvas.Set{Node: i, Key: "text", Value: text})
				count += k
			}
		}
	}
	return sets, count
}

// relinkText rewrites the links of a text card of the canvas rel that
// resolve to from, as rewriteNote does a note's.
func (ix *Index) relinkText(text, rel, from, to string, after *names) (string, int) {
	src := []byte(text)
	var b []byte
	last, count := 0, 0
	for _, l := range markdown.ParseShared(src).Links {
		if l.Target == "" {
			continue
		}
		if was, ok := ix.names.resolve(l.Target, rel); !ok || was != from {
			continue
		}
		if got, ok := after.resolve(l.Target, rel); ok && got == to {
			continue
		}
		b = append(b, src[last:l.Start]...)
		b = append(b, l.WithTarget(linkTarget(l, to, rel, after))...)
		last = l.End
		count++
	}
	if count == 0 {
		return text, 0
	}
	return string(append(b, src[last:]...)), count
}
