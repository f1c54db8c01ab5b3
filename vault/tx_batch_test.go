package vault

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// WriteFiles writes every file of a batch, keeping each one's mode,
// creating new files and their folders, and records them as one change;
// nothing temporary is left beside them.
func TestWriteFilesBatch(t *testing.T) {
	v, root := newTestVault(t, Options{})
	var want []string
	for i := range 40 {
		rel := fmt.Sprintf("notes/n%02d.md", i)
		mkfile(t, root, rel, "old")
		want = append(want, rel)
	}
	if err := os.Chmod(filepath.Join(root, "notes/n07.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	want = append(want, "new/deep/fresh.md")
	var recorded []string
	var infos []fs.FileInfo
	v.SetRecorder(recorderFunc(func(_ string, paths []string) (string, error) {
		recorded = paths
		return "c0ffee", nil
	}))
	commit, err := v.Update(t.Context(), func(tx *Tx) error {
		var batch []FileWrite
		for _, rel := range want {
			p, err := v.Resolve(rel)
			if err != nil {
				return err
			}
			batch = append(batch, FileWrite{Path: p, Data: []byte("new " + rel)})
		}
		var werr error
		infos, werr = tx.WriteFiles(batch)
		return werr
	})
	if err != nil || commit != "c0ffee" {
		t.Fatalf("Update = %q, %v", commit, err)
	}
	for i, rel := range want {
		if got := readRel(t, root, rel); got != "new "+rel {
			t.Errorf("%s = %q", rel, got)
		}
		// What WriteFiles reports is the file in place: the index trusts
		// its copy of the text while the file still matches.
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		if got := infos[i]; !os.SameFile(got, fi) || got.Size() != fi.Size() || !got.ModTime().Equal(fi.ModTime()) {
			t.Errorf("WriteFiles reported %s as %d bytes at %v, not the file in place (%d bytes at %v)", rel, got.Size(), got.ModTime(), fi.Size(), fi.ModTime())
		}
	}
	if fi, _ := os.Stat(filepath.Join(root, "notes/n07.md")); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode of n07 = %v, want 0600 kept", fi.Mode().Perm())
	}
	slices.Sort(recorded)
	slices.Sort(want)
	if !slices.Equal(recorded, want) {
		t.Errorf("recorded %v, want %v", recorded, want)
	}
	for _, dir := range []string{"notes", "new/deep"} {
		entries, _ := os.ReadDir(filepath.Join(root, dir))
		for _, e := range entries {
			if IsTemp(e.Name()) {
				t.Errorf("left behind: %s/%s", dir, e.Name())
			}
		}
	}
}

// A batch that names one file twice (in any case) is refused before
// anything is written: the names of new files are checked before any of
// them exists.
func TestWriteFilesRefusesAFileTwice(t *testing.T) {
	v, root := newTestVault(t, Options{})
	before := snapshot(t, root)
	_, err := v.Update(context.Background(), func(tx *Tx) error {
		a, _ := v.Resolve("Note.md")
		b, _ := v.Resolve("note.md")
		return discardInfos(tx.WriteFiles([]FileWrite{{Path: a, Data: []byte("a")}, {Path: b, Data: []byte("b")}}))
	})
	checkClientError(t, err, ErrInvalidInput, "note.md", root)
	sameSnapshot(t, before, snapshot(t, root))
}

// discardInfos keeps WriteFiles' error for an Update callback.
func discardInfos(_ []fs.FileInfo, err error) error { return err }
