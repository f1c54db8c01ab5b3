package gitsync

import (
	"crypto/sha1"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestApplyTreeMatchesModel applies random changes (adds, edits, deletes,
// files turning into folders and back) and compares the flattened result
// with a plain map of path -> blob; git fsck then checks the trees written.
func TestApplyTreeMatchesModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	o := r.obj
	names := []string{"a", "a.md", "b", "b/c", "b/c.md", "b/d/e.md", "b-x", "b.md", "c/x/y/z", "c/x0", "d"}
	blob := func(s string) plumbing.Hash {
		h, err := o.writeBlob([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	rng := rand.New(rand.NewPCG(7, 8))
	model := map[string]plumbing.Hash{}
	tree := plumbing.ZeroHash
	for round := 0; round < 300; round++ {
		changes := map[string]treeChange{}
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
				changes[p] = treeChange{del: true}
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
			changes[p] = treeChange{hash: h, mode: filemode.Regular}
			next[p] = h
		}
		nt, err := o.applyTree(tree, changes)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]plumbing.Hash{}
		if !nt.IsZero() {
			files, err := o.flatten(nt)
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
	if out, err := gitErr(dir, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
}

// A commit's trees are written as stored (level 0) zlib streams, its
// blobs compressed at zlib's fastest level; git reads both, and a gc packs
// them as any others.
func TestLooseObjectLevels(t *testing.T) {
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	// A folder of many notes: deflate would shrink its tree's names.
	for i := range 100 {
		writeFile(t, dir, fmt.Sprintf("notes/Note %03d.md", i), fmt.Sprintf("note %d\n", i))
	}
	if _, err := r.Commit(t.Context(), "add notes", []string{"notes"}); err != nil {
		t.Fatal(err)
	}
	res := record(t, r, "write", "notes/a.md", strings.Repeat("some words of prose here. ", 40))
	tree := strings.TrimSpace(git(t, dir, "rev-parse", res.Full.String()+":notes"))
	blob := strings.TrimSpace(git(t, dir, "rev-parse", res.Full.String()+":notes/a.md"))
	for _, h := range []string{tree, blob} {
		raw, err := os.ReadFile(filepath.Join(dir, ".git", "objects", h[:2], h[2:]))
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) < 3 || raw[0] != 0x78 {
			t.Fatalf("object %s: no zlib header: % x", h, raw[:min(len(raw), 3)])
		}
		stored := raw[2]&0x06 == 0 // BTYPE 00: the first block is stored
		if want := h == tree; stored != want {
			t.Errorf("object %s: stored = %v, want %v", h, stored, want)
		}
	}
	if got := git(t, dir, "cat-file", "-p", tree); !strings.Contains(got, "Note 099.md") {
		t.Errorf("git cat-file -p of the tree: %q", got)
	}
	assertClean(t, dir)
	git(t, dir, "gc", "--quiet")
	assertClean(t, dir)
}

// TestDiffTreesMatchesModel diffs random pairs of trees (files added,
// edited, deleted, turned into folders and back) and compares the result
// with the difference of the two flattened trees; the merging walk and
// the by-name pairing kept for unsorted trees must agree.
func TestDiffTreesMatchesModel(t *testing.T) {
	t.Parallel()
	r := openRepo(t, Options{Dir: t.TempDir()})
	o := r.obj
	names := []string{"a", "a.md", "a-b", "a/b", "a/b.md", "b", "b/c", "b/c.md", "b/d/e.md", "b-x", "b.md", "b0", "c/x/y/z", "c/x0", "d"}
	rng := rand.New(rand.NewPCG(11, 12))
	models := []map[string]plumbing.Hash{{}}
	trees := []plumbing.Hash{plumbing.ZeroHash}
	for round := 0; round < 120; round++ {
		model := maps.Clone(models[len(models)-1])
		p := names[rng.IntN(len(names))]
		// Drop whatever is in the way (a folder where a file goes, a file
		// where a folder goes), then maybe write p.
		changes := map[string]treeChange{}
		for q := range model {
			if q == p || strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
				delete(model, q)
				changes[q] = treeChange{del: true}
			}
		}
		if rng.IntN(4) != 0 {
			h, err := o.writeBlob(fmt.Appendf(nil, "%s %d", p, round))
			if err != nil {
				t.Fatal(err)
			}
			model[p] = h
			changes[p] = treeChange{hash: h, mode: filemode.Regular}
		}
		// Apply the deletions first, then the new file: a change set has
		// no order of its own.
		tree := trees[len(trees)-1]
		var err error
		for q, c := range changes {
			if c.del {
				if tree, err = o.applyTree(tree, map[string]treeChange{q: c}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if c, ok := changes[p]; ok && !c.del {
			if tree, err = o.applyTree(tree, map[string]treeChange{p: c}); err != nil {
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
		got, err := o.diffTrees(orEmpty(trees[i]), orEmpty(trees[j]))
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
		ea, err := o.tree(orEmpty(trees[i]))
		if err != nil {
			t.Fatal(err)
		}
		eb, err := o.tree(orEmpty(trees[j]))
		if err != nil {
			t.Fatal(err)
		}
		var byName []fileDiff
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
		{"history", historyTreeCacheEntries, historyTreeCacheEntries},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := &objects{trees: map[plumbing.Hash][]object.TreeEntry{}, maxCached: tc.maxCached}
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
	if h := newHistory(nil, t.TempDir()); h.obj.maxCached != historyTreeCacheEntries {
		t.Errorf("the history's tree cache is bounded by %d entries, want %d", h.obj.maxCached, historyTreeCacheEntries)
	}
}

// TestApplyTreeForgetsTheOldVersion: a commit's new trees stay cached, the
// versions they replace leave the cache (they would push current folders
// out), and a pinned commit still has both for its diff.
func TestApplyTreeForgetsTheOldVersion(t *testing.T) {
	t.Parallel()
	r := openRepo(t, Options{Dir: t.TempDir()})
	o := r.obj
	blob := func(s string) plumbing.Hash {
		h, err := o.writeBlob([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	t1, err := o.applyTree(plumbing.ZeroHash, map[string]treeChange{"a/b.md": {hash: blob("1"), mode: filemode.Regular}, "c.md": {hash: blob("c"), mode: filemode.Regular}})
	if err != nil {
		t.Fatal(err)
	}
	sub1, _, err := o.child(t1, "a")
	if err != nil {
		t.Fatal(err)
	}
	// As a commit does: pinned from before its trees are read (from the
	// cache) until its diff is taken.
	o.pinTrees()
	t2, err := o.applyTree(t1, map[string]treeChange{"a/b.md": {hash: blob("2"), mode: filemode.Regular}})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := o.diffTrees(t1, t2); err != nil || len(d) != 1 || d[0].Path != "a/b.md" {
		t.Fatalf("pinned diff: %v, %v", d, err)
	}
	o.unpinTrees()
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
	if d, err := o.diffTrees(t1, t2); err != nil || len(d) != 1 {
		t.Fatalf("diff after unpinning: %v, %v", d, err)
	}
}
