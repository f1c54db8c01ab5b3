package gitsync

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"vaultmcp/internal/syncfs"
)

// The barrier covers what is on its own file system, leaves a path on
// another one to its own fsync, and says when a path is gone.
func TestBarrierCovers(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	bar := syncfs.Open(dir)
	if bar == nil {
		t.Skipf("no syncfs barrier on %s here", dir)
	}
	defer bar.Close()
	other := otherFileSystem(t, dir)
	tests := []struct {
		name          string
		path          string
		covered, gone bool
	}{
		{"file", file, true, false},
		{"folder", dir, true, false},
		{"missing", filepath.Join(dir, "missing"), false, true},
		{"under a file", filepath.Join(file, "x"), false, true},
		{"another file system", other, false, false},
	}
	for _, tt := range tests {
		if tt.path == "" {
			continue
		}
		covered, gone := barrierCovers(bar, tt.path)
		if covered != tt.covered || gone != tt.gone {
			t.Errorf("%s: covers = %v, %v; want %v, %v", tt.name, covered, gone, tt.covered, tt.gone)
		}
	}
	if err := bar.Sync(); err != nil {
		t.Fatalf("sync: %v", err)
	}
	if covered, gone := barrierCovers(nil, file); covered || gone {
		t.Error("a nil barrier covers a path")
	}
}

// A flusher with a barrier flushes the paths it covers with one sync in
// wait and the rest (another file system) on their own; a path gone
// meanwhile is no error.
func TestFlusherWithBarrier(t *testing.T) {
	dir := t.TempDir()
	bar := syncfs.Open(dir)
	if bar == nil {
		t.Skipf("no syncfs barrier on %s here", dir)
	}
	defer bar.Close()
	var paths []string
	for _, n := range []string{"a", "b"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	paths = append(paths, dir, filepath.Join(dir, "gone"))
	if other := otherFileSystem(t, dir); other != "" {
		paths = append(paths, other)
	}
	f := newFlusher(false)
	f.bar = bar
	f.add(paths...)
	if !f.barred {
		t.Fatal("no path waits for the barrier")
	}
	if err := f.wait(); err != nil {
		t.Fatalf("wait: %v", err)
	}
	if f.barred {
		t.Error("the barrier is still pending after wait")
	}
}

// otherFileSystem returns a file on another file system than dir (the
// shared-memory tmpfs), or "" when there is none here.
func otherFileSystem(t *testing.T, dir string) string {
	t.Helper()
	var a, b syscall.Stat_t
	if syscall.Stat(dir, &a) != nil || syscall.Stat("/dev/shm", &b) != nil || a.Dev == b.Dev {
		return ""
	}
	f, err := os.CreateTemp("/dev/shm", "barrier-test-")
	if err != nil {
		return ""
	}
	f.Close()
	t.Cleanup(func() { os.Remove(f.Name()) })
	return f.Name()
}
