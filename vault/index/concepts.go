package index

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strings"

	"vaultmcp/vault/concept"
)

// conceptGraph is the index's SKOS concept graph: every note whose
// frontmatter has prefLabel, its relations resolved to other concept
// notes, and the inverse edges (a broader b makes b narrower a).
//
// Relation targets are names, so what they resolve to changes when other
// notes come, go or change their labels. Each ref records the keys its
// resolution depends on (the file name it would link to, the id and the
// label it names); a change marks the keys it touches dirty, and the next
// query settles the graph by re-resolving only the concepts waiting on
// those keys. Writes stay cheap, and a query always sees every change
// made before it. Caller holds the index's lock for everything here.
type conceptGraph struct {
	nodes   map[string]*cnode   // concept notes by rel
	byID    map[string][]string // id -> rels, nearest the root first
	byLabel map[string][]string // folded prefLabel -> rels
	byAlt   map[string][]string // folded altLabel -> rels
	in      map[string][]cedge  // rel -> declared edges pointing at it
	waiting map[string][]string // resolution key -> concepts whose refs depend on it

	dirtyKeys map[string]struct{} // keys whose meaning changed since the last settle
	dirtySrcs map[string]struct{} // concepts whose refs must be resolved again
	dirtyAdj  map[string]struct{} // concepts whose neighbour lists must be rebuilt

	unresolved int // refs that resolve to no concept
}

// cnode is one concept note.
type cnode struct {
	rel  string
	id   string
	c    *concept.Concept // shared, never modified
	body int              // where the note's body starts, after the frontmatter

	// out[r][i] is the concept c.Relations[r][i] resolves to; "" when it
	// resolves to none.
	out [concept.NumRelations][]string
	// adj[r] are the neighbours by relation, inverse edges included, each
	// once: declared targets first, in order, then the others by id.
	adj        [concept.NumRelations][]string
	unresolved int
}

// cedge is one declared edge as seen from its target.
type cedge struct {
	src string
	r   concept.Relation
}

func (g *conceptGraph) init() {
	if g.nodes != nil {
		return
	}
	g.nodes = map[string]*cnode{}
	g.byID = map[string][]string{}
	g.byLabel = map[string][]string{}
	g.byAlt = map[string][]string{}
	g.in = map[string][]cedge{}
	g.waiting = map[string][]string{}
	g.dirtyKeys = map[string]struct{}{}
	g.dirtySrcs = map[string]struct{}{}
	g.dirtyAdj = map[string]struct{}{}
}

// Resolution keys, by what a ref's target may name.
func fileKey(bucket string) string  { return "f" + bucket } // a file, by linkKey
func idKey(id string) string        { return "i" + id }     // a concept id
func labelKey(folded string) string { return "l" + folded } // a prefLabel or altLabel
// targetKeys are the keys a relation target's resolution depends on.
func targetKeys(target string) [3]string {
	return [3]string{fileKey(linkKey(target)), idKey(concept.ID(target)), labelKey(concept.Fold(target))}
}

// refKeys are the resolution keys of the note's refs, each once.
func (n *cnode) refKeys() []string {
	var keys []string
	seen := map[string]bool{}
	for _, r := range concept.Declared {
		for _, ref := range n.c.Relations[r] {
			for _, k := range targetKeys(ref.Target) {
				if !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			}
		}
	}
	return keys
}

// ownKeys are the keys whose meaning a concept note's coming or going
// changes.
func (n *cnode) ownKeys() []string {
	keys := []string{fileKey(linkKey(n.rel)), idKey(n.id), labelKey(n.c.Label())}
	for _, a := range n.c.AltLabels {
		keys = append(keys, labelKey(concept.Fold(a)))
	}
	return keys
}

// touchFile marks the file-name bucket k dirty: a file of that name came
// or went, so links by that name may resolve elsewhere.
func (g *conceptGraph) touchFile(k string) {
	if g.nodes != nil && len(g.waiting[fileKey(k)]) > 0 {
		g.dirtyKeys[fileKey(k)] = struct{}{}
	}
}

func (g *conceptGraph) dirty() bool {
	return len(g.dirtyKeys)+len(g.dirtySrcs)+len(g.dirtyAdj) > 0
}

// add records the concept note at rel, whose frontmatter says c and
// whose body starts at byte body.
func (g *conceptGraph) add(rel string, c *concept.Concept, body int) {
	g.init()
	n := &cnode{rel: rel, id: concept.ID(rel), c: c, body: body}
	for _, r := range concept.Declared {
		n.out[r] = make([]string, len(c.Relations[r]))
		n.unresolved += len(c.Relations[r])
	}
	g.unresolved += n.unresolved
	g.nodes[rel] = n
	insert(g.byID, n.id, rel)
	insert(g.byLabel, c.Label(), rel)
	for _, a := range c.AltLabels {
		insert(g.byAlt, concept.Fold(a), rel)
	}
	for _, k := range n.refKeys() {
		g.waiting[k] = append(g.waiting[k], rel)
	}
	g.dirtySrcs[rel] = struct{}{}
	g.dirtyAdj[rel] = struct{}{}
	for _, k := range n.ownKeys() {
		g.dirtyKeys[k] = struct{}{}
	}
}

// remove forgets the concept note rel, if it is one.
func (g *conceptGraph) remove(rel string) {
	n := g.nodes[rel]
	if n == nil {
		return
	}
	for _, r := range concept.Declared {
		for _, t := range n.out[r] {
			if t != "" && t != rel {
				g.removeIn(t, rel, r)
				g.dirtyAdj[t] = struct{}{}
			}
		}
	}
	g.unresolved -= n.unresolved
	delete(g.nodes, rel)
	drop(g.byID, n.id, rel)
	drop(g.byLabel, n.c.Label(), rel)
	for _, a := range n.c.AltLabels {
		drop(g.byAlt, concept.Fold(a), rel)
	}
	for _, k := range n.refKeys() {
		drop(g.waiting, k, rel)
	}
	delete(g.dirtySrcs, rel)
	delete(g.dirtyAdj, rel)
	// Concepts that pointed here resolve again; their edges into rel (in
	// g.in[rel]) go when they do, or stay if rel comes back as a concept
	// in the same change (an edit of the note).
	for _, k := range n.ownKeys() {
		g.dirtyKeys[k] = struct{}{}
	}
}

// settle brings every resolution and neighbour list up to date with the
// changes made since the last settle.
func (g *conceptGraph) settle(names *names) {
	if !g.dirty() {
		return
	}
	for k := range g.dirtyKeys {
		for _, src := range g.waiting[k] {
			g.dirtySrcs[src] = struct{}{}
		}
	}
	for src := range g.dirtySrcs {
		n := g.nodes[src]
		if n == nil {
			continue
		}
		for _, r := range concept.Declared {
			for i, ref := range n.c.Relations[r] {
				old, now := n.out[r][i], g.resolve(names, ref.Target, src)
				if old == now {
					continue
				}
				n.out[r][i] = now
				g.dirtyAdj[src] = struct{}{}
				switch {
				case old == "":
					n.unresolved--
					g.unresolved--
				case old != src:
					g.removeIn(old, src, r)
					g.dirtyAdj[old] = struct{}{}
				}
				switch {
				case now == "":
					n.unresolved++
					g.unresolved++
				case now != src:
					g.in[now] = append(g.in[now], cedge{src, r})
					g.dirtyAdj[now] = struct{}{}
				}
			}
		}
	}
	seen := map[string]bool{}
	for rel := range g.dirtyAdj {
		if n := g.nodes[rel]; n != nil {
			g.rebuildAdj(n, seen)
		}
	}
	// New maps rather than clear(): a build fills them with every
	// concept, and a cleared map keeps its size.
	g.dirtyKeys, g.dirtySrcs, g.dirtyAdj = map[string]struct{}{}, map[string]struct{}{}, map[string]struct{}{}
}

// resolve finds the concept a relation target names, from the concept
// note at from: the note a wikilink to it would open, if that is a
// concept; else the concept with that id; else with that prefLabel; else
// with that altLabel. "" when none.
func (g *conceptGraph) resolve(names *names, target, from string) string {
	if rel, ok := names.resolve(target, from); ok && g.nodes[rel] != nil {
		return rel
	}
	if rels := g.byID[concept.ID(target)]; len(rels) > 0 {
		return nearest(rels, from)
	}
	f := concept.Fold(target)
	if rels := g.byLabel[f]; len(rels) > 0 {
		return nearest(rels, from)
	}
	if rels := g.byAlt[f]; len(rels) > 0 {
		return nearest(rels, from)
	}
	return ""
}

// nearest picks among concepts sharing a name as Obsidian picks among
// files sharing one: the one in from's folder, else the one nearest the
// root.
func nearest(rels []string, from string) string {
	dir := path.Dir(from)
	for _, rel := range rels {
		if path.Dir(rel) == dir {
			return rel
		}
	}
	return rels[0]
}

func (g *conceptGraph) removeIn(target, src string, r concept.Relation) {
	edges := g.in[target]
	if i := slices.Index(edges, cedge{src, r}); i >= 0 {
		edges = slices.Delete(edges, i, i+1)
	}
	if len(edges) == 0 {
		delete(g.in, target)
	} else {
		g.in[target] = edges
	}
}

// rebuildAdj recomputes n's neighbour lists from its resolved refs and
// the edges pointing at it. seen is scratch space.
func (g *conceptGraph) rebuildAdj(n *cnode, seen map[string]bool) {
	for r := range concept.NumRelations {
		clear(seen)
		var list []string
		if r != concept.PrerequisiteOf {
			for _, t := range n.out[r] {
				if t != "" && t != n.rel && !seen[t] {
					seen[t] = true
					list = append(list, t)
				}
			}
		}
		declared := len(list)
		for _, e := range g.in[n.rel] {
			if e.r.Inverse() == r && !seen[e.src] && g.nodes[e.src] != nil {
				seen[e.src] = true
				list = append(list, e.src)
			}
		}
		slices.SortFunc(list[declared:], func(a, b string) int {
			return cmp.Or(strings.Compare(g.nodes[a].id, g.nodes[b].id), strings.Compare(a, b))
		})
		n.adj[r] = slices.Clip(list)
	}
}

// insert adds rel to the list under k, nearest the root first.
func insert(m map[string][]string, k, rel string) {
	list := m[k]
	if slices.Contains(list, rel) {
		return
	}
	list = append(list, rel)
	slices.SortFunc(list, nearerRoot)
	m[k] = list
}

// drop removes rel from the list under k.
func drop(m map[string][]string, k, rel string) {
	list := slices.DeleteFunc(m[k], func(x string) bool { return x == rel })
	if len(list) == 0 {
		delete(m, k)
	} else {
		m[k] = list
	}
}

// addConcept and removeConcept follow a note into and out of the index.
// Caller holds mu.
func (ix *Index) addConcept(n *note) {
	if n.doc.concept != nil {
		ix.concepts.add(n.rel, n.doc.concept, n.doc.body)
	}
}

func (ix *Index) removeConcept(n *note) {
	if n.doc.concept != nil {
		ix.concepts.remove(n.rel)
	}
}

// Concepts runs fn with a consistent view of the concept graph, once the
// first build is done and every change made before the call is settled.
// The view answers under ctx's access scope: concepts in notes it hides
// are not there at all (not found, not listed, not walked through, not
// counted).
// fn runs under the index's read lock: it must be quick and must not keep
// the view (what it returns from the view may be kept: concepts and
// contents are never modified in place).
func (ix *Index) Concepts(ctx context.Context, fn func(v *ConceptView) error) error {
	if err := ix.Wait(ctx); err != nil {
		return err
	}
	for {
		ix.mu.RLock()
		if !ix.concepts.dirty() {
			break
		}
		ix.mu.RUnlock()
		ix.mu.Lock()
		ix.concepts.settle(&ix.names)
		ix.mu.Unlock()
	}
	defer ix.mu.RUnlock()
	scope, hides := ix.scopeOf(ctx)
	return fn(&ConceptView{ix: ix, g: &ix.concepts, scope: scope, hides: hides})
}
