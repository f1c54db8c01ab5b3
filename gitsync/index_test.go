package gitsync

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// naiveApply is the obvious version of indexUpdate.apply.
func naiveApply(u *indexUpdate, old *index.Index) []string {
	var out []string
	for _, e := range old.Entries {
		if _, ok := u.set[e.Name]; ok || u.removed(e.Name) {
			continue
		}
		out = append(out, e.Name)
	}
	for name := range u.set {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func TestIndexUpdateApply(t *testing.T) {
	t.Parallel()
	names := []string{"a", "a.md", "b", "b/c", "b/d/e", "b/d0", "b0", "b.md", "c/x", "d"}
	rng := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 2000; round++ {
		old := &index.Index{Version: 2}
		for _, n := range names {
			if rng.IntN(2) == 0 {
				old.Entries = append(old.Entries, &index.Entry{Name: n})
			}
		}
		sortEntries(old.Entries)
		u := newIndexUpdate()
		for i := rng.IntN(4); i > 0; i-- {
			n := names[rng.IntN(len(names))]
			if rng.IntN(2) == 0 {
				u.set[n] = &index.Entry{Name: n}
			} else {
				u.remove[n] = true
			}
		}
		for n := range u.set {
			delete(u.remove, n)
			for r := range u.remove {
				if strings.HasPrefix(n, r+"/") {
					delete(u.remove, r)
				}
			}
		}
		var got []string
		for _, e := range u.apply(old).Entries {
			got = append(got, e.Name)
		}
		if want := naiveApply(u, old); !slices.Equal(got, want) {
			t.Fatalf("apply(set %v, remove %v) on %v = %v, want %v", keys(u.set), u.remove, names, got, want)
		}
	}
}

func keys(m map[string]*index.Entry) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
