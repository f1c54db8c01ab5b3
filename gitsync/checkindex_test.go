package gitsync

import (
	"context"
	"strings"
	"testing"
)

// With LoadIndexLater, Open does not read .git/index: an unreadable one
// is refused by CheckIndex instead, with the same advice.
func TestCheckIndexLater(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	writeFile(t, dir, "a.md", "a\n")
	git(t, dir, "add", "a.md")
	git(t, dir, "commit", "-q", "-m", "a")
	git(t, dir, "update-index", "--split-index")
	r, err := Open(context.Background(), Options{Dir: dir, LoadIndexLater: true})
	if err != nil {
		t.Fatalf("Open read the index: %v", err)
	}
	defer r.Close()
	if err := r.CheckIndex(); err == nil {
		t.Skip("go-git reads split indexes now") // then nothing to refuse
	} else if !strings.Contains(err.Error(), "split-index") {
		t.Errorf("error does not say how to fix it: %v", err)
	}
	git(t, dir, "update-index", "--no-split-index")
	if err := r.CheckIndex(); err != nil {
		t.Errorf("CheckIndex after the fix: %v", err)
	}
}
