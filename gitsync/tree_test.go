package gitsync

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
