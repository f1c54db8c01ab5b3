package index

import (
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"vaultmcp/vault"
)

// A refresh that finds a note's text unchanged (the watcher reporting the
// server's own write, an editor saving without a change) keeps the note
// as it is, parsing nothing: its sequence number stays, and the
// generation moves only if its time did (what reads times must see it).
// A text that changed is read even when its size and modification time
// did not.
func TestRefreshOfUnchangedTextKeepsTheNote(t *testing.T) {
	v, ix := newVault(t, map[string]string{"a.md": "See [[b]]. aaaa", "b.md": "b"})
	p := filepath.Join(v.Root(), "a.md")
	before, _, err := ix.Note(ctx, "a.md")
	if err != nil {
		t.Fatal(err)
	}
	gen := ix.Generation()

	later := before.ModTime.Add(time.Minute)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	ix.Refresh([]string{"a.md"})
	same, _, _ := ix.Note(ctx, "a.md")
	if same.Seq != before.Seq {
		t.Errorf("an unchanged text was taken in again: seq %d -> %d", before.Seq, same.Seq)
	}
	if !same.ModTime.Equal(later) {
		t.Errorf("modification time = %v, want %v brought up to date", same.ModTime, later)
	}
	if ix.Generation() == gen {
		t.Errorf("generation stayed %d although the note's time moved", gen)
	}
	gen = ix.Generation()
	ix.Refresh([]string{"a.md"}) // the same report again: nothing moved
	if again, _, _ := ix.Note(ctx, "a.md"); again.Seq != before.Seq || ix.Generation() != gen {
		t.Errorf("a second report of the unchanged note: seq %d -> %d, generation %d -> %d", before.Seq, again.Seq, gen, ix.Generation())
	}

	// Same size, same modification time, new text: still read.
	writeFile(t, v.Root(), "a.md", "See [[c]]. bbbb")
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	ix.Refresh([]string{"a.md"})
	changed, _, _ := ix.Note(ctx, "a.md")
	if changed.Seq == before.Seq || string(changed.Content) != "See [[c]]. bbbb" {
		t.Errorf("a changed text was not taken in: seq %d, content %q", changed.Seq, changed.Content)
	}
	if bl, _ := ix.Backlinks(ctx, "b.md"); len(bl) != 0 {
		t.Errorf("b.md still has backlinks %v after a.md stopped linking to it", sources(bl))
	}
}

// The notes a rename relinks are taken into the index from the texts it
// wrote, at the paths it wrote them to, while each file is still the one
// written; a file changed since is resolved and read from disk.
func TestRenameRefreshTakesTheTextsItWrote(t *testing.T) {
	v, ix := newVault(t, map[string]string{
		"Hub.md":     "hub",
		"kept.md":    "See [[Hub]].",
		"changed.md": "See [[Hub]].",
	})
	if _, err := v.RenameFile(ctx, "Hub.md", "New Hub.md", func(tx *vault.Tx, from, to vault.Path) error {
		if _, _, err := ix.FollowRename(ctx, tx, from.Rel, to.Rel); err != nil {
			return err
		}
		// An outside edit between the write and the refresh that
		// follows the commit.
		p := filepath.Join(v.Root(), "changed.md")
		if err := os.WriteFile(p, []byte("See [[New Hub]] and more."), 0o644); err != nil {
			return err
		}
		later := time.Now().Add(time.Minute)
		return os.Chtimes(p, later, later)
	}); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{
		"kept.md":    "See [[New Hub]].",
		"changed.md": "See [[New Hub]] and more.",
	} {
		m, ok, err := ix.Note(ctx, rel)
		if err != nil || !ok {
			t.Fatalf("Note(%s) = %v, %v", rel, ok, err)
		}
		if string(m.Content) != want {
			t.Errorf("index text of %s = %q, want %q", rel, m.Content, want)
		}
	}
	if bl, _ := ix.Backlinks(ctx, "New Hub.md"); len(bl) != 2 {
		t.Errorf("backlinks of New Hub.md = %v, want both notes", sources(bl))
	}
	ix.ownMu.Lock()
	left := len(ix.own)
	ix.ownMu.Unlock()
	if left != 0 {
		t.Errorf("%d written texts still kept after the refresh", left)
	}
}

// A note the change wrote (write_file, patch_note) is taken into the
// index from the bytes written, not read back, while the file is still
// the one written; a file changed again before the refresh is read from
// disk.
func TestWriteRefreshTakesTheTextWritten(t *testing.T) {
	v, ix := newVault(t, map[string]string{"a.md": "old", "b.md": "old", "Hub.md": "hub"})
	data := []byte("See [[Hub]].")
	if _, err := v.WriteFile(ctx, "a.md", data); err != nil {
		t.Fatal(err)
	}
	m, ok, err := ix.Note(ctx, "a.md")
	if err != nil || !ok {
		t.Fatalf("Note(a.md) = %v, %v", ok, err)
	}
	if string(m.Content) != "See [[Hub]]." || unsafe.SliceData(m.Content) != unsafe.SliceData(data) {
		t.Errorf("index text of a.md = %q, not the bytes written", m.Content)
	}

	if _, err := v.Update(ctx, func(tx *vault.Tx) error {
		p, err := v.Resolve("b.md")
		if err != nil {
			return err
		}
		if err := tx.WriteFile(p, []byte("See [[Hub]].")); err != nil {
			return err
		}
		// An outside edit between the write and the refresh.
		if err := os.WriteFile(p.Abs, []byte("See [[Hub]] twice."), 0o644); err != nil {
			return err
		}
		later := time.Now().Add(time.Minute)
		return os.Chtimes(p.Abs, later, later)
	}); err != nil {
		t.Fatal(err)
	}
	if m, _, _ := ix.Note(ctx, "b.md"); string(m.Content) != "See [[Hub]] twice." {
		t.Errorf("index text of b.md = %q, want the file as it is on disk", m.Content)
	}
	if bl, _ := ix.Backlinks(ctx, "Hub.md"); len(bl) != 2 {
		t.Errorf("backlinks of Hub.md = %v, want a.md and b.md", sources(bl))
	}
}
