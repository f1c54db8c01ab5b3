package index

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vaultmcp/vault"
)

// A relinking rename takes a linking note's text from the index only when
// the file is still the one the index read. An edit the index has not
// seen yet, even one that keeps the size, is read from disk and kept.
func TestRenameRelinksFromTheIndexOnlyWhenTheFileIsUnchanged(t *testing.T) {
	v, ix := newVault(t, map[string]string{
		"Hub.md":    "hub",
		"same.md":   "See [[Hub]]. aaaa",
		"edited.md": "See [[Hub]]. aaaa",
	})
	// Same size, new text, a different modification time; not refreshed.
	p := filepath.Join(v.Root(), "edited.md")
	writeFile(t, v.Root(), "edited.md", "See [[Hub]]. bbbb")
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if _, err := v.RenameFile(ctx, "Hub.md", "New Hub.md", func(tx *vault.Tx, from, to vault.Path) error {
		links, notes, err := ix.FollowRename(ctx, tx, from.Rel, to.Rel)
		if err == nil && (links != 2 || notes != 2) {
			err = fmt.Errorf("rewrote %d links in %d notes, want 2 in 2", links, notes)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{
		"same.md":   "See [[New Hub]]. aaaa",
		"edited.md": "See [[New Hub]]. bbbb",
	} {
		got, err := os.ReadFile(filepath.Join(v.Root(), rel))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s = %q, want %q", rel, got, want)
		}
	}
}
