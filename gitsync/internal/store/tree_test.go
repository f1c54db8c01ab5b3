package store

import (
	"crypto/sha1"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"vaultmcp/internal/testutil"
)

// TestApplyTreeMatchesModel applies random changes (adds, edits, deletes,
// files turning into folders and back) and compares the flattened result
// with a plain map of path -> blob; git fsck then checks the trees written.
func TestApplyTreeMatchesModel(t *testing.T) {
	t.Parallel()
	o, dir := newTestObjects(t)
	names := []string{"a", "a.md", "b", "b/c", "b/c.md", "b/d/e.md", "b-x", "b.md", "c/x/y/z", "c/x0", "d"}
	blob := func(s string) plumbing.Hash {
		h, err := o.WriteBlob([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	rng := rand.New(rand.NewPCG(7, 8))
	model := map[string]plumbing.Hash{}
	tree := plumbing.ZeroHash
	for round := 0; round < 300; round++ {
		changes := map[string]TreeChange{}
		next := maps.Clone(model)
		for i := 1 + rng.IntN(3); i > 0; i-- {
			p := names[rng.IntN(len(names))]
			related := false // one change per path family: a change set has no order
			for q := range changes {
				if q == p || strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
					related = true
				}
			}
			if related {
				continue
			}
			if rng.IntN(3) == 0 {
				changes[p] = TreeChange{Del: true}
				for q := range next {
					if q == p || strings.HasPrefix(q, p+"/") {
						delete(next, q)
					}
				}
				continue
			}
			// A file may not sit where a folder is, nor under a file.
			clash := false
			for q := range next {
				if strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
					clash = true
				}
			}
			if clash {
				continue
			}
			h := blob(fmt.Sprintf("%s v%d", p, round))
			changes[p] = TreeChange{Hash: h, Mode: filemode.Regular}
			next[p] = h
		}
		nt, err := o.ApplyTree(tree, changes)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]plumbing.Hash{}
		if !nt.IsZero() {
			files, err := o.Flatten(nt)
			if err != nil {
				t.Fatal(err)
			}
			for p, f := range files {
				got[p] = f.Hash
			}
		}
		if !maps.Equal(got, next) {
			t.Fatalf("round %d: changes %v\ngot  %v\nwant %v", round, changes, got, next)
		}
		model, tree = next, nt
	}
	if out, err := testutil.GitErr(dir, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
}

// TestDiffTreesMatchesModel diffs random pairs of trees (files added,
// edited, deleted, turned into folders and back) and compares the result
// with the difference of the two flattened trees; the merging walk and
// the by-name pairing kept for unsorted trees must agree.
func TestDiffTreesMatchesModel(t *testing.T) {
	t.Parallel()
	o, _ := newTestObjects(t)
	names := []string{"a", "a.md", "a-b", "a/b", "a/b.md", "b", "b/c", "b/c.md", "b/d/e.md", "b-x", "b.md", "b0", "c/x/y/z", "c/x0", "d"}
	rng := rand.New(rand.NewPCG(11, 12))
	models := []map[string]plumbing.Hash{{}}
	trees := []plumbing.Hash{plumbing.ZeroHash}
	for round := 0; round < 120; round++ {
		model := maps.Clone(models[len(models)-1])
		p := names[rng.IntN(len(names))]
		// Drop whatever is in the way (a folder where a file goes, a file
		// where a folder goes), then maybe write p.
		changes := map[string]TreeChange{}
		for q := range model {
			if q == p || strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
				delete(model, q)
				changes[q] = TreeChange{Del: true}
			}
		}
		if rng.IntN(4) != 0 {
			h, err := o.WriteBlob(fmt.Appendf(nil, "%s %d", p, round))
			if err != nil {
				t.Fatal(err)
			}
			model[p] = h
			changes[p] = TreeChange{Hash: h, Mode: filemode.Regular}
		}
		// Apply the deletions first, then the new file: a change set has
		// no order of its own.
		tree := trees[len(trees)-1]
		var err error
		for q, c := range changes {
			if c.Del {
				if tree, err = o.ApplyTree(tree, map[string]TreeChange{q: c}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if c, ok := changes[p]; ok && !c.Del {
			if tree, err = o.ApplyTree(tree, map[string]TreeChange{p: c}); err != nil {
				t.Fatal(err)
			}
		}
		models, trees = append(models, model), append(trees, tree)
	}
	for range 400 {
		i, j := rng.IntN(len(trees)), rng.IntN(len(trees))
		want := map[string][2]plumbing.Hash{}
		for p, h := range models[i] {
			if models[j][p] != h {
				want[p] = [2]plumbing.Hash{h, models[j][p]}
			}
		}
		for p, h := range models[j] {
			if _, ok := models[i][p]; !ok {
				want[p] = [2]plumbing.Hash{{}, h}
			}
		}
		got, err := o.DiffTrees(OrEmpty(trees[i]), OrEmpty(trees[j]))
		if err != nil {
			t.Fatal(err)
		}
		gotMap := map[string][2]plumbing.Hash{}
		for _, d := range got {
			gotMap[d.Path] = [2]plumbing.Hash{d.From.Hash, d.To.Hash}
		}
		if len(got) != len(gotMap) || !maps.Equal(gotMap, want) {
			t.Fatalf("diff of trees %d and %d:\ngot  %v\nwant %v", i, j, got, want)
		}
		ea, err := o.Tree(OrEmpty(trees[i]))
		if err != nil {
			t.Fatal(err)
		}
		eb, err := o.Tree(OrEmpty(trees[j]))
		if err != nil {
			t.Fatal(err)
		}
		var byName []FileDiff
		if err := o.diffUnsorted(ea, eb, "", &byName); err != nil {
			t.Fatal(err)
		}
		if len(byName) != len(got) {
			t.Fatalf("diff of trees %d and %d by name: %v, merged: %v", i, j, byName, got)
		}
	}
}

// TestCmpTreeOrder checks the comparison against git's order as
// treeOrderKey spells it.
func TestCmpTreeOrder(t *testing.T) {
	t.Parallel()
	entries := []object.TreeEntry{}
	for _, n := range []string{"", "a", "a-b", "a.md", "a0", "ab", "b", "é", "z", "a/"} {
		for _, m := range []filemode.FileMode{filemode.Regular, filemode.Dir} {
			entries = append(entries, object.TreeEntry{Name: n, Mode: m})
		}
	}
	for _, a := range entries {
		for _, b := range entries {
			want := strings.Compare(treeOrderKey(a), treeOrderKey(b))
			if got := cmpTreeOrder(&a, &b); got != want {
				t.Errorf("cmpTreeOrder(%q %v, %q %v) = %d, want %d", a.Name, a.Mode, b.Name, b.Mode, got, want)
			}
		}
	}
	tests := []struct {
		names  []string
		dirs   []bool
		sorted bool
	}{
		{[]string{"a", "a-b", "a"}, []bool{false, false, true}, true}, // "a" < "a-b" < "a/"
		{[]string{"a", "a"}, []bool{false, true}, true},
		{[]string{"a", "a"}, []bool{false, false}, false}, // a repeated name
		{[]string{"b", "a"}, []bool{false, false}, false},
		{[]string{"a", "a-b"}, []bool{true, false}, false}, // "a/" > "a-b"
		{nil, nil, true},
	}
	for _, tt := range tests {
		var es []object.TreeEntry
		for i, n := range tt.names {
			m := filemode.Regular
			if tt.dirs[i] {
				m = filemode.Dir
			}
			es = append(es, object.TreeEntry{Name: n, Mode: m})
		}
		if got := treeSorted(es); got != tt.sorted {
			t.Errorf("treeSorted(%v) = %v, want %v", es, got, tt.sorted)
		}
	}
}

// TestTreeCacheBound remembers and forgets trees of many sizes: the cache
// holds at most its bound of entries (the commits' default, and the
// history's smaller one), counts them right, and its eviction order stays
// short and names every cached tree.
func TestTreeCacheBound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name            string
		maxCached, want int
	}{
		{"default", 0, treeCacheEntries},
		{"smaller", 1 << 15, 1 << 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := &Objects{trees: map[plumbing.Hash][]object.TreeEntry{}, maxCached: tc.maxCached}
			rng := rand.New(rand.NewPCG(3, 4))
			var all []plumbing.Hash
			for i := range 5000 {
				h := plumbing.Hash(sha1.Sum([]byte(strconv.Itoa(i % 3000))))
				switch rng.IntN(3) {
				case 0:
					if len(all) > 0 {
						o.forget(all[rng.IntN(len(all))])
					}
				default:
					o.remember(h, make([]object.TreeEntry, 1+rng.IntN(400)))
				}
				all = append(all, h)
				n := 0
				for _, es := range o.trees {
					n += len(es)
				}
				if n != o.cached || n > tc.want {
					t.Fatalf("step %d: %d entries cached, counted %d (bound %d)", i, n, o.cached, tc.want)
				}
				if len(o.order) > 2*len(o.trees)+65 {
					t.Fatalf("step %d: order holds %d for %d trees", i, len(o.order), len(o.trees))
				}
				inOrder := map[plumbing.Hash]bool{}
				for _, h := range o.order {
					inOrder[h] = true
				}
				for h := range o.trees {
					if !inOrder[h] {
						t.Fatalf("step %d: tree %s cached but not in the eviction order", i, h)
					}
				}
			}
		})
	}
}

// TestApplyTreeForgetsTheOldVersion: a commit's new trees stay cached, the
// versions they replace leave the cache (they would push current folders
// out), and a pinned commit still has both for its diff.
func TestApplyTreeForgetsTheOldVersion(t *testing.T) {
	t.Parallel()
	o, _ := newTestObjects(t)
	blob := func(s string) plumbing.Hash {
		h, err := o.WriteBlob([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	t1, err := o.ApplyTree(plumbing.ZeroHash, map[string]TreeChange{"a/b.md": {Hash: blob("1"), Mode: filemode.Regular}, "c.md": {Hash: blob("c"), Mode: filemode.Regular}})
	if err != nil {
		t.Fatal(err)
	}
	sub1, _, err := o.child(t1, "a")
	if err != nil {
		t.Fatal(err)
	}
	// As a commit does: pinned from before its trees are read (from the
	// cache) until its diff is taken.
	o.PinTrees()
	t2, err := o.ApplyTree(t1, map[string]TreeChange{"a/b.md": {Hash: blob("2"), Mode: filemode.Regular}})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := o.DiffTrees(t1, t2); err != nil || len(d) != 1 || d[0].Path != "a/b.md" {
		t.Fatalf("pinned diff: %v, %v", d, err)
	}
	o.UnpinTrees()
	// The diff found the old trees pinned, not on disk: they stay out.
	sub2, _, err := o.child(t2, "a")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		h      plumbing.Hash
		cached bool
	}{{t1, false}, {sub1.Hash, false}, {t2, true}, {sub2.Hash, true}} {
		if _, ok := o.trees[c.h]; ok != c.cached {
			t.Errorf("tree %s cached: %v, want %v", c.h, ok, c.cached)
		}
	}
	// A forgotten tree is read back from disk when asked for.
	if d, err := o.DiffTrees(t1, t2); err != nil || len(d) != 1 {
		t.Fatalf("diff after unpinning: %v, %v", d, err)
	}
}
