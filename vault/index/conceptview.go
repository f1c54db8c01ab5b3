package index

import (
	"cmp"
	"slices"
	"strings"

	"vaultmcp/internal/editdist"
	"vaultmcp/vault/access"
	"vaultmcp/vault/concept"
	"vaultmcp/vault/markdown"
)

// ConceptView reads the concept graph inside Index.Concepts. It is valid
// only until the function it was given to returns.
type ConceptView struct {
	ix    *Index
	g     *conceptGraph
	scope *access.Scope // the request's; hides is whether it hides anything
	hides bool
}

// visible reports whether the request may see the concept note rel.
func (v *ConceptView) visible(rel string) bool { return !v.hides || v.scope.Visible(rel) }

// visibleOnly narrows rels to the visible ones; rels itself when nothing
// is hidden (shared: not to be modified).
func (v *ConceptView) visibleOnly(rels []string) []string {
	if !v.hides {
		return rels
	}
	out := make([]string, 0, len(rels))
	for _, rel := range rels {
		if v.scope.Visible(rel) {
			out = append(out, rel)
		}
	}
	return out
}

// The view is what the walks of package concept run on.
var _ concept.Graph = (*ConceptView)(nil)

// ConceptNote is one concept note. The embedded Concept is shared and
// read-only.
type ConceptNote struct {
	// Path is the note's vault-relative path, which names the concept
	// uniquely (two notes may share an id).
	Path string
	// ID is the concept's id (concept.ID of the path).
	ID string
	*concept.Concept
}

// UnresolvedRef is a relation target that names no concept.
type UnresolvedRef struct {
	Relation concept.Relation
	Raw      string // as written
}

// ConceptMatch is one concept found by Search.
type ConceptMatch struct {
	Path string
	Rank concept.Rank
}

// ConceptStats counts the concept graph.
type ConceptStats struct {
	// Concepts is the number of concept notes.
	Concepts int
	// Relations counts distinct edges: a broader edge and its inverse
	// narrower edge once, a related pair once, a prerequisite once.
	Relations int
	// Broader, Related and Prerequisite split Relations by kind (Broader
	// counts the broader/narrower pairs).
	Broader, Related, Prerequisite int
	// Unresolved counts relation targets that name no concept.
	Unresolved int
	// AmbiguousIDs counts ids that more than one note has.
	AmbiguousIDs int
	// UnreadableFrontmatter counts the notes whose frontmatter could not
	// be read (not valid YAML, or not a mapping): a concept written there
	// is not in the graph.
	UnreadableFrontmatter int
}

// Count is the number of concept notes.
func (v *ConceptView) Count() int {
	if !v.hides {
		return len(v.g.nodes)
	}
	n := 0
	for rel := range v.g.nodes {
		if v.visible(rel) {
			n++
		}
	}
	return n
}

// Note returns the concept note at rel.
func (v *ConceptView) Note(rel string) (ConceptNote, bool) {
	n := v.g.nodes[rel]
	if n == nil || !v.visible(rel) {
		return ConceptNote{}, false
	}
	return ConceptNote{Path: n.rel, ID: n.id, Concept: n.c}, true
}

// Neighbors returns the concepts rel has an edge of relation r to,
// inverse edges included, each once: the ones the note declares in the
// order written, then the others by id. The slice must not be modified.
func (v *ConceptView) Neighbors(rel string, r concept.Relation) []string {
	if n := v.g.nodes[rel]; n != nil && r < concept.NumRelations && v.visible(rel) {
		return v.visibleOnly(n.adj[r])
	}
	return nil
}

// Unresolved returns the relation targets of rel that name no concept, in
// the order written.
func (v *ConceptView) Unresolved(rel string) []UnresolvedRef {
	n := v.g.nodes[rel]
	if n == nil || n.unresolved == 0 || !v.visible(rel) {
		return nil
	}
	var out []UnresolvedRef
	for _, r := range concept.Declared {
		for i, t := range n.out[r] {
			if t == "" {
				out = append(out, UnresolvedRef{Relation: r, Raw: n.c.Relations[r][i].Raw})
			}
		}
	}
	return out
}

// Content returns the note's text after its frontmatter. The slice is
// shared: it must not be modified (the index replaces it, never changes
// it, when the note changes).
func (v *ConceptView) Content(rel string) []byte {
	n, note := v.g.nodes[rel], v.ix.notes[rel]
	if n == nil || note == nil || n.body > len(note.content) || !v.visible(rel) {
		return nil
	}
	return note.content[n.body:]
}

// Lookup finds the concepts a client's name for one designates, trying in
// turn: the id; the prefLabel and then an altLabel (ignoring case); the
// note a [[wikilink]] or vault path to it opens; the id the name would
// have as a file name ("Supervised Learning" -> supervised_learning). It
// stops at the first step that finds any: more than one result means the
// name is ambiguous at that step, none that nothing matches. A name
// written as a [[wikilink]] is looked up as a link first.
func (v *ConceptView) Lookup(name string) []string {
	return v.visibleOnly(v.lookup(name))
}

func (v *ConceptView) lookup(name string) []string {
	name = strings.TrimSpace(name)
	t := name
	if strings.HasPrefix(name, "[[") || strings.HasPrefix(name, "![[") {
		if ref, ok := concept.ParseRef(name); ok {
			t = ref.Target
			if rel := v.linked(t); rel != "" {
				return []string{rel}
			}
		}
	}
	if t == "" {
		return nil
	}
	f := concept.Fold(t)
	for _, m := range []map[string][]string{v.g.byID, v.g.byLabel, v.g.byAlt} {
		if rels := m[f]; len(rels) > 0 {
			return slices.Clone(rels)
		}
	}
	if rel := v.linked(t); rel != "" {
		return []string{rel}
	}
	if rels := v.g.byID[concept.ID(t)]; len(rels) > 0 {
		return slices.Clone(rels)
	}
	return nil
}

// UnreadableNamed explains a lookup that found nothing when the note the
// name designates (by link, path or id form) has a frontmatter block that
// could not be read, so it is no concept at all: it returns that note and
// why (a *markdown.SyntaxError for invalid YAML). why is nil when there is
// no such note in sight. It parses the note again: the index keeps only
// the fact, and this runs only on a failed lookup.
func (v *ConceptView) UnreadableNamed(name string) (rel string, why error) {
	t := lookupName(name)
	if t == "" {
		return "", nil
	}
	linked, _ := v.ix.names.resolve(t, "")
	id := concept.IDOf(t)
	for r, n := range v.ix.notes {
		if !n.badFrontmatter || !v.visible(r) || (r != linked && concept.ID(r) != id) {
			continue
		}
		if rel == "" || r < rel { // the same answer whatever the map's order
			rel = r
		}
	}
	if rel == "" {
		return "", nil
	}
	if why = markdown.Parse(v.ix.notes[rel].content).FrontmatterErr; why == nil {
		return "", nil
	}
	return rel, why
}

// NoteNamed explains a lookup that found nothing when the name opens a
// note all the same (as a link from the vault root would) that is no
// concept because its frontmatter has no prefLabel: it returns that note,
// or "".
func (v *ConceptView) NoteNamed(name string) string {
	t := lookupName(name)
	if t == "" {
		return ""
	}
	if rel, ok := v.ix.names.resolve(t, ""); ok && v.g.nodes[rel] == nil && v.visible(rel) {
		return rel
	}
	return ""
}

// lookupName is the name a failed lookup's explanations look for: a
// [[wikilink]]'s target, else the name as given, trimmed.
func lookupName(name string) string {
	t := strings.TrimSpace(name)
	if ref, isRef := concept.ParseRef(t); isRef && (strings.HasPrefix(t, "[[") || strings.HasPrefix(t, "![[")) {
		return ref.Target
	}
	return t
}

// linked is the concept note a link to target from the vault root opens,
// or "".
func (v *ConceptView) linked(target string) string {
	if rel, ok := v.ix.names.resolve(target, ""); ok && v.g.nodes[rel] != nil && v.visible(rel) {
		return rel
	}
	return ""
}

// Search returns every concept matching q, best first: by rank, then by
// label, then by id and path.
func (v *ConceptView) Search(q concept.Query) []ConceptMatch {
	type hit struct {
		n *cnode
		r concept.Rank
	}
	var hits []hit
	for _, n := range v.g.nodes {
		if !v.visible(n.rel) {
			continue
		}
		if r, ok := q.Match(n.c, n.id); ok {
			hits = append(hits, hit{n, r})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(a.r, b.r), strings.Compare(a.n.c.Label(), b.n.c.Label()),
			strings.Compare(a.n.id, b.n.id), strings.Compare(a.n.rel, b.n.rel))
	})
	out := make([]ConceptMatch, len(hits))
	for i, h := range hits {
		out[i] = ConceptMatch{Path: h.n.rel, Rank: h.r}
	}
	return out
}

// Suggest returns up to n concepts whose names come closest to name, for
// a lookup that found nothing: first those Search finds, then those whose
// id or label is a few edits away.
func (v *ConceptView) Suggest(name string, n int) []string {
	var out []string
	for _, m := range v.Search(concept.NewQuery(name)) {
		if len(out) == n {
			return out
		}
		out = append(out, m.Path)
	}
	f := concept.Fold(strings.TrimSpace(name))
	limit := max(2, len([]rune(f))/3)
	type near struct {
		rel  string
		id   string
		dist int
	}
	var cands []near
	for rel, c := range v.g.nodes {
		if slices.Contains(out, rel) || !v.visible(rel) {
			continue
		}
		d := min(editdist.Within(f, c.id, limit), editdist.Within(f, c.c.Label(), limit))
		if d <= limit {
			cands = append(cands, near{rel, c.id, d})
		}
	}
	slices.SortFunc(cands, func(a, b near) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), strings.Compare(a.id, b.id), strings.Compare(a.rel, b.rel))
	})
	for _, c := range cands {
		if len(out) == n {
			break
		}
		out = append(out, c.rel)
	}
	return out
}

// Stats counts the concept graph.
func (v *ConceptView) Stats() ConceptStats {
	if v.hides {
		return v.visibleStats()
	}
	s := ConceptStats{Concepts: len(v.g.nodes), Unresolved: v.g.unresolved, UnreadableFrontmatter: v.ix.badFM}
	for _, n := range v.g.nodes {
		s.Broader += len(n.adj[concept.Broader])
		s.Related += len(n.adj[concept.Related])
		s.Prerequisite += len(n.adj[concept.Prerequisite])
	}
	s.Related /= 2 // each pair is seen from both ends
	s.Relations = s.Broader + s.Related + s.Prerequisite
	for _, rels := range v.g.byID {
		if len(rels) > 1 {
			s.AmbiguousIDs++
		}
	}
	return s
}

// visibleStats is Stats over the concepts the request may see, and the
// edges between them.
func (v *ConceptView) visibleStats() ConceptStats {
	var s ConceptStats
	for rel, n := range v.g.nodes {
		if !v.visible(rel) {
			continue
		}
		s.Concepts++
		s.Unresolved += n.unresolved
		s.Broader += len(v.visibleOnly(n.adj[concept.Broader]))
		s.Related += len(v.visibleOnly(n.adj[concept.Related]))
		s.Prerequisite += len(v.visibleOnly(n.adj[concept.Prerequisite]))
	}
	s.Related /= 2
	s.Relations = s.Broader + s.Related + s.Prerequisite
	for _, rels := range v.g.byID {
		if len(v.visibleOnly(rels)) > 1 {
			s.AmbiguousIDs++
		}
	}
	if v.ix.badFM > 0 {
		for rel, n := range v.ix.notes {
			if n.badFrontmatter && v.visible(rel) {
				s.UnreadableFrontmatter++
			}
		}
	}
	return s
}
