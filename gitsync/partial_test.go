package gitsync

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestPartialCloneDoesNotWedgeSync: a vault cloned with --filter=blob:none
// lacks the blobs of old versions. When the remote brings one of them back
// (a revert), the sync still completes, and writes and pushes go on.
func TestPartialCloneDoesNotWedgeSync(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	remote := filepath.Join(base, "remote.git")
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	git(t, remote, "config", "uploadpack.allowFilter", "true")
	git(t, remote, "config", "uploadpack.allowAnySHA1InWant", "true")
	laptop := filepath.Join(base, "laptop")
	git(t, base, "clone", "-q", remote, laptop)
	for _, v := range []string{"v1", "v2", "v3"} {
		writeFile(t, laptop, "a.md", v+"\n")
		writeFile(t, laptop, "b.md", "b "+v+"\n")
		git(t, laptop, "add", "-A")
		git(t, laptop, "commit", "-q", "-m", v)
	}
	git(t, laptop, "push", "-q", "origin", "main")
	vault := filepath.Join(base, "vault")
	git(t, base, "clone", "-q", "--filter=blob:none", "file://"+remote, vault)
	v1 := git(t, laptop, "rev-parse", "HEAD~2:a.md")
	if missing := git(t, vault, "rev-list", "--objects", "--missing=print", "--all"); !strings.Contains(missing, "?"+v1) {
		t.Fatalf("setup: the old blob %s is not missing in the partial clone:\n%s", v1, missing)
	}

	w := &world{remote: remote, vault: vault, laptop: laptop}
	r := openRepo(t, Options{Dir: vault, Locker: &w.lock})
	w.r = r
	// The laptop brings back v1 of a.md (a blob the vault never fetched)
	// and edits b.md; the server edits b.md too (a merge needing the base).
	writeFile(t, laptop, "a.md", "v1\n")
	writeFile(t, laptop, "b.md", "b v3\nlaptop\n")
	git(t, laptop, "add", "-A")
	git(t, laptop, "commit", "-q", "-m", "back to v1")
	git(t, laptop, "push", "-q", "origin", "main")
	w.write(t, "edit b.md", "b.md", "server\nb v3\n")
	if err := r.Sync(context.Background()); err != nil {
		t.Fatalf("Sync in a partial clone: %v", err)
	}
	t.Logf("missing after the sync: %s", git(t, vault, "rev-list", "--objects", "--missing=print", "--all"))
	if got := readFile(t, vault, "a.md"); got != "v1\n" {
		t.Errorf("a.md = %q", got)
	}
	if err := r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.write(t, "write c.md", "c.md", "c\n")
	if err := r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := git(t, vault, "status", "--porcelain"); st != "" {
		t.Errorf("git status:\n%s", st)
	}
}
