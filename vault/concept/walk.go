package concept

// Graph is a concept graph as the walks see it. Nodes are named by
// strings (the index names them by note path).
type Graph interface {
	// Neighbors returns the nodes node has an edge of relation r to,
	// inverse edges included (b is a's Narrower when a declares b
	// narrower or b declares a broader), each once and in a stable order.
	// The walks do not modify the slice.
	Neighbors(node string, r Relation) []string
}

// Step is one concept reached by a walk.
type Step struct {
	// Node is the concept reached.
	Node string
	// Via is the concept it was reached from; "" for a path's first step.
	Via string
	// Relation is what Node is to Via: Broader when Node is broader than
	// Via.
	Relation Relation
	// Depth is the number of edges from the walk's start.
	Depth int
}

// Expand walks outward from start, breadth-first, up to maxDepth edges,
// following each relation in rels on its own: the broader concepts of the
// broader ones, the narrower of the narrower, the related of the related.
// That is what SKOS means by transitive broader and narrower; a walk that
// turned from broader to narrower would call siblings descendants.
//
// Each concept is listed once, at the smallest depth any chain reaches it
// (on a tie, in the order of rels, then of Neighbors); start is never
// listed. A cycle ends a chain rather than looping, and a concept listed
// under one relation is still followed along the others, so no ancestor
// is lost because it is also related.
func Expand(g Graph, start string, rels []Relation, maxDepth int) []Step {
	type chain struct {
		r        Relation
		frontier []string
		seen     map[string]bool
	}
	var chains []*chain
	for _, r := range rels {
		dup := false
		for _, c := range chains {
			dup = dup || c.r == r
		}
		if !dup {
			chains = append(chains, &chain{r: r, frontier: []string{start}, seen: map[string]bool{start: true}})
		}
	}
	listed := map[string]bool{start: true}
	var out []Step
	for depth := 1; depth <= maxDepth; depth++ {
		for _, c := range chains {
			var next []string
			for _, node := range c.frontier {
				for _, nb := range g.Neighbors(node, c.r) {
					if c.seen[nb] {
						continue
					}
					c.seen[nb] = true
					next = append(next, nb)
					if !listed[nb] {
						listed[nb] = true
						out = append(out, Step{Node: nb, Via: node, Relation: c.r, Depth: depth})
					}
				}
			}
			c.frontier = next
		}
	}
	return out
}

// ShortestPath finds a path with the fewest edges from from to to, along
// edges of the given relations in either direction (pass every relation,
// inverses included, to use the whole graph). The path starts with from
// (Depth 0) and ends with to; it is nil when to cannot be reached. Among
// paths of equal length the first found in the order of rels and of
// Neighbors wins, so the answer is stable.
func ShortestPath(g Graph, from, to string, rels []Relation) []Step {
	if from == to {
		return []Step{{Node: from}}
	}
	type prev struct {
		node string
		r    Relation
	}
	parent := map[string]prev{from: {}}
	frontier := []string{from}
	for depth := 1; len(frontier) > 0; depth++ {
		var next []string
		for _, node := range frontier {
			for _, r := range rels {
				for _, nb := range g.Neighbors(node, r) {
					if _, ok := parent[nb]; ok {
						continue
					}
					parent[nb] = prev{node, r}
					if nb == to {
						path := make([]Step, depth+1)
						for i, n := depth, nb; i >= 0; i-- {
							p := parent[n]
							path[i] = Step{Node: n, Via: p.node, Relation: p.r, Depth: i}
							n = p.node
						}
						path[0] = Step{Node: from}
						return path
					}
					next = append(next, nb)
				}
			}
		}
		frontier = next
	}
	return nil
}
