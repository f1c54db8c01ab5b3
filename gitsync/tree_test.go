package gitsync

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
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
