// Package indexsource gives the Bases engine (package bases) the vault's
// files from the live index: each note's typed frontmatter, tags, links
// and embeds, parsed once per version of the note, and sizes and times
// from the file system.
package indexsource

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"vaultmcp/vault/access"
	"vaultmcp/vault/bases"
	"vaultmcp/vault/index"
	"vaultmcp/vault/markdown"
)

// Source keeps the index's files converted for the engine, converting a
// note again only when the index has read it again.
type Source struct {
	ix   *index.Index
	root string
	loc  *time.Location

	mu    sync.Mutex
	gen   uint64
	built bool
	cur   *files
	notes map[string]noteEntry
}

type noteEntry struct {
	seq  uint64
	file *bases.File
}

// files is every file as of one generation of the index; never modified
// once made.
type files struct {
	list   []*bases.File
	byPath map[string]*bases.File

	// Columns made for queries, each a property's values or a tag's
	// presence for every file of list, kept while the generation lasts.
	mu     sync.Mutex
	cols   map[string][]bases.Value
	tagged map[string][]bool
}

// maxColumns bounds the columns one generation keeps (each is 72 bytes a
// file): past it a query reads the files instead.
const maxColumns = 64

// New returns a Source over ix, whose vault is at root; dates without a
// zone are read in loc (nil: time.Local).
func New(ix *index.Index, root string, loc *time.Location) *Source {
	if loc == nil {
		loc = time.Local
	}
	return &Source{ix: ix, root: root, loc: loc, notes: map[string]noteEntry{}}
}

// Snapshot returns the files as the index has them now, as ctx's access
// scope lets the caller see them.
func (s *Source) Snapshot(ctx context.Context) (bases.Source, error) {
	if err := s.ix.Wait(ctx); err != nil {
		return nil, err
	}
	cur, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	scope := s.ix.Scope(ctx)
	return &snapshot{s: s, ctx: ctx, cur: cur, scope: scope, hides: scope.Hides()}, nil
}

func (s *Source) current(ctx context.Context) (*files, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	gen := s.ix.Generation()
	if s.built && gen == s.gen {
		return s.cur, nil
	}
	// Unchanged notes keep their converted File, looked up under the
	// index's lock; only the changed ones are copied out to be converted
	// after it (a copy of every note's NoteMeta was most of the cost of a
	// new generation).
	size := len(s.cur0()) + 64
	cur := &files{list: make([]*bases.File, 0, size), byPath: make(map[string]*bases.File, size)}
	notes := make(map[string]noteEntry, size)
	var stale []index.NoteMeta
	if err := s.ix.EachNote(ctx, func(m *index.NoteMeta) bool {
		if e, ok := s.notes[m.Path]; ok && e.seq == m.Seq {
			notes[m.Path] = e
			cur.list = append(cur.list, e.file)
			cur.byPath[m.Path] = e.file
			return true
		}
		stale = append(stale, *m)
		return true
	}); err != nil {
		return nil, err
	}
	for i := range stale {
		m := &stale[i]
		e := noteEntry{seq: m.Seq, file: s.noteFile(m)}
		notes[m.Path] = e
		cur.list = append(cur.list, e.file)
		cur.byPath[m.Path] = e.file
	}
	// Attachments and other files: a base ranges over every file.
	s.ix.Files("", func(rel string) bool {
		if _, ok := cur.byPath[rel]; !ok {
			if f := s.statFile(rel); f != nil {
				cur.list = append(cur.list, f)
				cur.byPath[rel] = f
			}
		}
		return true
	})
	// The engine's order among equal sort keys.
	slices.SortFunc(cur.list, func(a, b *bases.File) int { return strings.Compare(a.Path, b.Path) })
	s.notes, s.cur, s.gen, s.built = notes, cur, gen, true
	return cur, nil
}

// cur0 is the current list of files, nil before the first.
func (s *Source) cur0() []*bases.File {
	if s.cur == nil {
		return nil
	}
	return s.cur.list
}

// noteFile converts one note.
func (s *Source) noteFile(m *index.NoteMeta) *bases.File {
	f := &bases.File{Path: m.Path, Size: m.Size, MTime: m.ModTime, CTime: s.birth(m.Path, m.ModTime)}
	md := markdown.ParseShared(m.Content)
	if md.Frontmatter != nil {
		o := &bases.ObjectValue{Keys: make([]string, 0, len(md.Frontmatter))}
		// The index keeps the keys in the order written.
		for _, p := range m.Properties {
			if v, ok := md.Frontmatter[p.Key]; ok {
				o.Keys = append(o.Keys, p.Key)
				o.Vals = append(o.Vals, bases.FromYAML(v, m.Path, s.loc))
			}
		}
		f.Props = *o
	}
	f.Tags = make([]string, len(md.Tags))
	for i, t := range md.Tags {
		f.Tags[i] = t.Name
	}
	for i, l := range md.Links {
		if l.Target == "" {
			continue
		}
		fl := bases.FileLink{Target: l.Target}
		if i < len(m.Links) {
			fl.Path = m.Links[i]
		}
		if l.Embed {
			f.Embeds = append(f.Embeds, fl)
		} else {
			f.Links = append(f.Links, fl)
		}
	}
	return f
}

// statFile describes a file that is not a note, nil when it is gone.
func (s *Source) statFile(rel string) *bases.File {
	fi, err := os.Stat(filepath.Join(s.root, filepath.FromSlash(rel)))
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return &bases.File{Path: rel, Size: fi.Size(), MTime: fi.ModTime(), CTime: birthTime(filepath.Join(s.root, filepath.FromSlash(rel)), fi)}
}

func (s *Source) birth(rel string, mtime time.Time) time.Time {
	abs := filepath.Join(s.root, filepath.FromSlash(rel))
	fi, err := os.Stat(abs)
	if err != nil {
		return mtime
	}
	return birthTime(abs, fi)
}

// snapshot is one query's view of the files.
type snapshot struct {
	s     *Source
	ctx   context.Context
	cur   *files
	scope *access.Scope
	hides bool
}

func (sn *snapshot) Files(ctx context.Context, fn func(*bases.File) bool) error {
	for _, f := range sn.cur.list {
		if sn.hides {
			if !sn.scope.Visible(f.Path) {
				continue
			}
			f = sn.scoped(f)
		}
		if !fn(f) {
			break
		}
	}
	return nil
}

// scoped hides the targets of f's links that the scope does not show, as
// find_links does.
func (sn *snapshot) scoped(f *bases.File) *bases.File {
	links, c1 := sn.hide(f.Links)
	embeds, c2 := sn.hide(f.Embeds)
	if !c1 && !c2 {
		return f
	}
	c := *f
	c.Links, c.Embeds = links, embeds
	return &c
}

func (sn *snapshot) hide(ls []bases.FileLink) ([]bases.FileLink, bool) {
	var out []bases.FileLink
	for i, l := range ls {
		if l.Path != "" && !sn.scope.Visible(l.Path) {
			if out == nil {
				out = append([]bases.FileLink(nil), ls...)
			}
			out[i].Path = ""
		}
	}
	if out == nil {
		return ls, false
	}
	return out, true
}

func (sn *snapshot) File(p string) (*bases.File, bool) {
	if sn.hides && !sn.scope.Visible(p) {
		return nil, false
	}
	// Only what the index lists: a hidden or skipped file stays unseen,
	// whatever path an expression gives file().
	f, ok := sn.cur.byPath[p]
	return f, ok
}

func (sn *snapshot) Resolve(target, from string) (string, bool) {
	if _, ok := sn.File(target); ok {
		return target, true
	}
	p, ok, err := sn.s.ix.ResolveName(sn.ctx, target)
	if err != nil || !ok {
		return "", false
	}
	return p, true
}

func (sn *snapshot) Backlinks(p string) []string {
	bl, err := sn.s.ix.Backlinks(sn.ctx, p)
	if err != nil {
		return nil
	}
	out := make([]string, len(bl))
	for i, b := range bl {
		out[i] = b.Source
	}
	return out
}

// Column gives the engine a property's values side by side (see
// bases.Columns); none when the caller's scope hides files, as Files
// then skips some.
func (sn *snapshot) Column(name string) []bases.Value {
	if sn.hides {
		return nil
	}
	c := sn.cur
	c.mu.Lock()
	defer c.mu.Unlock()
	if col, ok := c.cols[name]; ok {
		return col
	}
	if len(c.cols) >= maxColumns {
		return nil
	}
	col := make([]bases.Value, len(c.list))
	for i, f := range c.list {
		col[i], _ = f.Props.Get(name)
	}
	if c.cols == nil {
		c.cols = map[string][]bases.Value{}
	}
	c.cols[name] = col
	return col
}

// Tagged gives the engine which files have a tag (see bases.Columns).
func (sn *snapshot) Tagged(tag string) []bool {
	if sn.hides {
		return nil
	}
	c := sn.cur
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.tagged[tag]; ok {
		return t
	}
	if len(c.tagged) >= maxColumns {
		return nil
	}
	t := make([]bool, len(c.list))
	for i, f := range c.list {
		t[i] = bases.HasTag(f.Tags, tag)
	}
	if c.tagged == nil {
		c.tagged = map[string][]bool{}
	}
	c.tagged[tag] = t
	return t
}
