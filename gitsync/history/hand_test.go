package history

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/internal/testutil"
)

// headless is a Source for a history whose head is never asked for.
type headless struct{}

func (headless) Head() (plumbing.Hash, error) { return plumbing.ZeroHash, nil }
func (headless) Scrub(err error) error        { return err }

// The history takes our own commits as the commit hands them; what it
// takes must be what reading the commit back gives, to the second and in
// the zone as written.
func TestHandedCommitMatchesStored(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testutil.Git(t, dir, "init", "--quiet")
	gitDir := filepath.Join(dir, ".git")
	objs := store.NewObjects(filesystem.NewStorage(store.NewPlainFS(gitDir), cache.NewObjectLRUDefault()), gitDir, store.ObjectsOptions{})
	zone := time.FixedZone("", 5*3600+30*60)
	sig := object.Signature{Name: "vaultmcp", Email: "vaultmcp@localhost", When: time.Date(2026, 3, 1, 9, 30, 15, 123456789, zone)}
	commit := func(parent, tree plumbing.Hash, content, message string) (plumbing.Hash, plumbing.Hash, *object.Commit) {
		t.Helper()
		b, err := objs.WriteBlob([]byte(content))
		if err != nil {
			t.Fatal(err)
		}
		nt, err := objs.ApplyTree(tree, map[string]store.TreeChange{"a.md": {Hash: b, Mode: filemode.Regular}})
		if err != nil {
			t.Fatal(err)
		}
		c := &object.Commit{Author: sig, Committer: sig, Message: message, TreeHash: nt}
		if !parent.IsZero() {
			c.ParentHashes = []plumbing.Hash{parent}
		}
		h, err := objs.WriteCommit(c)
		if err != nil {
			t.Fatal(err)
		}
		return h, nt, c
	}
	first, tree1, _ := commit(plumbing.ZeroHash, plumbing.ZeroHash, "a\n", "write a.md\n")
	second, tree2, c := commit(first, tree1, "a2\n", "edit a.md\n\nwith a body\n")
	d, err := objs.DiffTrees(tree1, tree2)
	if err != nil {
		t.Fatal(err)
	}
	h := New(gitDir, headless{}, nil)
	t.Cleanup(func() { h.Close() })
	h.HandCommit(second, c, d)
	h.hist.mu.Lock()
	got, err := h.hist.commit(second)
	h.hist.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	stored, err := objs.Commit(second)
	if err != nil {
		t.Fatal(err)
	}
	want := metaOf(second, stored)
	if got.hash != want.hash || got.tree != want.tree || !slices.Equal(got.parents, want.parents) ||
		got.name != want.name || got.email != want.email || got.message != want.message {
		t.Errorf("handed %+v, stored %+v", got, want)
	}
	for _, tm := range [][2]time.Time{{got.when, want.when}, {got.author, want.author}} {
		if f := time.RFC3339Nano + " MST"; tm[0].Format(f) != tm[1].Format(f) {
			t.Errorf("handed time %s, stored %s", tm[0].Format(f), tm[1].Format(f))
		}
	}
	if !got.diffed || len(got.changes) != 1 || got.changes[0].Path != "a.md" {
		t.Errorf("handed changes %+v, want a.md", got.changes)
	}
}
