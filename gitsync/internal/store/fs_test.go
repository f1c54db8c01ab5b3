package store

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A pack index is read whole when opened, and reads as the file does.
func TestPlainFSOpensIndexWhole(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	name := filepath.Join("objects", "pack", "pack-1.idx")
	want := bytes.Repeat([]byte("0123456789abcdef"), 1000)
	if err := os.MkdirAll(filepath.Join(root, "objects", "pack"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, name), want, 0o444); err != nil {
		t.Fatal(err)
	}
	f, err := PlainFS{root: root}.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, ok := f.(*wholeFile); !ok {
		t.Fatalf("opened as %T, want a file read whole", f)
	}
	if f.Name() != name {
		t.Errorf("Name() = %q, want %q", f.Name(), name)
	}
	st, ok := f.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		t.Fatal("no Stat: go-git checks an index's size with it")
	}
	if fi, err := st.Stat(); err != nil || fi.Size() != int64(len(want)) {
		t.Errorf("Stat() = %v, %v; want size %d", fi, err, len(want))
	}
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes (%v), want the file's %d", len(got), err, len(want))
	}
	buf := make([]byte, 4)
	if _, err := f.ReadAt(buf, 16); err != nil || string(buf) != "0123" {
		t.Errorf("ReadAt(16) = %q, %v", buf, err)
	}
	if _, err := f.Write([]byte("x")); err == nil {
		t.Error("Write succeeded on a file opened for reading")
	}
	if _, err := (PlainFS{root: root}).Open("objects/pack/missing.idx"); !os.IsNotExist(err) {
		t.Errorf("missing index: %v, want not-exist (go-git maps it to ErrPackfileNotFound)", err)
	}
}
