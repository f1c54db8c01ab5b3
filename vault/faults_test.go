package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"vaultmcp/vault/changes"
)

// fullDisk makes every atomic write after the first `allow` ones write
// half its data and then fail as a full disk does.
func fullDisk(v *Vault, allow int) {
	var n atomic.Int64 // a batch writes in parallel
	v.writeFault = func(f *os.File, data []byte) error {
		if n.Add(1) <= int64(allow) {
			_, err := f.Write(data)
			return err
		}
		if _, err := f.Write(data[:len(data)/2]); err != nil {
			return err
		}
		return &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
}

// A write that fails on a full disk leaves nothing behind: the old
// content in place, no temporary file, no commit, a clear error.
func TestFullDiskLeavesNothingHalfWritten(t *testing.T) {
	tests := []struct {
		name  string
		allow int // writes that succeed before the disk is full
		op    func(v *Vault) error
	}{
		{"overwrite", 0, func(v *Vault) error {
			_, err := v.WriteFile(t.Context(), "notes/a.md", []byte(strings.Repeat("new ", 1000)))
			return err
		}},
		{"new file in new folders", 0, func(v *Vault) error {
			_, err := v.WriteFile(t.Context(), "new/deep/n.md", []byte("fresh"))
			return err
		}},
		{"edit", 0, func(v *Vault) error {
			_, err := v.EditFile(t.Context(), "notes/a.md", "alpha", "omega")
			return err
		}},
		// The third write of a rename's link updates fails: the move and
		// the two rewrites before it are undone by renames, which need no
		// free space.
		{"rename with link rewrites", 2, func(v *Vault) error {
			_, err := v.RenameFile(t.Context(), "notes/a.md", "moved/a.md", func(tx *Tx, from, to Path) error {
				for _, rel := range []string{"notes/l1.md", "notes/l2.md", "notes/l3.md"} {
					p, err := v.Resolve(rel)
					if err != nil {
						return err
					}
					if err := tx.WriteFile(p, []byte("[[moved/a]]")); err != nil {
						return err
					}
				}
				return nil
			})
			return err
		}},
		// A batch of link updates with a full disk: the temporary files
		// written before the failure are removed, the move is undone, no
		// note was touched.
		{"rename with a batch of link rewrites", 2, func(v *Vault) error {
			_, err := v.RenameFile(t.Context(), "notes/a.md", "moved/a.md", func(tx *Tx, from, to Path) error {
				var batch []FileWrite
				for _, rel := range []string{"notes/l1.md", "notes/l2.md", "notes/l3.md"} {
					p, err := v.Resolve(rel)
					if err != nil {
						return err
					}
					batch = append(batch, FileWrite{Path: p, Data: []byte("[[moved/a]]")})
				}
				return discardInfos(tx.WriteFiles(batch))
			})
			return err
		}},
		// The same with a batch large enough for one flush barrier
		// (minBarrierBatch), failing in its middle.
		{"rename with a large batch of link rewrites", minBarrierBatch / 2, func(v *Vault) error {
			return renameRewritingBulk(t.Context(), v, "[[moved/a]]")
		}},
		{"delete then write", 0, func(v *Vault) error {
			_, err := v.Update(t.Context(), func(tx *Tx) error {
				p, _ := v.Resolve("notes/l1.md")
				if err := tx.Remove(p); err != nil {
					return err
				}
				q, _ := v.Resolve("notes/l2.md")
				return tx.WriteFile(q, []byte("x"))
			})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, root := newTestVault(t, Options{})
			mkfile(t, root, "notes/a.md", "alpha\nbeta\n")
			for _, rel := range []string{"notes/l1.md", "notes/l2.md", "notes/l3.md"} {
				mkfile(t, root, rel, "[[a]]")
			}
			for i := range minBarrierBatch + 4 {
				mkfile(t, root, fmt.Sprintf("bulk/b%02d.md", i), "[[a]]")
			}
			rec := &countingRecorder{}
			v.SetRecorder(rec)
			fullDisk(v, tt.allow)
			v.dropping.Wait() // earlier changes' backups are removed in the background
			before := snapshot(t, root)
			err := tt.op(v)
			if err == nil {
				t.Fatal("no error although the disk is full")
			}
			if !strings.Contains(err.Error(), "No space left") {
				t.Errorf("error %q does not say the disk is full", err)
			}
			noAbsPath(t, err.Error(), "", root)
			if rec.calls != 0 {
				t.Errorf("recorded %d change(s) that failed", rec.calls)
			}
			sameSnapshot(t, before, snapshot(t, root)) // no temp file, no backup left either
		})
	}
}

// countingRecorder records successfully and counts.
type countingRecorder struct{ calls int }

func (r *countingRecorder) Record(_ context.Context, _ string, _ []string) (string, error) {
	r.calls++
	return "c0ffee", nil
}

func (r *countingRecorder) Prepare(ctx context.Context, c changes.Change) (changes.Pending, error) {
	return publishing(ctx, c, r.Record)
}

// A note whose write permission is off is refused with a clear error,
// unchanged, even for root (who could write it anyway).
func TestReadOnlyNote(t *testing.T) {
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "ro.md", "keep me")
	mkfile(t, root, "links.md", "[[ro]]")
	if err := os.Chmod(filepath.Join(root, "ro.md"), 0o444); err != nil {
		t.Fatal(err)
	}
	v.dropping.Wait() // earlier changes' backups are removed in the background
	before := snapshot(t, root)
	_, err := v.WriteFile(t.Context(), "ro.md", []byte("changed"))
	checkClientError(t, err, ErrPermission, "ro.md", root)
	if err != nil && !strings.Contains(err.Error(), "read-only") {
		t.Errorf("error %q does not say read-only", err)
	}
	_, err = v.EditFile(t.Context(), "ro.md", "keep", "lose")
	checkClientError(t, err, ErrPermission, "ro.md", root)
	// A rename whose link update would write the read-only note fails
	// whole.
	_, err = v.RenameFile(t.Context(), "links.md", "moved.md", func(tx *Tx, from, to Path) error {
		p, _ := v.Resolve("ro.md")
		return tx.WriteFile(p, []byte("[[moved]]"))
	})
	checkClientError(t, err, ErrPermission, "ro.md", root)
	sameSnapshot(t, before, snapshot(t, root))
}

func TestWriteCap(t *testing.T) {
	v, root := newTestVault(t, Options{MaxWriteBytes: 100})
	mkfile(t, root, "big.md", strings.Repeat("x", 150))
	mkfile(t, root, "small.md", "abc")
	v.dropping.Wait() // earlier changes' backups are removed in the background
	before := snapshot(t, root)
	_, err := v.WriteFile(t.Context(), "n.md", []byte(strings.Repeat("y", 101)))
	checkClientError(t, err, ErrTooLarge, "n.md", root)
	if err != nil && !strings.Contains(err.Error(), "limits.max_write_bytes") {
		t.Errorf("error %q does not name the setting", err)
	}
	_, err = v.EditFile(t.Context(), "big.md", "x", "y")
	checkClientError(t, err, ErrTooLarge, "big.md", root)
	_, err = v.EditFile(t.Context(), "small.md", "b", strings.Repeat("z", 99))
	checkClientError(t, err, ErrTooLarge, "small.md", root)
	sameSnapshot(t, before, snapshot(t, root))
	if _, err := v.WriteFile(t.Context(), "n.md", []byte(strings.Repeat("y", 100))); err != nil {
		t.Errorf("a write at the cap: %v", err)
	}
	unlimited, _ := Open(root, Options{MaxWriteBytes: -1})
	if _, err := unlimited.EditFile(t.Context(), "big.md", "xxxxxxxxxx", "y"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("no cap: %v", err)
	}
}

// The vault folder deleted (or moved away) under the running server: every
// operation says so, nothing recreates it, and it is served again when it
// is back.
func TestVaultFolderGone(t *testing.T) {
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "a.md", "a")
	aside := root + ".aside"
	if err := os.Rename(root, aside); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	checks := []struct {
		name string
		err  func() error
	}{
		{"read", func() error { _, err := v.ReadFile(context.Background(), "a.md", 0); return err }},
		{"write", func() error { _, err := v.WriteFile(ctx, "a.md", []byte("x")); return err }},
		{"write in a new folder", func() error { _, err := v.WriteFile(ctx, "n/b.md", []byte("x")); return err }},
		{"edit", func() error { _, err := v.EditFile(ctx, "a.md", "a", "b"); return err }},
		{"delete", func() error { _, err := v.DeleteFile(ctx, "a.md"); return err }},
		{"rename", func() error { _, err := v.RenameFile(ctx, "a.md", "b.md", nil); return err }},
		{"list", func() error { _, err := v.List(context.Background(), "", 1); return err }},
		{"stat", func() error { _, _, err := v.Stat(context.Background(), "a.md"); return err }},
		{"create_directory", func() error { _, _, err := v.CreateDirectory(context.Background(), "d"); return err }},
	}
	for _, c := range checks {
		err := c.err()
		checkClientError(t, err, ErrVaultMissing, c.name, root)
		if err != nil && !strings.Contains(err.Error(), "vault folder is missing") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if _, err := os.Lstat(root); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the vault folder was recreated: %v", err)
	}
	if err := os.Rename(aside, root); err != nil {
		t.Fatal(err)
	}
	if f, err := v.ReadFile(context.Background(), "a.md", 0); err != nil || string(f.Data) != "a" {
		t.Errorf("after the folder came back: %q %v", f.Data, err)
	}
	if _, err := v.WriteFile(ctx, "a.md", []byte("back")); err != nil {
		t.Errorf("write after the folder came back: %v", err)
	}
}

// The names of the server's own temporary files are refused: scans never
// show them and leftovers are cleaned away, so a note by such a name
// would vanish.
func TestTempNamesRefused(t *testing.T) {
	v, root := newTestVault(t, Options{})
	for _, given := range []string{tempPrefix + "x.md-1.tmp", "notes/" + tempPrefix + "a", tempPrefix + "dir/n.md"} {
		_, err := v.WriteFile(t.Context(), given, []byte("x"))
		checkClientError(t, err, ErrInvalidPath, given, root)
	}
}

// ModifyFile and CreateFile (the editing tools' writes) keep to the cap
// too, and never read a file over it.
func TestWriteCapModifyCreate(t *testing.T) {
	v, root := newTestVault(t, Options{MaxWriteBytes: 100})
	mkfile(t, root, "big.md", strings.Repeat("x", 150))
	mkfile(t, root, "small.md", "abc")
	v.dropping.Wait() // earlier changes' backups are removed in the background
	before := snapshot(t, root)
	called := false
	_, err := v.ModifyFile(t.Context(), "big.md", func(rel string) string { return "patch " + rel }, func(src []byte) ([]byte, error) {
		called = true
		return src, nil
	})
	checkClientError(t, err, ErrTooLarge, "big.md", root)
	if called {
		t.Error("the file over the cap was read")
	}
	_, err = v.ModifyFile(t.Context(), "small.md", func(rel string) string { return "patch " + rel }, func(src []byte) ([]byte, error) {
		return []byte(strings.Repeat("y", 101)), nil
	})
	checkClientError(t, err, ErrTooLarge, "small.md", root)
	_, err = v.CreateFile(t.Context(), "new.md", func(rel string) string { return "create " + rel }, []byte(strings.Repeat("z", 101)))
	checkClientError(t, err, ErrTooLarge, "new.md", root)
	sameSnapshot(t, before, snapshot(t, root))
}
