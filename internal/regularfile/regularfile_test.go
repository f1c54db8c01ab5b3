package regularfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// tree makes a folder with a note, a link to it, a subfolder and, where
// the system has them, a FIFO.
func tree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "note.md"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("note.md", filepath.Join(dir, "link.md")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if runtime.GOOS != "windows" {
		if err := mkfifo(filepath.Join(dir, "fifo.md")); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// within fails the test when f does not return promptly: an open that
// waits for a FIFO's writer never would.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the open blocked")
	}
}

func TestOpen(t *testing.T) {
	dir := tree(t)
	tests := []struct {
		name     string
		open     func(string) (*os.File, fs.FileInfo, error)
		path     string
		want     string      // content; "" for an error
		notReg   fs.FileMode // the type a *NotRegularError names
		otherErr bool        // some other error
	}{
		{"regular", Open, "note.md", "hello", 0, false},
		{"link followed", Open, "link.md", "hello", 0, false},
		{"folder", Open, "folder", "", fs.ModeDir, false},
		{"fifo", Open, "fifo.md", "", fs.ModeNamedPipe, false},
		{"missing", Open, "gone.md", "", 0, true},
		{"no follow: regular", OpenNoFollow, "note.md", "hello", 0, false},
		{"no follow: link refused", OpenNoFollow, "link.md", "", 0, true},
		{"no follow: fifo", OpenNoFollow, "fifo.md", "", fs.ModeNamedPipe, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path == "fifo.md" && runtime.GOOS == "windows" {
				t.Skip("no FIFOs")
			}
			if tt.name == "no follow: link refused" && runtime.GOOS == "windows" {
				t.Skip("cannot refuse a final link at the open")
			}
			var f *os.File
			var fi fs.FileInfo
			var err error
			within(t, func() { f, fi, err = tt.open(filepath.Join(dir, tt.path)) })
			if tt.want != "" {
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				got, err := io.ReadAll(f)
				if err != nil || string(got) != tt.want || fi.Size() != int64(len(tt.want)) {
					t.Errorf("read %q (%v), size %d; want %q", got, err, fi.Size(), tt.want)
				}
				return
			}
			if err == nil {
				f.Close()
				t.Fatal("opened, want an error")
			}
			var nr *NotRegularError
			switch {
			case tt.otherErr && errors.As(err, &nr):
				t.Errorf("error %v, want one that is not a NotRegularError", err)
			case !tt.otherErr && (!errors.As(err, &nr) || nr.Mode.Type() != tt.notReg):
				t.Errorf("error %v, want a NotRegularError for %v", err, tt.notReg)
			}
		})
	}
}

func TestRead(t *testing.T) {
	dir := tree(t)
	note := filepath.Join(dir, "note.md")
	fi, err := os.Stat(note)
	if err != nil {
		t.Fatal(err)
	}
	var allocs int
	alloc := func(n int) []byte { allocs++; return make([]byte, n) }
	tests := []struct {
		name    string
		path    string
		cpath   bool
		limit   int64
		want    string
		wantErr bool
		notReg  fs.FileMode
	}{
		{"whole", note, false, 100, "hello", false, 0},
		{"whole, C path", note, true, 100, "hello", false, 0},
		{"at the limit", note, false, 5, "hello", false, 0},
		{"over the limit: not read", note, true, 4, "", false, 0},
		{"link followed", filepath.Join(dir, "link.md"), true, 100, "hello", false, 0},
		{"folder", filepath.Join(dir, "folder"), true, 100, "", true, fs.ModeDir},
		{"fifo", filepath.Join(dir, "fifo.md"), true, 100, "", true, fs.ModeNamedPipe},
		{"fifo, Go path", filepath.Join(dir, "fifo.md"), false, 100, "", true, fs.ModeNamedPipe},
		{"missing", filepath.Join(dir, "gone.md"), true, 100, "", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.notReg == fs.ModeNamedPipe && runtime.GOOS == "windows" {
				t.Skip("no FIFOs")
			}
			var cpath []byte
			if tt.cpath {
				cpath = append([]byte(tt.path), 0)
			}
			allocs = 0
			var content []byte
			var size int64
			var mod time.Time
			var err error
			within(t, func() { content, size, mod, err = Read(tt.path, cpath, tt.limit, alloc) })
			if tt.wantErr {
				var nr *NotRegularError
				switch {
				case err == nil:
					t.Fatal("read, want an error")
				case tt.notReg != 0 && (!errors.As(err, &nr) || nr.Mode.Type() != tt.notReg):
					t.Errorf("error %v, want a NotRegularError for %v", err, tt.notReg)
				case tt.notReg == 0 && !errors.Is(err, fs.ErrNotExist):
					t.Errorf("error %v, want not-exist", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(content) != tt.want || size != fi.Size() || !mod.Equal(fi.ModTime()) {
				t.Errorf("got %q, size %d, modified %v; want %q, %d, %v", content, size, mod, tt.want, fi.Size(), fi.ModTime())
			}
			if wantAllocs := min(len(tt.want), 1); allocs != wantAllocs {
				t.Errorf("alloc called %d times, want %d", allocs, wantAllocs)
			}
		})
	}
}

func BenchmarkRead(b *testing.B) {
	path := filepath.Join(b.TempDir(), "note.md")
	if err := os.WriteFile(path, make([]byte, 2000), 0o644); err != nil {
		b.Fatal(err)
	}
	cpath := append([]byte(path), 0)
	buf := make([]byte, 4096)
	alloc := func(n int) []byte { return buf[:n] }
	for b.Loop() {
		if _, _, _, err := Read(path, cpath, 1<<20, alloc); err != nil {
			b.Fatal(err)
		}
	}
}
