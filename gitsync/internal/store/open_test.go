package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// OpenFile and renameFile stand in for os.OpenFile and os.Rename on the
// commit path: their errors must read the same to the callers' checks.
func TestOpenFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	f, err := OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o444 || fi.Size() != 1 {
		t.Errorf("created %v, %v; want 1 byte, mode 0444", fi, err)
	}
	tests := []struct {
		name string
		path string
		flag int
		want error
	}{
		{"exists", p, os.O_WRONLY | os.O_CREATE | os.O_EXCL, fs.ErrExist},
		{"missing folder", filepath.Join(dir, "no", "f"), os.O_WRONLY | os.O_CREATE | os.O_EXCL, fs.ErrNotExist},
		{"missing file", filepath.Join(dir, "g"), os.O_RDONLY, fs.ErrNotExist},
	}
	for _, tt := range tests {
		_, err := OpenFile(tt.path, tt.flag, 0o644)
		var pe *fs.PathError
		if !errors.Is(err, tt.want) || !errors.As(err, &pe) || pe.Path != tt.path {
			t.Errorf("%s: %v, want a path error that is %v", tt.name, err, tt.want)
		}
	}
	if err := renameFile(p, filepath.Join(dir, "h")); err != nil {
		t.Fatal(err)
	}
	if err := renameFile(p, filepath.Join(dir, "i")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("rename of a missing file: %v, want not exist", err)
	}
}
