package index

import (
	"fmt"
	"maps"
	"testing"
)

// TestSourceSet drives a sourceSet and a plain map through the same adds
// and removes, across the switch from slice to map, and compares them.
func TestSourceSet(t *testing.T) {
	for _, n := range []int{1, maxFewSources, maxFewSources + 1, 3 * maxFewSources} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var s sourceSet
			want := map[string]int{}
			check := func(step string) {
				t.Helper()
				got := maps.Collect(s.all())
				if len(want) == 0 && len(got) == 0 {
					return
				}
				if !maps.Equal(got, want) || s.len() != len(want) {
					t.Fatalf("%s: got %v (len %d), want %v", step, got, s.len(), want)
				}
			}
			for i := range n {
				src := fmt.Sprintf("n%d.md", i)
				for range i%3 + 1 {
					s.add(src)
					want[src]++
				}
			}
			check("after adds")
			s.compact()
			check("after compact")
			for i := 0; i < n; i += 2 {
				src := fmt.Sprintf("n%d.md", i)
				empty := s.remove(src)
				if want[src]--; want[src] == 0 {
					delete(want, src)
				}
				if empty != (len(want) == 0) {
					t.Fatalf("remove(%s) said empty=%v with %d left", src, empty, len(want))
				}
			}
			check("after removes")
			s.remove("never-added.md")
			check("after removing what was never added")
			for src, c := range maps.Clone(want) {
				for range c {
					s.remove(src)
				}
				delete(want, src)
			}
			check("after removing everything")
			if s.len() != 0 {
				t.Fatalf("len %d after removing everything", s.len())
			}
		})
	}
	var nilSet *sourceSet
	var nilBucket *bucket
	if nilSet.len() != 0 || len(maps.Collect(nilSet.all())) != 0 || len(maps.Collect(nilBucket.all())) != 0 {
		t.Fatal("a nil set is not empty")
	}
}
