package index

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"vaultmcp/vault"
	"vaultmcp/vault/markdown"
)

// Rewrite is the new content of one note whose links follow a renamed
// file.
type Rewrite struct {
	Rel     string // the note's path after the rename
	Content []byte
	Links   int // links rewritten in it

	path vault.Path // Rel resolved, for writing it
}

// FollowRename rewrites, inside the rename's own change, every link that
// pointed at from so it points at to: the move and the link updates are
// one commit. Canvases follow too, though only notes are counted here
// (FollowRenameAll counts both). It is meant for vault.RenameFile's extra
// hook, after the move, with the vault's write lock held. It returns the links rewritten
// and the notes they are in. The notes are written as one batch (see
// vault.Tx.WriteFiles): a rename that relinks a thousand notes flushes
// them together, not one by one. The index keeps the texts it wrote, so
// when the change is recorded and reported it takes them in without
// reading the notes back (see keepWritten), and parses them while they
// are written and committed (see parseAhead).
func (ix *Index) FollowRename(ctx context.Context, tx *vault.Tx, from, to string) (links, notes int, err error) {
	r, err := ix.FollowRenameAll(ctx, tx, from, to)
	return r.Links, r.Notes, err
}

// minParseAhead is the smallest number of relinked notes parsed beside
// the writing (see parseAhead): for a few, a goroutine of their own is
// not worth it.
const minParseAhead = 32

// PlanRename works out, before a file moves from from to to, how every note
// linking to it must change so its links still resolve to it. Each link
// keeps its alias, heading, block and style (wikilink or Markdown, name or
// path). Call it with the vault's write lock held, just before or just
// after the move. A note's text is taken from the index when the file on
// disk is the one the index read (same size and modification time), and
// read from disk otherwise, so an edit the index has not seen yet is kept.
func (ix *Index) PlanRename(ctx context.Context, from, to string) ([]Rewrite, error) {
	if err := ix.Wait(ctx); err != nil {
		return nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()

	// After the move, names resolve against this view of the table.
	after := ix.names.renamed(from, to)

	sources := make([]string, 0, ix.backlinks[from].len()+1)
	for src := range ix.backlinks[from].all() {
		sources = append(sources, src)
	}
	if _, ok := ix.notes[from]; ok {
		sources = append(sources, from) // the note may name itself, or link relatively
	}
	// Each note is planned on its own: a popular note's 1,800 are
	// shared among the cores (a stat and a parse each), every worker with
	// its own folders resolved. The read lock held here keeps the index
	// still for all of them.
	planned := make([]Rewrite, len(sources))
	workers := 1
	if len(sources) >= minParallelPlan {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	var panicked atomic.Pointer[any]
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A panic on a worker would end the process; it is raised
			// again below, on the caller's goroutine, where the tool
			// call's recover turns it into an error as before.
			defer func() {
				if p := recover(); p != nil {
					panicked.CompareAndSwap(nil, &p)
				}
			}()
			dirs := map[string]vault.Path{} // folders resolved, for statNote
			for i := w; i < len(sources); i += workers {
				planned[i] = ix.planNote(sources[i], from, to, &after, dirs)
			}
		}()
	}
	wg.Wait()
	if p := panicked.Load(); p != nil {
		panic(*p)
	}
	out := planned[:0]
	for _, rw := range planned {
		if rw.Links > 0 {
			out = append(out, rw)
		}
	}
	return out, nil
}

// minParallelPlan is the number of linking notes from which PlanRename
// shares them among the cores.
const minParallelPlan = 128

// planNote is PlanRename's work for the note src: its rewrite, or one
// with no links when it has nothing to change. Caller holds mu.
func (ix *Index) planNote(src, from, to string, after *names, dirs map[string]vault.Path) Rewrite {
	n := ix.notes[src]
	if n == nil {
		return Rewrite{}
	}
	newSrc := src
	if src == from {
		newSrc = to
	}
	p, text, ok := ix.currentText(n, from, to, dirs)
	if !ok {
		return Rewrite{}
	}
	content, count := ix.rewriteNote(n, text, from, to, newSrc, after)
	if count == 0 {
		return Rewrite{}
	}
	return Rewrite{Rel: newSrc, Content: content, Links: count, path: p}
}

// currentText returns the note's path resolved for writing and its text
// as it is on disk now: the index's copy when the file is the one the
// index read, else the file read again. ok is false when the note cannot
// be rewritten: too large, gone, or grown past what the index reads since
// the index saw it (writing the index's copy back would undo that change).
// Caller holds mu.
func (ix *Index) currentText(n *note, from, to string, dirs map[string]vault.Path) (vault.Path, []byte, bool) {
	if n.tooLarge {
		return vault.Path{}, nil, false // its links were never read
	}
	p, fi, err := ix.statNote(n.rel, dirs)
	if err != nil && n.rel == from {
		// Called after the move (as rename_file does): the note is at to.
		p, fi, err = ix.statNote(to, dirs)
	}
	if err != nil {
		return vault.Path{}, nil, false
	}
	if fi.Mode().IsRegular() && n.content != nil && fi.Size() == n.size && fi.ModTime().Equal(n.modTime) {
		return p, n.content, true
	}
	src, err := ix.readNote(p)
	if err != nil {
		return vault.Path{}, nil, false
	}
	return p, src, true
}

// statNote resolves the note at rel and stats the file there. The notes
// linking to a popular one sit in a few folders: each folder is resolved
// once (in dirs) and each note is then one lstat, where resolving every
// note's whole path took several. Anything but a regular file found as
// the index spells it (a symbolic link, a folder spelled in another
// Unicode form) is resolved in full, as before.
func (ix *Index) statNote(rel string, dirs map[string]vault.Path) (vault.Path, os.FileInfo, error) {
	dir, base := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	parent, ok := dirs[dir]
	if !ok {
		var err error
		if parent, err = ix.v.Resolve(dir); err != nil {
			parent = vault.Path{Rel: "\x00"} // never matches: resolve in full
		}
		dirs[dir] = parent
	}
	if parent.Rel == dir && !vault.IsTemp(base) {
		abs := filepath.Join(parent.Abs, base)
		if fi, err := os.Lstat(abs); err == nil && fi.Mode().IsRegular() {
			return vault.Path{Given: rel, Rel: rel, Abs: abs}, fi, nil
		}
	}
	p, err := ix.v.Resolve(rel)
	if err != nil {
		return vault.Path{}, nil, err
	}
	fi, err := os.Stat(p.Abs)
	if err != nil {
		return vault.Path{}, nil, err
	}
	return p, fi, nil
}

// rewriteNote rewrites the links in src, the text of n, that should point
// at the moved file (or, for the moved note itself, at any file) so that
// they resolve the same after the move. Caller holds mu.
func (ix *Index) rewriteNote(n *note, src []byte, from, to, newSrc string, after *names) ([]byte, int) {
	// Shared, not copied: src (the index's text or one just read) is
	// never modified, and the links do not outlive this call.
	parsed := markdown.ParseShared(src)
	var b []byte // the new text, built only once a link changes
	last, count := 0, 0
	for _, l := range parsed.Links {
		if l.Target == "" {
			continue
		}
		was, ok := ix.names.resolve(l.Target, n.rel)
		if !ok {
			continue
		}
		want := was
		if was == from {
			want = to
		} else if n.rel != from {
			continue
		}
		if got, ok := after.resolve(l.Target, newSrc); ok && got == want {
			continue
		}
		target := linkTarget(l, want, newSrc, after)
		if b == nil {
			b = make([]byte, 0, len(src)+len(to)-len(from)+64)
		}
		b = append(b, src[last:l.Start]...)
		b = append(b, l.WithTarget(target)...)
		last = l.End
		count++
	}
	if count == 0 {
		return nil, 0
	}
	return append(b, src[last:]...), count
}

// linkTarget picks the shortest target text, in the link's own style, that
// resolves from src to want.
func linkTarget(l markdown.Link, want, src string, after *names) string {
	withExt := strings.HasSuffix(strings.ToLower(l.Target), ".md")
	trimExt := func(p string) string {
		if !withExt && isNote(p) {
			return strings.TrimSuffix(p, path.Ext(p))
		}
		return p
	}
	if l.Style == markdown.Markdown || l.Style == markdown.MarkdownAngle {
		// Markdown links name files by path; keep a relative link
		// relative and a vault-rooted one rooted.
		if strings.HasPrefix(l.Target, "./") || strings.HasPrefix(l.Target, "../") {
			return relPath(path.Dir(src), want)
		}
		return want
	}
	if !strings.Contains(l.Target, "/") {
		name := trimExt(path.Base(want))
		if got, ok := after.resolve(name, src); ok && got == want {
			return name
		}
	}
	return trimExt(want)
}

// relPath returns the path of target relative to the folder dir.
func relPath(dir, target string) string {
	if dir == "." {
		dir = ""
	}
	d := strings.Split(dir, "/")
	t := strings.Split(target, "/")
	if dir == "" {
		d = nil
	}
	i := 0
	for i < len(d) && i < len(t)-1 && d[i] == t[i] {
		i++
	}
	parts := make([]string, 0, len(d)-i+len(t)-i)
	for j := i; j < len(d); j++ {
		parts = append(parts, "..")
	}
	parts = append(parts, t[i:]...)
	return strings.Join(parts, "/")
}

// readNote reads a note from disk for a rewrite: a regular file no larger
// than the index reads.
func (ix *Index) readNote(p vault.Path) ([]byte, error) {
	f, fi, err := vault.OpenRegular(p.Abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > ix.maxNote {
		return nil, fmt.Errorf("%s: larger than %d bytes", p.Rel, ix.maxNote)
	}
	return io.ReadAll(io.LimitReader(f, ix.maxNote+1))
}
