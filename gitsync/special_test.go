//go:build unix

package gitsync

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// FIFOs in the worktree never hang the external-changes scan or a commit
// of their folder, and are never committed: a tracked file replaced by one
// reads as deleted.
func TestFIFOsNeverRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	record(t, r, "first", "d/b.md", "b\n")
	record(t, r, "second", "a.md", "a\n")
	for _, rel := range []string{"x.md", "d/b.md", "d/.gitignore", "d/new.md"} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		_ = syscall.Unlink(p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skip("no named pipes:", err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := r.Sync(context.Background()); err != nil {
			t.Errorf("Sync: %v", err)
		}
		if _, err := r.Commit(context.Background(), "folder", []string{"d"}); err != nil {
			t.Errorf("Commit of the folder: %v", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("a FIFO hung the scan or the commit")
	}
	tree := git(t, dir, "ls-tree", "-r", "--name-only", "HEAD")
	if tree != "a.md" {
		t.Errorf("HEAD holds %q, want only a.md (d/b.md, replaced by a FIFO, deleted)", strings.ReplaceAll(tree, "\n", ", "))
	}
}
