package vault

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// byFolder calls create once for every file, the files of a folder
// in their batch order, whatever the number of workers; once a call
// fails no further file of any folder is started by the worker that saw
// it, and it returns with every call done.
func TestByFolder(t *testing.T) {
	// 30 files in 7 folders, interleaved as a rename's linking notes are.
	var files []FileWrite
	for i := range 30 {
		dir := fmt.Sprintf("/v/d%d", i%7)
		files = append(files, FileWrite{Path: Path{Abs: filepath.Join(dir, fmt.Sprintf("n%02d.md", i))}})
	}
	tests := []struct {
		name    string
		workers int
		failAt  int // index whose create fails; -1 for none
	}{
		{"one worker", 1, -1},
		{"two workers", 2, -1},
		{"more workers than folders", 16, -1},
		{"one worker, a failure", 1, 9},
		{"two workers, a failure", 2, 9},
		{"more workers than folders, a failure", 16, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := map[int]int{}
			var order []int
			byFolder(files, tt.workers, func(i int) bool {
				mu.Lock()
				defer mu.Unlock()
				calls[i]++
				order = append(order, i)
				return i != tt.failAt
			})
			for i, n := range calls {
				if n != 1 {
					t.Errorf("file %d created %d times", i, n)
				}
			}
			if tt.failAt < 0 && len(calls) != len(files) {
				t.Errorf("%d of %d files created", len(calls), len(files))
			}
			if tt.failAt >= 0 && calls[tt.failAt] != 1 {
				t.Errorf("the failing file was not tried")
			}
			if tt.workers == 1 && tt.failAt >= 0 && len(order) != tt.failAt+1 {
				t.Errorf("one worker went on after the failure: %v", order)
			}
			// Within a folder, files come in batch order, none skipped
			// before the last one created.
			byDir := map[string][]int{}
			for _, i := range order {
				d := filepath.Dir(files[i].Path.Abs)
				byDir[d] = append(byDir[d], i)
			}
			for d, got := range byDir {
				var want []int
				for i, fw := range files {
					if filepath.Dir(fw.Path.Abs) == d {
						want = append(want, i)
					}
				}
				if !slices.Equal(got, want[:len(got)]) {
					t.Errorf("folder %s created in order %v, want a prefix of %v", d, got, want)
				}
			}
		})
	}
}

// A batch written by several workers across many folders is written
// whole, new files and folders too, each file reported as it is in
// place; one that fails in its middle (a full disk, a read-only note)
// leaves every file as it was and nothing temporary behind.
func TestWriteFilesManyFolders(t *testing.T) {
	n := minParallelCreate + 16
	tests := []struct {
		name     string
		creators int
		allow    int  // writes that succeed before the disk is full; -1: no fault
		readOnly bool // one note in the middle of the batch is read-only
	}{
		{"one creator", 1, -1, false},
		{"two creators", 2, -1, false},
		{"as chosen for the batch", 0, -1, false},
		{"two creators, disk full midway", 2, n / 2, false},
		{"one creator, disk full midway", 1, n / 2, false},
		{"two creators, a read-only note", 2, -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, root := newTestVault(t, Options{})
			v.creators = tt.creators
			rels := spreadBatch(t, root, n)
			if tt.readOnly {
				if err := os.Chmod(filepath.Join(root, filepath.FromSlash(rels[n/2])), 0o444); err != nil {
					t.Fatal(err)
				}
			}
			rec := &countingRecorder{}
			v.SetRecorder(rec)
			if tt.allow >= 0 {
				fullDisk(v, tt.allow)
			}
			v.dropping.Wait() // earlier changes' backups are removed in the background
			before := snapshot(t, root)
			_, infos, err := writeNew(v, rels)
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			if tt.allow >= 0 || tt.readOnly {
				want := "No space left"
				if tt.readOnly {
					want = "read-only"
				}
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("Update = %v, want an error saying %q", err, want)
				}
				if rec.calls != 0 {
					t.Errorf("recorded %d change(s) that failed", rec.calls)
				}
				sameSnapshot(t, before, snapshot(t, root)) // no temp file, no backup left either
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.calls != 1 {
				t.Errorf("recorded %d changes, want 1", rec.calls)
			}
			checkWrittenNew(t, root, rels, infos)
			after := snapshot(t, root)
			for k := range after {
				if IsTemp(filepath.Base(k)) {
					t.Errorf("left behind: %s", k)
				}
			}
		})
	}
}

// A batch whose rename into place fails for one file, on either worker,
// at its start, middle or end, leaves the vault as it was: the notes
// already renamed are put back, the others' temporary files removed,
// and no backup is left.
func TestWriteFilesRenameFails(t *testing.T) {
	n := minParallelCreate + 16
	for _, creators := range []int{1, 2} {
		for _, failAt := range []int{5, n / 2, n - 1} {
			t.Run(fmt.Sprintf("%d workers, file %d", creators, failAt), func(t *testing.T) {
				v, root := newTestVault(t, Options{})
				v.creators = creators
				rels := spreadBatch(t, root, n)
				rec := &countingRecorder{}
				v.SetRecorder(rec)
				target := filepath.Join(root, filepath.FromSlash(rels[failAt]))
				v.renameFile = func(from, to string) error {
					if to == target {
						return &os.LinkError{Op: "rename", Old: from, New: to, Err: os.ErrPermission}
					}
					return renameOver(from, to)
				}
				v.dropping.Wait() // earlier changes' backups are removed in the background
				before := snapshot(t, root)
				_, _, err := writeNew(v, rels)
				if cerr := v.Close(); cerr != nil {
					t.Fatal(cerr)
				}
				if err == nil || !strings.Contains(err.Error(), rels[failAt]) {
					t.Fatalf("Update = %v, want an error naming %s", err, rels[failAt])
				}
				if rec.calls != 0 {
					t.Errorf("recorded %d change(s) that failed", rec.calls)
				}
				sameSnapshot(t, before, snapshot(t, root))
			})
		}
	}
}

// spreadBatch lays out n files for a batch in 13 folders: every tenth is
// new (in one of three folders that do not exist yet), the others exist
// with the text "old " and their path. It returns their paths.
func spreadBatch(t *testing.T, root string, n int) []string {
	t.Helper()
	rels := make([]string, 0, n)
	for i := range n {
		rel := fmt.Sprintf("f%02d/n%03d.md", i%13, i)
		if i%10 == 3 {
			rel = fmt.Sprintf("new%d/n%03d.md", i%3, i)
		} else {
			mkfile(t, root, rel, "old "+rel)
		}
		rels = append(rels, rel)
	}
	return rels
}

// writeNew writes "new " and its path to each of rels as one batch, in
// one change, and returns the change's commit, what WriteFiles reported
// and the change's error.
func writeNew(v *Vault, rels []string) (string, []os.FileInfo, error) {
	var infos []os.FileInfo
	commit, err := v.Update(context.Background(), func(tx *Tx) error {
		batch := make([]FileWrite, 0, len(rels))
		for _, rel := range rels {
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
	return commit, infos, err
}

// checkWrittenNew checks that each of rels holds what writeNew wrote, and
// that WriteFiles reported it as the file in place: the index trusts its
// copy of a text while the file still matches what was reported.
func checkWrittenNew(t *testing.T, root string, rels []string, infos []os.FileInfo) {
	t.Helper()
	for i, rel := range rels {
		if got := readRel(t, root, rel); got != "new "+rel {
			t.Errorf("%s = %q", rel, got)
		}
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		if got := infos[i]; !os.SameFile(got, fi) || got.Size() != fi.Size() || !got.ModTime().Equal(fi.ModTime()) {
			t.Errorf("WriteFiles reported %s as %d bytes at %v, not the file in place (%d bytes at %v)", rel, got.Size(), got.ModTime(), fi.Size(), fi.ModTime())
		}
	}
}
