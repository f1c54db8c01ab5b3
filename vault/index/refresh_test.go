package index

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"vaultmcp/vault"
	"vaultmcp/vault/changes"
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
	for rel, w := range ix.own {
		if !w.taken || w.content != nil {
			t.Errorf("%s: still kept after the refresh (taken %v, %d bytes)", rel, w.taken, len(w.content))
		}
	}
	ix.ownMu.Unlock()

	// The watcher's report of the same write: the file is found where
	// it was written, and its bytes are still compared, so an outside
	// edit of the same size in the same clock tick is not taken for ours.
	before, _, _ := ix.Note(ctx, "kept.md")
	ix.Refresh([]string{"kept.md"})
	if again, _, _ := ix.Note(ctx, "kept.md"); again.Seq != before.Seq {
		t.Errorf("the report of the index's own write parsed kept.md again: seq %d -> %d", before.Seq, again.Seq)
	}
	p := filepath.Join(v.Root(), "kept.md")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("See [[Old Hub]]"), 0); err != nil { // same size, in place
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	ix.Refresh([]string{"kept.md"})
	if m, _, _ := ix.Note(ctx, "kept.md"); string(m.Content) != "See [[Old Hub]]." {
		t.Errorf("an outside edit looking like the index's own write: indexed %q", m.Content)
	}
}

// The notes of a large rename are planned on every core and parsed
// beside its writing and commit; the index then holds for each exactly
// what parsing its text at its path gives, and a note changed after the
// write is parsed from disk instead.
func TestRenameParsedAheadMatchesAParseOfTheText(t *testing.T) {
	files := map[string]string{"Hub.md": "hub"}
	for i := range max(minParseAhead, minParallelPlan) + 8 {
		files[fmt.Sprintf("d%d/n%02d.md", i%3, i)] = fmt.Sprintf("# N%d\n\nSee [[Hub|the hub]] and [[Hub#Part]]. #tag%d\n", i, i%4)
	}
	files["c/Concept.md"] = "---\nprefLabel: Concept\nbroader: \"[[Hub]]\"\n---\nA concept, under [[Hub]].\n"
	v, ix := newVault(t, files)
	if _, err := v.RenameFile(ctx, "Hub.md", "h/New Hub.md", func(tx *vault.Tx, from, to vault.Path) error {
		_, notes, err := ix.FollowRename(ctx, tx, from.Rel, to.Rel)
		if err != nil {
			return err
		}
		if notes < minParseAhead {
			t.Fatalf("%d notes relinked, want at least %d", notes, minParseAhead)
		}
		p := filepath.Join(v.Root(), "d0/n00.md")
		if err := os.WriteFile(p, []byte("# changed\n\nSee [[New Hub]] and [[Other]]."), 0o644); err != nil {
			return err
		}
		later := time.Now().Add(time.Minute)
		return os.Chtimes(p, later, later)
	}); err != nil {
		t.Fatal(err)
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for rel := range files {
		if rel == "Hub.md" {
			continue
		}
		n := ix.notes[rel]
		if n == nil {
			t.Fatalf("%s not indexed", rel)
		}
		if rel != "d0/n00.md" && !bytes.Contains(n.content, []byte("[[h/New Hub")) && !bytes.Contains(n.content, []byte("[[New Hub")) {
			t.Errorf("%s not relinked: %q", rel, n.content)
		}
		want, bad := parse(rel, n.content, nil, nil)
		if !reflect.DeepEqual(n.doc, want) || n.badFrontmatter != bad {
			t.Errorf("%s: indexed document\n%+v\nwant a parse of its text\n%+v", rel, n.doc, want)
		}
	}
	if got := string(ix.notes["d0/n00.md"].content); !strings.Contains(got, "[[Other]]") {
		t.Errorf("d0/n00.md changed after the write is indexed as %q", got)
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

	// An outside edit between the write's rename into place and the
	// refresh: the recorder's Publish makes it.
	b, err := v.Resolve("b.md")
	if err != nil {
		t.Fatal(err)
	}
	v.SetRecorder(outsideEdit{t: t, abs: b.Abs, data: []byte("See [[Hub]] twice.")})
	if _, err := v.WriteFile(ctx, "b.md", []byte("See [[Hub]].")); err != nil {
		t.Fatal(err)
	}
	if m, _, _ := ix.Note(ctx, "b.md"); string(m.Content) != "See [[Hub]] twice." {
		t.Errorf("index text of b.md = %q, want the file as it is on disk", m.Content)
	}
	if bl, _ := ix.Backlinks(ctx, "Hub.md"); len(bl) != 2 {
		t.Errorf("backlinks of Hub.md = %v, want a.md and b.md", sources(bl))
	}
}

// outsideEdit is a recorder whose Publish stands for an editor saving
// data to abs after the change's file went into place, before the index
// is told of the change.
type outsideEdit struct {
	t    *testing.T
	abs  string
	data []byte
}

func (o outsideEdit) Prepare(context.Context, changes.Change) (changes.Pending, error) { return o, nil }

func (o outsideEdit) Publish() (string, error) {
	if err := os.WriteFile(o.abs, o.data, 0o644); err != nil {
		o.t.Error(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(o.abs, later, later); err != nil {
		o.t.Error(err)
	}
	return "", nil
}

func (outsideEdit) Abort() {}
