package gitsync

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// A durable commit of notes in some seventy folders (a rename's commit
// flushes hundreds) is committed whole, its folders left to the barrier.
func TestDurableCommitManyFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openDurableRepo(t, Options{Dir: dir})
	var paths []string
	for i := range 70 {
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
