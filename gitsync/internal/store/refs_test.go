package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestParseHash(t *testing.T) {
	t.Parallel()
	good := strings.Repeat("0123456789abcdef", 3)[:40]
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{good, true},
		{strings.ToUpper(good), false},
		{good[:39], false},
		{good + "0", false},
		{good[:39] + "g", false},
		{"", false},
	} {
		if h, ok := ParseHash(tt.in); ok != tt.ok || (ok && h.String() != tt.in) {
			t.Errorf("ParseHash(%q) = %s, %v; want ok %v", tt.in, h, ok, tt.ok)
		}
	}
}

// A ref moves through its lock file only from the value the caller
// expects, and reads back as a loose ref once committed.
func TestLockRefCompareAndSwap(t *testing.T) {
	t.Parallel()
	gitDir := t.TempDir()
	name := plumbing.NewBranchReferenceName("main")
	a, b := plumbing.NewHash(strings.Repeat("a", 40)), plumbing.NewHash(strings.Repeat("b", 40))
	current := func(n plumbing.ReferenceName) (plumbing.Hash, error) {
		if h, ok := LooseRef(gitDir, n); ok {
			return h, nil
		}
		return plumbing.ZeroHash, nil
	}
	l, err := LockRef(gitDir, name, a, plumbing.ZeroHash, current)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockRef(gitDir, name, b, plumbing.ZeroHash, current); err == nil || !strings.Contains(err.Error(), ".lock exists") {
		t.Errorf("second lock while the first is held: %v", err)
	}
	if err := l.Commit(); err != nil {
		t.Fatal(err)
	}
	if h, ok := LooseRef(gitDir, name); !ok || h != a {
		t.Fatalf("ref reads %s, %v; want %s", h, ok, a)
	}
	if _, err := LockRef(gitDir, name, b, plumbing.ZeroHash, current); !errors.Is(err, ErrRefMoved) {
		t.Errorf("lock from a stale value: %v, want ErrRefMoved", err)
	}
	if _, err := os.Stat(filepath.Join(gitDir, "refs", "heads", "main.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused update left its lock: %v", err)
	}
	if err := os.WriteFile(filepath.Join(gitDir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !HeadIsBranch(gitDir, name) || HeadIsBranch(gitDir, plumbing.NewBranchReferenceName("other")) {
		t.Error("HeadIsBranch does not match HEAD")
	}
}
