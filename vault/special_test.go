//go:build unix

package vault

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo creates a FIFO below root. Nothing ever writes to it: opening it
// for reading the ordinary way would block forever.
func mkfifo(t testing.TB, root, rel string) {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(abs, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// mksocket binds a Unix socket below root for the test's life.
func mksocket(t testing.TB, root, rel string) {
	t.Helper()
	l, err := net.Listen("unix", filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	t.Cleanup(func() { l.Close() })
}

// notHung runs fn and fails the test if it has not returned after a long
// time: a hang, not a slow machine.
func notHung(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s hung on a special file", what)
	}
}

func TestSpecialFilesNeverOpened(t *testing.T) {
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "a.md", "a")
	mkfifo(t, root, "x.md")
	mkfifo(t, root, "sub/pipe")
	mksocket(t, root, "s.sock")
	symlink(t, root, "to-fifo.md", "x.md")
	if err := syscall.Mknod(filepath.Join(root, "null.md"), syscall.S_IFCHR|0o644, 0x103); err != nil {
		t.Logf("mknod (device node left out of this run): %v", err)
	}

	notHung(t, "Walk", func() {
		var got []string
		rootPath, _ := v.Resolve("")
		if err := v.Walk(rootPath, func(rel string, d fs.DirEntry) error {
			if !d.IsDir() && d.Type()&fs.ModeSymlink == 0 {
				got = append(got, rel)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, ",") != "a.md" {
			t.Errorf("Walk reported files %v, want only a.md", got)
		}
	})
	notHung(t, "List", func() {
		entries, err := v.List(context.Background(), "", 3)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Rel)
		}
		if strings.Join(got, ",") != "a.md,sub" {
			t.Errorf("List = %v, want a.md and sub only", got)
		}
	})
	for _, rel := range []string{"x.md", "to-fifo.md", "s.sock", "sub/pipe"} {
		notHung(t, "ReadFile "+rel, func() {
			_, err := v.ReadFile(context.Background(), rel, 0)
			if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("ReadFile(%s) = %v, want a not-a-regular-file error", rel, err)
			}
		})
	}
	notHung(t, "ReadFile", func() {
		_, err := v.ReadFile(context.Background(), "x.md", 0)
		if err == nil || !strings.Contains(err.Error(), "x.md is a named pipe (FIFO)") {
			t.Errorf("ReadFile(x.md) = %v, want it named a FIFO", err)
		}
	})
	ctx := context.Background()
	notHung(t, "WriteFile", func() {
		if _, err := v.WriteFile(ctx, "x.md", []byte("new")); err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("WriteFile over a FIFO = %v", err)
		}
	})
	notHung(t, "EditFile", func() {
		if _, err := v.EditFile(ctx, "x.md", "a", "b"); err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("EditFile of a FIFO = %v", err)
		}
	})
	notHung(t, "DeleteFile", func() {
		if _, err := v.DeleteFile(ctx, "x.md"); err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("DeleteFile of a FIFO = %v", err)
		}
	})
	notHung(t, "RenameFile onto a FIFO", func() {
		if _, err := v.RenameFile(ctx, "a.md", "x.md", nil); !errors.Is(err, ErrExists) {
			t.Errorf("RenameFile onto a FIFO = %v, want ErrExists", err)
		}
	})
	if fi, err := os.Lstat(filepath.Join(root, "x.md")); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
}

// A FIFO swapped in after the stat, where a file was, is refused by the
// open itself, which does not block.
func TestOpenRegularRefusesFIFO(t *testing.T) {
	_, root := newTestVault(t, Options{})
	mkfifo(t, root, "p")
	notHung(t, "OpenRegular", func() {
		f, _, err := OpenRegular(filepath.Join(root, "p"))
		if err == nil {
			f.Close()
			t.Fatal("OpenRegular opened a FIFO")
		}
		if !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("err = %v", err)
		}
		if e := osError("p", err); !strings.Contains(e.Error(), "p is a named pipe (FIFO), not a regular file") {
			t.Errorf("client error = %v", e)
		}
	})
}
