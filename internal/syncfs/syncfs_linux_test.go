package syncfs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReleaseAtLeast(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		release string
		want    bool
	}{
		{"5.8.0", true},
		{"5.7.19", false},
		{"5.10.0-28-amd64", true},
		{"6.18.44-fc-v769", true},
		{"4.18.0-513.el8.x86_64", false},
		{"5.4.0-150-generic", false},
		{"5.8", true},
		{"5.8-rc1", true},
		{"5.15+", true},
		{"10.0.0", true},
		{"6", false},
		{"", false},
		{"x.y.z", false},
	} {
		if got := releaseAtLeast(c.release, 5, 8); got != c.want {
			t.Errorf("releaseAtLeast(%q, 5, 8) = %v, want %v", c.release, got, c.want)
		}
	}
}

// The test's own temporary folder is on a local file system of the
// machine: a barrier opens there on a kernel new enough, covers a file
// written below it, and syncs; a nil barrier covers nothing.
func TestBarrierHere(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := Open(dir)
	if b == nil {
		t.Skipf("no barrier on %s here (kernel new enough: %v)", dir, kernelReportsErrors())
	}
	defer b.Close()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !b.Covers(fi) {
		t.Error("the barrier does not cover a file in its own folder")
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	var none *Barrier
	if none.Covers(fi) || none.Sync() != nil {
		t.Error("a nil barrier covers a file or fails to sync")
	}
	none.Close()
}
