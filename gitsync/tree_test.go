package gitsync

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
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
