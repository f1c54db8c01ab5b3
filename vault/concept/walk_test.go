package concept_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"vaultmcp/vault/concept"
)

// graph is a test graph built from declared edges, with inverses added the
// way the index adds them.
type graph map[string]*[concept.NumRelations][]string

func (g graph) add(a string, r concept.Relation, b string) {
	for _, n := range []string{a, b} {
		if g[n] == nil {
			g[n] = &[concept.NumRelations][]string{}
		}
	}
	g[a][r] = append(g[a][r], b)
	g[b][r.Inverse()] = append(g[b][r.Inverse()], a)
}

func (g graph) Neighbors(node string, r concept.Relation) []string {
	if g[node] == nil {
		return nil
	}
	return g[node][r]
}

// mlGraph is the hierarchy of the tools' example answers.
func mlGraph() graph {
	g := graph{}
	g.add("regression", concept.Broader, "supervised_learning")
	g.add("supervised_learning", concept.Broader, "machine_learning")
	g.add("machine_learning", concept.Broader, "artificial_intelligence")
	g.add("classification", concept.Broader, "supervised_learning")
	g.add("regression", concept.Narrower, "linear_regression")
	g.add("regression", concept.Narrower, "logistic_regression")
	g.add("linear_regression", concept.Narrower, "ridge_regression")
	g.add("regression", concept.Related, "correlation")
	g.add("correlation", concept.Related, "covariance")
	g.add("linear_regression", concept.Prerequisite, "linear_algebra")
	return g
}

func steps(s []concept.Step) []string {
	out := make([]string, len(s))
	for i, st := range s {
		out[i] = fmt.Sprintf("%d %s %s<-%s", st.Depth, st.Relation, st.Node, st.Via)
	}
	return out
}

func TestExpand(t *testing.T) {
	g := mlGraph()
	tests := []struct {
		name  string
		rels  []concept.Relation
		depth int
		want  []string
	}{
		{"depth 1", concept.Hierarchy, 1, []string{
			"1 broader supervised_learning<-regression",
			"1 narrower linear_regression<-regression",
			"1 narrower logistic_regression<-regression",
			"1 related correlation<-regression",
		}},
		// Siblings (classification) are not descendants: each chain keeps
		// its relation.
		{"depth 2", concept.Hierarchy, 2, []string{
			"1 broader supervised_learning<-regression",
			"1 narrower linear_regression<-regression",
			"1 narrower logistic_regression<-regression",
			"1 related correlation<-regression",
			"2 broader machine_learning<-supervised_learning",
			"2 narrower ridge_regression<-linear_regression",
			"2 related covariance<-correlation",
		}},
		{"depth 3, broader only", []concept.Relation{concept.Broader}, 3, []string{
			"1 broader supervised_learning<-regression",
			"2 broader machine_learning<-supervised_learning",
			"3 broader artificial_intelligence<-machine_learning",
		}},
		{"duplicate relations count once", []concept.Relation{concept.Related, concept.Related}, 3, []string{
			"1 related correlation<-regression",
			"2 related covariance<-correlation",
		}},
		{"no relations", nil, 3, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := steps(concept.Expand(g, "regression", tc.rels, tc.depth))
			if !reflect.DeepEqual(got, tc.want) && len(got)+len(tc.want) > 0 {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// A concept reached along two chains is listed once, at the smaller depth,
// and still followed along the other chain.
func TestExpandListsOnceFollowsAll(t *testing.T) {
	g := graph{}
	g.add("a", concept.Related, "p")   // p is related to a (depth 1)
	g.add("a", concept.Broader, "b")   // b is broader (depth 1)
	g.add("b", concept.Broader, "p")   // p is also an ancestor (depth 2)
	g.add("p", concept.Broader, "top") // top is an ancestor only through p
	g.add("a", concept.Related, "a")   // a self-loop
	got := steps(concept.Expand(g, "a", concept.Hierarchy, 3))
	want := []string{
		"1 broader b<-a",
		"1 related p<-a",
		// p is not listed again as an ancestor, but the broader chain
		// goes on through it.
		"3 broader top<-p",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestShortestPath(t *testing.T) {
	g := mlGraph()
	all := []concept.Relation{concept.Broader, concept.Narrower, concept.Related, concept.Prerequisite, concept.PrerequisiteOf}
	tests := []struct {
		from, to string
		want     []string
	}{
		{"linear_regression", "machine_learning", []string{
			"0 broader linear_regression<-",
			"1 broader regression<-linear_regression",
			"2 broader supervised_learning<-regression",
			"3 broader machine_learning<-supervised_learning",
		}},
		{"covariance", "classification", []string{
			"0 broader covariance<-",
			"1 related correlation<-covariance",
			"2 related regression<-correlation",
			"3 broader supervised_learning<-regression",
			"4 narrower classification<-supervised_learning",
		}},
		{"linear_algebra", "ridge_regression", []string{
			"0 broader linear_algebra<-",
			"1 prerequisite_of linear_regression<-linear_algebra",
			"2 narrower ridge_regression<-linear_regression",
		}},
		{"regression", "regression", []string{"0 broader regression<-"}},
		{"regression", "blockchain", nil},
	}
	for _, tc := range tests {
		got := concept.ShortestPath(g, tc.from, tc.to, all)
		if s := steps(got); !reflect.DeepEqual(s, tc.want) && !(len(s) == 0 && tc.want == nil) {
			t.Errorf("%s -> %s:\ngot  %q\nwant %q", tc.from, tc.to, s, tc.want)
		}
	}
}

// A long chain and a dense cycle are walked without looping.
func TestWalksOnCycles(t *testing.T) {
	g := graph{}
	for i := 0; i < 1000; i++ {
		g.add(fmt.Sprint(i), concept.Broader, fmt.Sprint((i+1)%1000))
		g.add(fmt.Sprint(i), concept.Related, fmt.Sprint((i*7)%1000))
	}
	if got := concept.Expand(g, "0", concept.Hierarchy, 3); len(got) == 0 || len(got) > 1000 {
		t.Errorf("expand: %d steps", len(got))
	}
	p := concept.ShortestPath(g, "0", "500", []concept.Relation{concept.Broader, concept.Narrower, concept.Related})
	if p == nil || p[0].Node != "0" || p[len(p)-1].Node != "500" {
		t.Fatalf("path %v", steps(p))
	}
	for i := 1; i < len(p); i++ {
		if p[i].Via != p[i-1].Node {
			t.Errorf("step %d via %s, want %s", i, p[i].Via, p[i-1].Node)
		}
	}
}

// On random graphs the path is valid (each step an edge of the graph with
// the relation it names) and as short as a plain breadth-first search
// finds.
func TestShortestPathRandom(t *testing.T) {
	all := []concept.Relation{concept.Broader, concept.Narrower, concept.Related, concept.Prerequisite, concept.PrerequisiteOf}
	declared := []concept.Relation{concept.Broader, concept.Narrower, concept.Related, concept.Prerequisite}
	for seed := uint64(0); seed < 50; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		g := graph{}
		n := 5 + r.IntN(60)
		for e := 0; e < n+r.IntN(2*n); e++ {
			g.add(fmt.Sprint(r.IntN(n)), declared[r.IntN(len(declared))], fmt.Sprint(r.IntN(n)))
		}
		dist := func(from string) map[string]int {
			d := map[string]int{from: 0}
			q := []string{from}
			for len(q) > 0 {
				x := q[0]
				q = q[1:]
				for _, rel := range all {
					for _, y := range g.Neighbors(x, rel) {
						if _, ok := d[y]; !ok {
							d[y] = d[x] + 1
							q = append(q, y)
						}
					}
				}
			}
			return d
		}
		for a := 0; a < n; a += 3 {
			from := fmt.Sprint(a)
			if g[from] == nil {
				continue
			}
			d := dist(from)
			for b := 0; b < n; b++ {
				to := fmt.Sprint(b)
				if g[to] == nil {
					continue
				}
				p := concept.ShortestPath(g, from, to, all)
				want, reachable := d[to]
				if !reachable {
					if p != nil {
						t.Fatalf("seed %d: %s -> %s: path %v to an unreachable concept", seed, from, to, steps(p))
					}
					continue
				}
				if len(p)-1 != want || p[0].Node != from || p[len(p)-1].Node != to {
					t.Fatalf("seed %d: %s -> %s: %v, want %d edges", seed, from, to, steps(p), want)
				}
				for i := 1; i < len(p); i++ {
					if p[i].Via != p[i-1].Node || p[i].Depth != i || !slices.Contains(g.Neighbors(p[i].Via, p[i].Relation), p[i].Node) {
						t.Fatalf("seed %d: %s -> %s: step %d of %v is no edge", seed, from, to, i, steps(p))
					}
				}
			}
		}
	}
}

// expandReference is Expand as first written, a visited set per chain
// and one for the listing: Expand must list the same steps in the same
// order.
func expandReference(g concept.Graph, start string, rels []concept.Relation, maxDepth int) []concept.Step {
	type chain struct {
		r        concept.Relation
		frontier []string
		seen     map[string]bool
	}
	var chains []*chain
	for _, r := range rels {
		if !slices.ContainsFunc(chains, func(c *chain) bool { return c.r == r }) {
			chains = append(chains, &chain{r: r, frontier: []string{start}, seen: map[string]bool{start: true}})
		}
	}
	listed := map[string]bool{start: true}
	var out []concept.Step
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
						out = append(out, concept.Step{Node: nb, Via: node, Relation: c.r, Depth: depth})
					}
				}
			}
			c.frontier = next
		}
	}
	return out
}

// Expand lists what the reference walk lists, on random graphs with
// cycles, repeated edges and self-loops, for every depth and for sets of
// relations with repeats.
func TestExpandMatchesReference(t *testing.T) {
	declared := []concept.Relation{concept.Broader, concept.Narrower, concept.Related, concept.Prerequisite}
	for seed := uint64(0); seed < 60; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		g := graph{}
		n := 3 + r.IntN(50)
		for e := 0; e < n+r.IntN(3*n); e++ {
			g.add(fmt.Sprint(r.IntN(n)), declared[r.IntN(len(declared))], fmt.Sprint(r.IntN(n)))
		}
		var rels []concept.Relation
		for range 1 + r.IntN(6) {
			rels = append(rels, concept.Relation(r.IntN(int(concept.NumRelations))))
		}
		for depth := 1; depth <= 4; depth++ {
			start := fmt.Sprint(r.IntN(n))
			got, want := steps(concept.Expand(g, start, rels, depth)), steps(expandReference(g, start, rels, depth))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, from %s along %v, depth %d:\ngot  %v\nwant %v", seed, start, rels, depth, got, want)
			}
		}
	}
}
