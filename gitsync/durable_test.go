package gitsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestDistinctAtLeast(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		paths []string
		n     int
		want  bool
	}{
		{nil, 1, false},
		{[]string{"a"}, 1, true},
		{[]string{"a", "a", "a"}, 2, false},
		{[]string{"a", "a", "b"}, 2, true},
		{[]string{"a", "b"}, 3, false},
	} {
		if got := distinctAtLeast(c.paths, c.n); got != c.want {
			t.Errorf("distinctAtLeast(%q, %d) = %v, want %v", c.paths, c.n, got, c.want)
		}
	}
}

// A commit with many folders to flush has the ones on the repository's
// file system flushed by one syncfs (Linux) and the rest one by one; a
// path gone meanwhile is passed over, as fsyncPath does.
func TestFlushLargeCommitWithBarrier(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := &Repo{dir: dir}
	var paths []string
	for i := range minBarrierFlush {
		p := filepath.Join(dir, fmt.Sprintf("f%02d", i))
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p, p) // folders repeat: one per note
	}
	f := r.startFlush(paths...)
	f.add(filepath.Join(dir, "gone"))
	wantBarred := minBarrierFlush
	if runtime.GOOS != "linux" {
		wantBarred = 0
	}
	if f.barred != wantBarred {
		t.Errorf("%d paths left to the barrier, want %d", f.barred, wantBarred)
	}
	if err := f.wait(); err != nil {
		t.Fatal(err)
	}

	// Below the threshold each path is flushed on its own.
	small := r.startFlush(paths[:minBarrierFlush]...)
	if small.bar != nil || small.barred != 0 {
		t.Errorf("%d distinct paths used the barrier", minBarrierFlush/2)
	}
	if err := small.wait(); err != nil {
		t.Fatal(err)
	}
}

// A durable commit of notes in more folders than minBarrierFlush is
// committed whole.
func TestDurableCommitManyFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openDurableRepo(t, Options{Dir: dir})
	var paths []string
	for i := range minBarrierFlush + 6 {
		p := fmt.Sprintf("f%02d/note.md", i)
		writeFile(t, dir, p, fmt.Sprintf("note %d\n", i))
		paths = append(paths, p)
	}
	res, err := r.Commit(context.Background(), "many folders", paths)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created {
		t.Fatalf("no commit: %+v", res)
	}
	if got := strings.Split(git(t, dir, "ls-tree", "-r", "--name-only", "HEAD"), "\n"); len(got) != len(paths) {
		t.Errorf("HEAD holds %d files, want %d", len(got), len(paths))
	}
	assertClean(t, dir)
}
