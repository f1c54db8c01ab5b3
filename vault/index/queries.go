package index

import (
	"context"
	"iter"
	"maps"
	"slices"
	"strings"

	"vaultmcp/vault/access"
)

// Backlink is a note linking to the queried one.
type Backlink struct {
	Source string   // vault-relative path of the linking note
	Links  []string // every link in the linking note, as written (get_backlinks' "links" field)
	Count  int      // how many of those point at the queried note
	// Nodes, for a canvas, are the ids of its file nodes showing the
	// queried file.
	Nodes []string
}

// Backlinks returns the notes whose links resolve to the file rel, sorted
// by path.
func (ix *Index) Backlinks(ctx context.Context, rel string) ([]Backlink, error) {
	if err := ix.Wait(ctx); err != nil {
		return nil, err
	}
	scope, hides := ix.scopeOf(ctx)
	if hides && !scope.Visible(rel) {
		return nil, nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	srcs := ix.backlinks[rel]
	out := make([]Backlink, 0, srcs.len())
	for src, count := range srcs.all() {
		n := ix.source(src)
		if n == nil || hides && !scope.Visible(src) {
			continue
		}
		nodes := ix.nodesOf(n, func(n *note, i int) bool { return n.out[i] == rel })
		out = append(out, Backlink{Source: src, Links: n.doc.rawLinks(), Count: count, Nodes: nodes})
	}
	slices.SortFunc(out, func(a, b Backlink) int { return strings.Compare(a.Source, b.Source) })
	return out, nil
}

// ResolveName finds the note a bare name or path names, as a link from the
// vault root would ([[name]]). ok is false when nothing matches.
func (ix *Index) ResolveName(ctx context.Context, name string) (string, bool, error) {
	if err := ix.Wait(ctx); err != nil {
		return "", false, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	rel, ok := ix.names.resolve(name, "")
	if ok && !ix.Scope(ctx).Visible(rel) {
		return "", false, nil
	}
	return rel, ok, nil
}

// Outlink is one distinct link target of a note.
type Outlink struct {
	Name string // the target as written, without heading, block or alias
	Path string // the resolved file, "" when the link is broken
}

// Outlinks returns the distinct targets a note links to, in order of
// first appearance. Links to the note itself ([[#Heading]]) are left out.
func (ix *Index) Outlinks(ctx context.Context, rel string) ([]Outlink, bool, error) {
	if err := ix.Wait(ctx); err != nil {
		return nil, false, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	scope, hides := ix.scopeOf(ctx)
	n := ix.source(rel)
	if n == nil || hides && !scope.Visible(rel) {
		return nil, false, nil
	}
	var out []Outlink
	seen := map[string]bool{}
	for i, l := range n.doc.links {
		if l.target == "" {
			continue
		}
		k := n.out[i]
		if k == "" {
			k = "\x00" + key(l.target)
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		target := n.out[i]
		if hides && !scope.Visible(target) {
			target = ""
		}
		out = append(out, Outlink{Name: l.target, Path: target})
	}
	return out, true, nil
}

// BrokenLinks is one note's links to files that do not exist.
type BrokenLinks struct {
	Source  string
	Targets []string // distinct targets as written
}

// Broken returns every note with links that resolve to nothing, sorted by
// path. A link to an existing attachment, or to a heading or block of an
// existing note, is not broken. The result is shared: callers must not
// modify it.
func (ix *Index) Broken(ctx context.Context) ([]BrokenLinks, error) {
	if err := ix.Wait(ctx); err != nil {
		return nil, err
	}
	if scope, hides := ix.scopeOf(ctx); hides {
		all, err := ix.Broken(access.With(ctx, nil))
		if err != nil {
			return nil, err
		}
		var out []BrokenLinks
		for _, b := range all {
			if scope.Visible(b.Source) {
				out = append(out, b)
			}
		}
		return out, nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	// Scanning every note's links costs milliseconds on a large vault; the
	// answer only changes when the index does.
	ix.cacheMu.Lock()
	defer ix.cacheMu.Unlock()
	if ix.brokenCache != nil && ix.brokenGen == ix.gen {
		return ix.brokenCache, nil
	}
	out := make([]BrokenLinks, 0, ix.broken)
	sources := maps.Values(ix.notes)
	if len(ix.canvases) > 0 {
		sources = concatSeq(sources, func(yield func(*note) bool) {
			for _, c := range ix.canvases {
				if !yield(&c.note) {
					return
				}
			}
		})
	}
	for n := range sources {
		if n.brokenCount() == 0 {
			continue
		}
		var targets []string
		for i, l := range n.doc.links {
			if n.out[i] == "" && l.target != "" && !slices.Contains(targets, l.target) {
				targets = append(targets, l.target)
			}
		}
		out = append(out, BrokenLinks{Source: n.rel, Targets: targets})
	}
	slices.SortFunc(out, func(a, b BrokenLinks) int { return strings.Compare(a.Source, b.Source) })
	ix.brokenCache, ix.brokenGen = out, ix.gen
	return out, nil
}

// DanglingAfterDelete counts the links from other notes that a deletion
// of rel would break: those pointing at rel that would then resolve to
// nothing, not those that fall back to another file of the same name.
func (ix *Index) DanglingAfterDelete(ctx context.Context, rel string) (links, notes int, err error) {
	if err := ix.Wait(ctx); err != nil {
		return 0, 0, err
	}
	// The write lock: the name table is changed for the question and put
	// back before anyone else sees it.
	ix.mu.Lock()
	defer ix.mu.Unlock()
	srcs := ix.backlinks[rel]
	if srcs.len() == 0 {
		return 0, 0, nil
	}
	ix.names.remove(rel)
	defer ix.names.add(rel)
	scope, hides := ix.scopeOf(ctx)
	for src := range srcs.all() {
		n := ix.source(src)
		if n == nil || hides && !scope.Visible(src) {
			continue
		}
		c := 0
		for i, l := range n.doc.links {
			if n.out[i] != rel {
				continue
			}
			if _, ok := ix.names.resolveLink(l, n.rel); !ok {
				c++
			}
		}
		if c > 0 {
			links += c
			notes++
		}
	}
	return links, notes, nil
}

// TagCount is one tag's frequency.
type TagCount struct {
	Tag   string // the most common spelling
	Count int    // occurrences
	Notes int    // notes carrying it
}

// Tags returns tag frequencies over the vault (rel == "") or one note,
// most frequent first. With parents, a nested tag also counts toward each
// of its parents ("area/work" counts for "area").
func (ix *Index) Tags(ctx context.Context, rel string, parents bool) ([]TagCount, error) {
	if err := ix.Wait(ctx); err != nil {
		return nil, err
	}
	scope, hides := ix.scopeOf(ctx)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	stats := ix.tags
	if rel == "" && hides {
		stats = ix.visibleTags(scope)
	}
	if rel != "" {
		stats = map[string]*tagStat{}
		if n := ix.notes[rel]; n != nil && (!hides || scope.Visible(rel)) {
			for _, t := range n.doc.tags {
				k := key(t)
				st := stats[k]
				if st == nil {
					st = &tagStat{notes: 1, spellings: map[string]int{}}
					stats[k] = st
				}
				st.count++
				st.spellings[t]++
			}
		}
	}
	type agg struct {
		count, notes int
		spellings    map[string]int
	}
	all := map[string]*agg{}
	add := func(k string, st *tagStat, spellingOf func(string) string) {
		a := all[k]
		if a == nil {
			a = &agg{spellings: map[string]int{}}
			all[k] = a
		}
		a.count += st.count
		a.notes += st.notes
		for s, c := range st.spellings {
			a.spellings[spellingOf(s)] += c
		}
	}
	for k, st := range stats {
		add(k, st, func(s string) string { return s })
		if !parents {
			continue
		}
		for i := strings.LastIndexByte(k, '/'); i > 0; i = strings.LastIndexByte(k[:i], '/') {
			// Cut each spelling at its own slash: folding can change
			// byte lengths (NFD, some upper-case letters), never slashes.
			slashes := strings.Count(k[:i], "/") + 1
			add(k[:i], st, func(s string) string { return beforeSlash(s, slashes) })
		}
	}
	if parents {
		// A note carrying several children of a parent carries the parent
		// once: count notes per note, not per child.
		for _, a := range all {
			a.notes = 0
		}
		countNote := func(n *note) {
			seen := map[string]bool{}
			for _, t := range n.doc.tags {
				for k := key(t); k != "" && !seen[k]; {
					seen[k] = true
					all[k].notes++
					i := strings.LastIndexByte(k, '/')
					if i <= 0 {
						break
					}
					k = k[:i]
				}
			}
		}
		if rel != "" {
			if n := ix.notes[rel]; n != nil && (!hides || scope.Visible(rel)) {
				countNote(n)
			}
		} else {
			for r, n := range ix.notes {
				if !hides || scope.Visible(r) {
					countNote(n)
				}
			}
		}
	}
	out := make([]TagCount, 0, len(all))
	for _, a := range all {
		best, bestN := "", -1
		for s, c := range a.spellings {
			if c > bestN || (c == bestN && s < best) {
				best, bestN = s, c
			}
		}
		out = append(out, TagCount{Tag: best, Count: a.count, Notes: a.notes})
	}
	slices.SortFunc(out, func(a, b TagCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(key(a.Tag), key(b.Tag))
	})
	return out, nil
}

// beforeSlash returns s up to its n-th slash, or all of s if it has fewer.
func beforeSlash(s string, n int) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			if n--; n == 0 {
				return s[:i]
			}
		}
	}
	return s
}

// HasNote reports whether rel is an indexed Markdown note.
func (ix *Index) HasNote(ctx context.Context, rel string) (bool, error) {
	if err := ix.Wait(ctx); err != nil {
		return false, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, ok := ix.notes[rel]
	return ok && ix.Scope(ctx).Visible(rel), nil
}

// Texts calls fn with the content of every note under prefix (a folder,
// "" for the whole vault) until fn returns false. ok is false while the
// index is still building, so a caller can read the disk instead. The
// content slices are shared and never modified in place: a changed note
// gets a new slice. fn runs without the index's lock held, so a slow
// search never holds up a write.
func (ix *Index) Texts(prefix string, fn func(rel string, content []byte) bool) (ok bool) {
	if !ix.Ready() {
		return false
	}
	dir := strings.TrimSuffix(prefix, "/")
	for _, n := range ix.textList() {
		if n.target != "" && !ix.linksTo(n.rel, n.target) {
			// A link's note from a list made before the link went or
			// changed: the caller's scope would judge it by the link's
			// path alone, or by its new target. The next list has it
			// as it is now.
			continue
		}
		if under(n.rel, dir) && !fn(n.rel, n.content) {
			break
		}
	}
	return true
}

// linksTo reports whether rel is, as of now, a link to target.
func (ix *Index) linksTo(rel, target string) bool {
	t, ok := ix.LinkTarget(rel)
	return ok && t == target
}

// textList is the notes Texts walks as of one generation of the index:
// made by the first Texts call after a change and shared by the calls
// that follow, so a grep neither copies a list of every note (4 MB at
// 100,000 notes, each time) nor holds the lock while it searches. The
// slice is never modified once made, and a note's rel and content never
// change once it is in the index (a changed note is a new *note), so a
// walk reads them without the lock, seeing the notes as they were when the
// list was made.
type textList struct {
	gen   uint64
	notes []*note
}

// textList returns the current list of notes, making it if the index
// changed since the last one was made.
func (ix *Index) textList() []*note {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if l := ix.texts.Load(); l != nil && l.gen == ix.gen {
		return l.notes
	}
	l := &textList{gen: ix.gen, notes: make([]*note, 0, len(ix.notes))}
	for _, n := range ix.notes {
		l.notes = append(l.notes, n)
	}
	ix.texts.Store(l)
	return l.notes
}

// Files calls fn with the path of every indexed file under prefix — notes,
// attachments and any other file — until fn returns false; ok is false
// while the index is still building. Like Texts, fn runs without the
// index's lock held.
func (ix *Index) Files(prefix string, fn func(rel string) bool) (ok bool) {
	if !ix.Ready() {
		return false
	}
	dir := strings.TrimSuffix(prefix, "/")
	ix.mu.RLock()
	var files []string
	if _, file := ix.files[dir]; dir != "" && ix.below[dir] == 0 {
		// No folder of files (a file, or a path that is gone): the
		// answer is dir alone, if known, without a scan of the vault.
		if file {
			files = []string{dir}
		}
	} else {
		files = make([]string, 0, len(ix.files))
		for rel := range ix.files {
			if under(rel, dir) {
				files = append(files, rel)
			}
		}
	}
	ix.mu.RUnlock()
	for _, rel := range files {
		if !fn(rel) {
			break
		}
	}
	return true
}

// under reports whether rel is dir or lies below it ("" is the root).
// It is asked of every file of the vault in turn (Files, Texts), so it
// allocates nothing: a new prefix string per file cost 100,000 small
// allocations per scan at 100,000 notes, and a rename scans twice.
func under(rel, dir string) bool {
	return dir == "" || rel == dir || (len(rel) > len(dir) && rel[len(dir)] == '/' && strings.HasPrefix(rel, dir))
}

// Stats counts what the index holds.
type Stats struct {
	Notes, Files, Links, BrokenNotes, Tags int
	// TooLarge counts the notes over the size the index reads: known by
	// name, their own links and tags left out.
	TooLarge int
	// UnreadableFrontmatter counts the notes whose frontmatter block could
	// not be read (not valid YAML, or not a mapping): their properties,
	// tags and concept fields are left out.
	UnreadableFrontmatter int
}

// Stats returns counts over the index.
func (ix *Index) Stats(ctx context.Context) (Stats, error) {
	if err := ix.Wait(ctx); err != nil {
		return Stats{}, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if scope, hides := ix.scopeOf(ctx); hides {
		var s Stats
		for rel := range ix.files {
			if scope.Visible(rel) {
				s.Files++
			}
		}
		for rel, n := range ix.notes {
			if !scope.Visible(rel) {
				continue
			}
			s.Notes++
			s.Links += len(n.doc.links)
			if n.brokenCount() > 0 {
				s.BrokenNotes++
			}
			if n.badFrontmatter {
				s.UnreadableFrontmatter++
			}
		}
		for rel, c := range ix.canvases {
			// Counted in ix.broken too, as get_broken_links lists them.
			if scope.Visible(rel) && c.brokenCount() > 0 {
				s.BrokenNotes++
			}
		}
		s.Tags = len(ix.visibleTags(scope))
		return s, nil
	}
	s := Stats{Notes: len(ix.notes), Files: len(ix.files), BrokenNotes: ix.broken, Tags: len(ix.tags)}
	for _, n := range ix.notes {
		s.Links += len(n.doc.links)
		if n.tooLarge {
			s.TooLarge++
		}
		if n.badFrontmatter {
			s.UnreadableFrontmatter++
		}
	}
	return s, nil
}

// HasFile reports whether rel is an indexed file (note or attachment).
func (ix *Index) HasFile(ctx context.Context, rel string) (bool, error) {
	if err := ix.Wait(ctx); err != nil {
		return false, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, ok := ix.files[rel]
	return ok && ix.Scope(ctx).Visible(rel), nil
}

// BacklinksByName returns the backlinks of the note a name resolves to, as
// [[name]] from the vault root would. When no file has that name, it
// returns the notes whose links to that name are unresolved: a note can be
// linked to before it exists.
func (ix *Index) BacklinksByName(ctx context.Context, name string) ([]Backlink, error) {
	if err := ix.Wait(ctx); err != nil {
		return nil, err
	}
	ix.mu.RLock()
	rel, ok := ix.names.resolve(name, "")
	if ok {
		ix.mu.RUnlock()
		return ix.Backlinks(ctx, rel)
	}
	defer ix.mu.RUnlock()
	want := key(strings.TrimSuffix(strings.TrimSpace(name), ".md"))
	scope, hides := ix.scopeOf(ctx)
	var out []Backlink
	for src := range ix.linkers[linkKey(name)].all() {
		n := ix.source(src)
		if n == nil || hides && !scope.Visible(src) {
			continue
		}
		count := 0
		for i, l := range n.doc.links {
			if n.out[i] == "" && l.target != "" && key(strings.TrimSuffix(l.target, ".md")) == want {
				count++
			}
		}
		if count > 0 {
			out = append(out, Backlink{Source: src, Links: n.doc.rawLinks(), Count: count})
		}
	}
	slices.SortFunc(out, func(a, b Backlink) int { return strings.Compare(a.Source, b.Source) })
	return out, nil
}

// concatSeq yields a's values, then b's.
func concatSeq[T any](a, b iter.Seq[T]) iter.Seq[T] {
	return func(yield func(T) bool) {
		for v := range a {
			if !yield(v) {
				return
			}
		}
		for v := range b {
			if !yield(v) {
				return
			}
		}
	}
}
