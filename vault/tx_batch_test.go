package vault

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"vaultmcp/vault/changes"
)

// WriteFiles writes every file of a batch, keeping each one's mode,
// creating new files and their folders, and records them as one change;
// nothing temporary is left beside them once the vault is closed. The
// batch is large enough to be flushed by one barrier (minBarrierBatch).
func TestWriteFilesBatch(t *testing.T) {
	v, root := newTestVault(t, Options{})
	var want []string
	for i := range minBarrierBatch + 8 {
		rel := fmt.Sprintf("notes/n%02d.md", i)
		mkfile(t, root, rel, "old")
		want = append(want, rel)
	}
	if err := os.Chmod(filepath.Join(root, "notes/n07.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Bits a usual umask (022) takes off a new file are put back.
	if err := os.Chmod(filepath.Join(root, "notes/n08.md"), 0o666); err != nil {
		t.Fatal(err)
	}
	want = append(want, "new/deep/fresh.md")
	var recorded []string
	v.SetRecorder(recorderFunc(func(_ string, paths []string) (string, error) {
		recorded = paths
		return "c0ffee", nil
	}))
	commit, infos, err := writeNew(v, want)
	if err != nil || commit != "c0ffee" {
		t.Fatalf("Update = %q, %v", commit, err)
	}
	checkWrittenNew(t, root, want, infos)
	if fi, _ := os.Stat(filepath.Join(root, "notes/n07.md")); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode of n07 = %v, want 0600 kept", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Join(root, "notes/n08.md")); fi.Mode().Perm() != 0o666 {
		t.Errorf("mode of n08 = %v, want 0666 kept", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Join(root, "new/deep/fresh.md")); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode of a new file = %v, want 0644", fi.Mode().Perm())
	}
	slices.Sort(recorded)
	slices.Sort(want)
	if !slices.Equal(recorded, want) {
		t.Errorf("recorded %v, want %v", recorded, want)
	}
	// The backups of a batch this large are removed in the background;
	// Close waits for them.
	if err := v.Close(); err != nil {
		t.Fatal(err)
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
	v.dropping.Wait() // earlier changes' backups are removed in the background
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

// writtenRecorder keeps the files a change handed it as written.
type writtenRecorder struct {
	recorderFunc
	written map[string]changes.File
}

func (w *writtenRecorder) Prepare(ctx context.Context, c changes.Change) (changes.Pending, error) {
	w.written = c.Written
	return w.recorderFunc.Prepare(ctx, c)
}

// The recorder is handed the content of the files a change wrote, with
// each file's stat data as it stands in place once the change is
// published, so it need not read them back: a batch's files and a file
// written on its own alike.
func TestBatchContentGoesToTheRecorder(t *testing.T) {
	v, root := newTestVault(t, Options{})
	batch := []string{"a.md", "sub/b.md"}
	for _, rel := range batch {
		mkfile(t, root, rel, "old")
	}
	rec := &writtenRecorder{recorderFunc: func(string, []string) (string, error) { return "c0ffee", nil }}
	v.SetRecorder(rec)
	_, err := v.Update(t.Context(), func(tx *Tx) error {
		var fw []FileWrite
		for _, rel := range batch {
			p, err := v.Resolve(rel)
			if err != nil {
				return err
			}
			fw = append(fw, FileWrite{Path: p, Data: []byte("new " + rel)})
		}
		if _, err := tx.WriteFiles(fw); err != nil {
			return err
		}
		p, err := v.Resolve("single.md")
		if err != nil {
			return err
		}
		return tx.WriteFile(p, []byte("alone"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if rec.written == nil {
		t.Fatal("the recorder was handed nothing written")
	}
	want := map[string]string{"single.md": "alone"}
	for _, rel := range batch {
		want[rel] = "new " + rel
	}
	for rel, content := range want {
		f, ok := rec.written[rel]
		data, was := f.Data, f.Info
		if !ok || string(data) != content {
			t.Errorf("written[%s] = %q, %v", rel, data, ok)
			continue
		}
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(was, fi) || was.Size() != fi.Size() || !was.ModTime().Equal(fi.ModTime()) {
			t.Errorf("known(%s) stat data is not the file in place", rel)
		}
	}
	if _, ok := rec.written["other.md"]; ok {
		t.Error("written holds a file the change did not write")
	}
}

// The observers of a change are handed what it wrote (changes.Batch): the
// bytes, where, and the file's stat data as it stands in place; a path
// the change did not write has nothing.
func TestObserversSeeWhatTheChangeWrote(t *testing.T) {
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "notes/a.md", "old")
	type seen struct {
		content, abs string
		same, ok     bool
	}
	var got []seen
	v.Observe(func(b changes.Batch) {
		for _, rel := range append(b.Paths, "other.md") {
			f, ok := b.Written[rel]
			s := seen{content: string(f.Data), abs: f.Abs, ok: ok}
			if ok {
				now, err := os.Lstat(f.Abs)
				s.same = err == nil && f.Is(now)
			}
			got = append(got, s)
		}
	})
	if _, err := v.WriteFile(t.Context(), "notes/a.md", []byte("new")); err != nil {
		t.Fatal(err)
	}
	want := []seen{{content: "new", abs: filepath.Join(root, "notes", "a.md"), same: true, ok: true}, {}}
	if !slices.Equal(got, want) {
		t.Errorf("observer saw %+v, want %+v", got, want)
	}
}
