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
	}
	var chains []*chain
	for _, r := range rels {
		dup := false
		for _, c := range chains {
			dup = dup || c.r == r
		}
		if !dup {
			chains = append(chains, &chain{r: r, frontier: []string{start}})
		}
	}
	// One map for every chain's visits and the listing: bit r is set once
	// the chain along r has reached the node, bit listed once it is
	// listed. A map per chain made a walk allocate several times what it
	// returns, and a tool call's allocations are what brings the next
	// collection of a large index nearer.
	const listed = 1 << NumRelations
	marks := map[string]uint16{start: listed}
	for _, c := range chains {
		marks[start] |= 1 << c.r
	}
	var out []Step
	for depth := 1; depth <= maxDepth; depth++ {
		for _, c := range chains {
			var next []string
			bit := uint16(1) << c.r
			for _, node := range c.frontier {
				for _, nb := range g.Neighbors(node, c.r) {
					m := marks[nb]
					if m&bit != 0 {
						continue
					}
					next = append(next, nb)
					if m&listed == 0 {
						out = append(out, Step{Node: nb, Via: node, Relation: c.r, Depth: depth})
					}
					marks[nb] = m | bit | listed
				}
			}
			c.frontier = next
		}
	}
	return out
}

// ShortestPath finds a path with the fewest edges from from to to, along
// edges of the given relations. rels must hold the inverse of each of its
// relations, and g must be symmetric (b is a's r exactly when a is b's
// r.Inverse()), as the index's graph is: the search then runs from both
// ends at once, a level at a time from the smaller frontier, and meets
// in the middle, visiting far fewer concepts than a search from one end.
// The path starts with from (Depth 0) and ends with to; it is nil when to
// cannot be reached. Ties between paths of equal length go the same way
// every time.
func ShortestPath(g Graph, from, to string, rels []Relation) []Step {
	if from == to {
		return []Step{{Node: from}}
	}
	// Each side maps a node to the node it was reached from and how; the
	// backward side records the edge as seen going forward.
	type link struct {
		node string
		r    Relation
	}
	fwd, bwd := map[string]link{from: {}}, map[string]link{to: {}}
	ff, bf := []string{from}, []string{to}
	for len(ff) > 0 && len(bf) > 0 {
		forward := len(ff) <= len(bf)
		frontier, seen, other := ff, fwd, bwd
		if !forward {
			frontier, seen, other = bf, bwd, fwd
		}
		var next []string
		for _, node := range frontier {
			for _, r := range rels {
				for _, nb := range g.Neighbors(node, r) {
					if _, ok := seen[nb]; ok {
						continue
					}
					if forward {
						seen[nb] = link{node, r} // nb is node's r
					} else {
						seen[nb] = link{node, r.Inverse()} // node is nb's r.Inverse()
					}
					if _, ok := other[nb]; ok {
						return joinPath(nb, func(n string) (string, Relation) { l := fwd[n]; return l.node, l.r },
							func(n string) (string, Relation) { l := bwd[n]; return l.node, l.r }, from, to)
					}
					next = append(next, nb)
				}
			}
		}
		if forward {
			ff = next
		} else {
			bf = next
		}
	}
	return nil
}

// joinPath builds the path through meet from the two searches' links.
func joinPath(meet string, back, ahead func(string) (string, Relation), from, to string) []Step {
	var head []Step // meet back to from, reversed below
	for n := meet; n != from; {
		prev, r := back(n)
		head = append(head, Step{Node: n, Via: prev, Relation: r})
		n = prev
	}
	path := []Step{{Node: from}}
	for i := len(head) - 1; i >= 0; i-- {
		path = append(path, head[i])
	}
	for n := meet; n != to; {
		next, r := ahead(n)
		path = append(path, Step{Node: next, Via: n, Relation: r})
		n = next
	}
	for i := range path {
		path[i].Depth = i
	}
	return path
}
