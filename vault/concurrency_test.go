package vault

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Writers and editors racing on one vault lose no update: every edit
// appends its own line to a shared note, and at the end all lines are
// there exactly once. Run with -race.
func TestConcurrentChanges(t *testing.T) {
	const workers, rounds = 8, 50
	v, root := newTestVault(t, Options{})
	const marker = "<<end>>"
	mkfile(t, root, "shared.md", "# Log\n"+marker+"\n")
	records := 0
	v.SetRecorder(recorderFunc(func(string, []string) (string, error) {
		records++ // under the write lock
		return "", nil
	}))
	ctx := t.Context()

	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds*3)
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				line := fmt.Sprintf("worker %d round %d", w, r)
				if _, err := v.EditFile(ctx, "shared.md", marker, line+"\n"+marker); err != nil {
					errs <- fmt.Errorf("edit %s: %w", line, err)
				}
				own := fmt.Sprintf("workers/w%d/note.md", w)
				if _, err := v.WriteFile(ctx, own, []byte(line)); err != nil {
					errs <- fmt.Errorf("write %s: %w", line, err)
				}
				// Reads run alongside and never see a half-written file.
				if f, err := v.ReadFile(context.Background(), "shared.md", 0); err != nil {
					errs <- fmt.Errorf("read: %w", err)
				} else if !strings.HasSuffix(string(f.Data), marker+"\n") {
					errs <- fmt.Errorf("read a torn file: %q", f.Data)
				}
				if _, err := v.List(context.Background(), "", 3); err != nil {
					errs <- fmt.Errorf("list: %w", err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	got := readRel(t, root, "shared.md")
	for w := range workers {
		for r := range rounds {
			line := fmt.Sprintf("worker %d round %d\n", w, r)
			if c := strings.Count(got, line); c != 1 {
				t.Errorf("%q appears %d times", line, c)
			}
		}
		want := fmt.Sprintf("worker %d round %d", w, rounds-1)
		if own := readRel(t, root, fmt.Sprintf("workers/w%d/note.md", w)); own != want {
			t.Errorf("w%d/note.md = %q, want %q", w, own, want)
		}
	}
	if n := strings.Count(got, "\n"); n != workers*rounds+2 {
		t.Errorf("shared.md has %d lines, want %d", n, workers*rounds+2)
	}
	if records != workers*rounds*2 {
		t.Errorf("%d changes recorded, want %d", records, workers*rounds*2)
	}
}

// A path is checked under the write lock, where it is used: a pull that
// holds the lock can turn a folder into a symbolic link leading out of the
// vault (git carries links), and a change that checked its path before
// waiting for the lock must not then write through that link.
func TestPathCheckedUnderTheWriteLock(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		op   func(v *Vault) error
		out  string // what must not appear outside
	}{
		{"write_file", func(v *Vault) error {
			_, err := v.WriteFile(ctx, "notes/new.md", []byte("x"))
			return err
		}, "new.md"},
		{"edit_file", func(v *Vault) error {
			_, err := v.EditFile(ctx, "notes/a.md", "outside", "changed")
			return err
		}, "a.md"},
		{"delete_file", func(v *Vault) error {
			_, err := v.DeleteFile(ctx, "notes/a.md")
			return err
		}, "a.md"},
		{"rename_file", func(v *Vault) error {
			_, err := v.RenameFile(ctx, "top.md", "notes/moved.md", nil)
			return err
		}, "moved.md"},
		{"create_directory", func(v *Vault) error {
			_, _, err := v.CreateDirectory(context.Background(), "notes/sub")
			return err
		}, "sub"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, root := newTestVault(t, Options{})
			outside := t.TempDir()
			mkfile(t, outside, "a.md", "outside")
			mkfile(t, root, "notes/a.md", "inside")
			mkfile(t, root, "top.md", "top")
			before := snapshot(t, outside)

			v.Locker().Lock() // a pull in progress
			done := make(chan error, 1)
			go func() { done <- tt.op(v) }()
			waitForLock(t)
			// The pull replaces the folder with a link out of the vault.
			if err := os.RemoveAll(filepath.Join(root, "notes")); err != nil {
				t.Fatal(err)
			}
			symlink(t, root, "notes", outside)
			v.Locker().Unlock()

			err := <-done
			if !errors.Is(err, ErrOutside) {
				t.Errorf("err = %v, want ErrOutside", err)
			}
			if after := snapshot(t, outside); !maps.Equal(before, after) {
				t.Errorf("the folder outside the vault changed: %v -> %v", before, after)
			}
		})
	}
}

// waitForLock returns once another goroutine waits for the vault's write
// lock (in Update or CreateDirectory).
func waitForLock(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if strings.Contains(g, "sync.(*Mutex).Lock") && strings.Contains(g, "vaultmcp/vault.(*Vault).") {
				return
			}
		}
		runtime.Gosched()
	}
}
