package gitsync

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// rawGit runs the git CLI without waiting for our index lock.
func rawGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(filepath.Join(os.TempDir(), "gitsync-test-home"))
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestIndexWrittenOnceCommitsPause: a commit leaves the index in memory
// under index.lock; the git CLI cannot stage or commit meanwhile (it
// would build its commit from an index without ours), and the file is
// written, with every commit of the burst in it, when the write comes
// (FlushIndex here; a pause of the commits in the server).
func TestIndexWrittenOnceCommitsPause(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	r.testHooks.Store(&testHooks{indexDelay: time.Hour})
	lock := filepath.Join(dir, ".git", "index.lock")
	for i, p := range []string{"a.md", "notes/b.md", "notes/deep/c.md"} {
		if res := record(t, r, "write "+p, p, p+"\n"); !res.Created {
			t.Fatalf("write %d made no commit", i)
		}
	}
	if fi, err := os.Lstat(lock); err != nil || !ownLock(filepath.Dir(lock), fi) {
		t.Fatalf("index.lock not held by the repository after its commits: %v", err)
	}
	if out, err := rawGit(dir, "ls-files"); err != nil || out != "" {
		t.Errorf("the index file has entries before it was written: %q %v", out, err)
	}
	writeFile(t, dir, "outside.md", "outside\n")
	if out, err := rawGit(dir, "add", "outside.md"); err == nil || !strings.Contains(out, "index.lock") {
		t.Errorf("git add with the index held: %v %s", err, out)
	}
	// The in-memory index is the one commits go on from.
	if res := record(t, r, "edit a.md", "a.md", "a2\n"); !res.Created {
		t.Fatal("no commit")
	}
	os.Remove(filepath.Join(dir, "outside.md"))
	r.FlushIndex()
	if _, err := os.Lstat(lock); err == nil {
		t.Error("index.lock left after the write")
	}
	if out, _ := rawGit(dir, "ls-files"); out != "a.md\nnotes/b.md\nnotes/deep/c.md" {
		t.Errorf("ls-files = %q", out)
	}
	assertClean(t, dir)
	// An outside change of the written index is read again.
	writeFile(t, dir, "outside.md", "outside\n")
	git(t, dir, "add", "outside.md")
	if res := record(t, r, "write d.md", "d.md", "d\n"); !res.Created {
		t.Fatal("no commit")
	}
	r.FlushIndex()
	if out := git(t, dir, "status", "--porcelain"); out != "A  outside.md" {
		t.Errorf("git status = %q, want the outside staging kept", out)
	}
}

// TestIndexWrittenAfterAPause: without a test's delay, the index follows
// the commits on its own once they pause.
func TestIndexWrittenAfterAPause(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	for _, p := range []string{"a.md", "b.md"} {
		record(t, r, "write "+p, p, p+"\n")
	}
	waitIndexWritten(dir)
	if out, _ := rawGit(dir, "ls-files"); out != "a.md\nb.md" {
		t.Errorf("ls-files = %q", out)
	}
	if fi, err := os.Lstat(filepath.Join(dir, ".git", "index.lock")); err == nil {
		t.Errorf("index.lock still there: %v", fi.Name())
	}
}

// TestIndexLeftBehindByAKillIsRebuilt: a process killed with its index
// in memory leaves the file behind HEAD, index.lock with a dead owner
// and its mark. The next start removes the lock, rebuilds the index
// from HEAD (logged), and the first sync finds nothing to commit; writes
// go on. The killed state is a copy of a live repository's folder, taken
// while it held the index: flocks do not travel with a copy.
func TestIndexLeftBehindByAKillIsRebuilt(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("cp -a")
	}
	t.Parallel()
	live := t.TempDir()
	r := openRepo(t, Options{Dir: live})
	record(t, r, "write a.md", "a.md", "a\n")
	record(t, r, "write notes/b.md", "notes/b.md", "b\n")
	r.FlushIndex()
	r.testHooks.Store(&testHooks{indexDelay: time.Hour})
	record(t, r, "edit a.md", "a.md", "a, edited\n")
	record(t, r, "write notes/c.md", "notes/c.md", "c\n")
	os.Remove(filepath.Join(live, "notes", "b.md"))
	if _, err := r.Commit(context.Background(), "delete notes/b.md", []string{"notes/b.md"}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "killed")
	if out, err := exec.Command("cp", "-a", live, dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	gitDir := filepath.Join(dir, ".git")
	if _, err := os.Lstat(filepath.Join(gitDir, "index.lock")); err != nil {
		t.Fatalf("setup: no index.lock in the copy: %v", err)
	}
	if out, _ := rawGit(dir, "ls-files"); out != "a.md\nnotes/b.md" {
		t.Fatalf("setup: the index file should lag behind HEAD, ls-files = %q", out)
	}
	head, _ := rawGit(dir, "rev-parse", "HEAD")
	var logs logBuffer
	r2 := openRepo(t, Options{Dir: dir, Logger: logs.logger()})
	if !strings.Contains(logs.String(), "rebuilt it from HEAD") {
		t.Errorf("the rebuild is not logged:\n%s", logs.String())
	}
	if marks, _ := filepath.Glob(filepath.Join(gitDir, "*"+markSuffix)); len(marks) != 0 {
		t.Errorf("marks left: %q", marks)
	}
	if err := r2.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertClean(t, dir)
	if got := git(t, dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("the repair made a commit: %s", git(t, dir, "log", "--stat", "-1"))
	}
	if out := git(t, dir, "ls-files"); out != "a.md\nnotes/c.md" {
		t.Errorf("ls-files after the rebuild = %q", out)
	}
	if res := record(t, r2, "write d.md", "d.md", "d\n"); !res.Created {
		t.Error("no commit after the repair")
	}
	assertClean(t, dir)
}
