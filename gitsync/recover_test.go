package gitsync

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/internal/testutil"
)

// TestStaleLocksOfADeadServerAreRecovered: index.lock and the branch's
// ref lock left by a killed server are removed at Open (and logged), and
// a server killed between its ref update and its index update (the index
// then lacks a note HEAD has: `git status` shows it staged as deleted and
// untracked at once) is repaired by the first sync, even with the remote
// down.
func TestStaleLocksOfADeadServerAreRecovered(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	w.write(t, "write a.md", "a.md", "a\n")
	gitDir := filepath.Join(w.vault, ".git")
	waitIndexWritten(w.vault)
	oldIndex, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	w.write(t, "write b.md", "b.md", "b\n")
	w.r.Close()
	// The crash: the ref moved (b.md is in HEAD), the index did not, and
	// both locks stayed.
	if err := os.WriteFile(filepath.Join(gitDir, "index"), oldIndex, 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.LeaveStaleLock(t, gitDir, filepath.Join(gitDir, "index.lock"), "half an index")
	testutil.LeaveStaleLock(t, gitDir, filepath.Join(gitDir, "refs", "heads", "main.lock"), "")
	if st := git(t, w.vault, "status", "--porcelain"); !strings.Contains(st, "D  b.md") || !strings.Contains(st, "?? b.md") {
		t.Fatalf("setup: git status =\n%s", st)
	}
	if err := os.Rename(w.remote, w.remote+".away"); err != nil {
		t.Fatal(err)
	}

	var logs logBuffer
	r := openDurableRepo(t, Options{Dir: w.vault, Locker: &w.lock, Logger: logs.logger()})
	for _, lock := range []string{"index.lock", "refs/heads/main.lock"} {
		if _, err := os.Stat(filepath.Join(gitDir, lock)); err == nil {
			t.Errorf("%s still there", lock)
		}
	}
	if !strings.Contains(logs.String(), "removed a stale lock file") {
		t.Errorf("recovery not logged:\n%s", logs.String())
	}
	if owners, _ := filepath.Glob(filepath.Join(gitDir, "*"+store.OwnerSuffix)); len(owners) != 0 {
		t.Errorf("owner files left: %q", owners)
	}
	if err := r.Sync(context.Background()); err == nil {
		t.Error("Sync with the remote away succeeded")
	}
	assertClean(t, w.vault)
	w.lock.Lock()
	res := record(t, r, "write c.md", "c.md", "c\n")
	w.lock.Unlock()
	if !res.Created {
		t.Error("no commit after recovery")
	}
}

// TestIndexBehindHeadAfterAnEditIsRepaired: a kill between the ref update
// and the index rename of an edit leaves HEAD with the new content, the
// index with the old, and the worktree with the new: `git status` showed
// the note as modified both ways (MM) for good, since the scan saw the
// worktree equal to HEAD. The first sync (the remote away) puts the index
// right without a commit.
func TestIndexBehindHeadAfterAnEditIsRepaired(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	w.write(t, "write a.md", "a.md", "a\n")
	gitDir := filepath.Join(w.vault, ".git")
	waitIndexWritten(w.vault)
	oldIndex, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	w.write(t, "edit a.md", "a.md", "a, edited\n")
	w.r.Close()
	if err := os.WriteFile(filepath.Join(gitDir, "index"), oldIndex, 0o644); err != nil {
		t.Fatal(err)
	}
	if st := git(t, w.vault, "status", "--porcelain"); st != "MM a.md" {
		t.Fatalf("setup: git status =\n%s", st)
	}
	if err := os.Rename(w.remote, w.remote+".away"); err != nil {
		t.Fatal(err)
	}
	head := git(t, w.vault, "rev-parse", "HEAD")
	r := openRepo(t, Options{Dir: w.vault, Locker: &w.lock})
	if err := r.Sync(context.Background()); err == nil {
		t.Error("Sync with the remote away succeeded")
	}
	assertClean(t, w.vault)
	if got := git(t, w.vault, "rev-parse", "HEAD"); got != head {
		t.Errorf("the repair made a commit: %s", git(t, w.vault, "log", "--stat", "-1"))
	}
}

// TestForeignAndLiveLocksAreNotRemoved: a lock without our owner mark (a
// git command's) and a lock whose owner is alive (another vaultmcp in the
// middle of a commit) are left alone, and a commit then fails with a clear
// error instead of waiting forever.
func TestForeignAndLiveLocksAreNotRemoved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	record(t, r, "write a.md", "a.md", "a\n")
	r.Close()
	gitDir := filepath.Join(dir, ".git")
	foreign := filepath.Join(gitDir, "index.lock")
	if err := os.WriteFile(foreign, []byte("git commit is running"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A live owner: this process holds its flock.
	live, err := store.TakeLock(gitDir, filepath.Join(gitDir, "refs", "heads", "main.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()

	var logs logBuffer
	r2 := openRepo(t, Options{Dir: dir, Logger: logs.logger()})
	if _, err := os.Stat(foreign); err != nil {
		t.Error("a foreign index.lock was removed")
	}
	if _, err := os.Stat(live.Path); err != nil {
		t.Error("a live process's ref lock was removed")
	}
	if !strings.Contains(logs.String(), "another git command is running") {
		t.Errorf("the foreign lock is not reported:\n%s", logs.String())
	}
	writeFile(t, dir, "b.md", "b\n")
	if _, err := r2.Commit(context.Background(), "write b.md", []string{"b.md"}); err == nil || !strings.Contains(err.Error(), "index.lock") {
		t.Errorf("Commit = %v, want a locked-index error", err)
	}
}

// TestTempFilesOfInterruptedWritesAreRemovedNeverCommitted: temporary
// files of atomic writes are never committed; those of a dead process are
// removed by the first sync, a live process's are left alone.
func TestTempFilesOfInterruptedWritesAreRemovedNeverCommitted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	record(t, r, "write a.md", "a.md", "a\n")
	stale := ".vaultmcp-" + strconv.Itoa(testutil.DeadPID(t)) + "-a.md-123.tmp"
	pullStale := "notes/.vaultmcp-" + strconv.Itoa(testutil.DeadPID(t)) + "-pull-9.tmp"
	liveTemp := ".vaultmcp-" + strconv.Itoa(os.Getppid()) + "-b.md-456.tmp"
	writeFile(t, dir, stale, "half a no")
	writeFile(t, dir, pullStale, "half")
	writeFile(t, dir, liveTemp, "being written")
	writeFile(t, dir, "notes/real.md", "real\n")
	if err := r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{stale, pullStale} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s not removed", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, liveTemp)); err != nil {
		t.Error("a live process's temporary file was removed")
	}
	if files := git(t, dir, "ls-tree", "-r", "--name-only", "HEAD"); files != "a.md\nnotes/real.md" {
		t.Errorf("committed files:\n%s", files)
	}
	// A folder commit skips them too.
	writeFile(t, dir, "notes/"+filepath.Base(liveTemp), "being written")
	if _, err := r.Commit(context.Background(), "notes", []string{"notes"}); err != nil {
		t.Fatal(err)
	}
	if files := git(t, dir, "ls-tree", "-r", "--name-only", "HEAD"); strings.Contains(files, ".vaultmcp-") {
		t.Errorf("a temporary file was committed:\n%s", files)
	}
}

// TestExternalChangesCommittedWhileRemoteIsDown: a file written while the
// remote is unreachable is committed by the sync all the same.
func TestExternalChangesCommittedWhileRemoteIsDown(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	if err := os.Rename(w.remote, w.remote+".away"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, w.vault, "written-before-a-crash.md", "acknowledged\n")
	if err := w.r.Sync(context.Background()); err == nil {
		t.Fatal("Sync succeeded with the remote away")
	}
	if got := git(t, w.vault, "log", "-1", "--format=%s"); got != ExternalChangesMessage {
		t.Errorf("head commit %q, want the external changes", got)
	}
	assertClean(t, w.vault)
}

// TestRecordIsDurable: with durability on (the default) a commit's files
// are flushed; this checks the commit path end to end with fsync on and
// that the flush sees every object and lock (no error from missing files).
func TestRecordIsDurable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openDurableRepo(t, Options{Dir: dir})
	if r.opts.NoFsync {
		t.Fatal("durability is off by default")
	}
	for i := 0; i < 5; i++ {
		record(t, r, "write n.md", "deep/er/n"+itoa(i)+".md", "n\n")
	}
	if got := len(r.obj.Written); got != 0 {
		t.Errorf("%d written objects never flushed", got)
	}
	assertClean(t, dir)
}

// logBuffer collects a Repo's log for assertions.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// TestBackupsOfInterruptedWritesAreRemoved: the backups a vault change
// keeps for undo (a hard link of the file it replaces, or the file it
// deletes moved aside) are left behind by a kill. At start a dead
// process's backups are removed — a deletion cut short stands as the disk
// showed it and is committed — a live process's is kept, and none is ever
// committed.
func TestBackupsOfInterruptedWritesAreRemoved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	record(t, r, "write a.md", "a.md", "a\n")
	record(t, r, "write b.md", "notes/b.md", "b\n")
	dead := strconv.Itoa(testutil.DeadPID(t))
	linked := ".vaultmcp-" + dead + "-a.md-123.bak"
	if err := os.Link(filepath.Join(dir, "a.md"), filepath.Join(dir, linked)); err != nil {
		t.Fatal(err)
	}
	movedAside := "notes/.vaultmcp-" + dead + "-b.md-456.bak"
	if err := os.Rename(filepath.Join(dir, "notes/b.md"), filepath.Join(dir, movedAside)); err != nil {
		t.Fatal(err)
	}
	live := ".vaultmcp-" + strconv.Itoa(os.Getppid()) + "-a.md-789.bak"
	writeFile(t, dir, live, "a\n")
	var logs logBuffer
	r.log = logs.logger()
	if err := r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{linked, movedAside} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s left behind", p)
		}
		if !strings.Contains(logs.String(), "path="+p) {
			t.Errorf("the removal of %s is not logged:\n%s", p, logs.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, live)); err != nil {
		t.Error("a live process's backup was removed")
	}
	if got, err := os.ReadFile(filepath.Join(dir, "a.md")); err != nil || string(got) != "a\n" {
		t.Errorf("a.md = %q, %v", got, err)
	}
	if files := git(t, dir, "ls-tree", "-r", "--name-only", "HEAD"); files != "a.md" {
		t.Errorf("committed files:\n%s", files)
	}
}

// TestLargeFilesAreLeftOutOfCommits: the external-changes scan never reads
// a file over MaxFileBytes (a 512 MB sparse file dropped into the vault
// was read whole before): it is left out of commits and logged, a tracked
// note grown past the limit keeps its committed version, and the scan's
// allocations stay far below the file's size.
func TestLargeFilesAreLeftOutOfCommits(t *testing.T) {
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir, MaxFileBytes: 1 << 20})
	record(t, r, "write grows.md", "grows.md", "small\n")
	f, err := os.Create(filepath.Join(dir, "huge.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(512 << 20); err != nil {
		f.Close()
		t.Skipf("no sparse file here: %v", err)
	}
	f.Close()
	writeFile(t, dir, "grows.md", strings.Repeat("x", 2<<20))
	writeFile(t, dir, "fits.md", strings.Repeat("y", 1<<20))
	var logs logBuffer
	r.log = logs.logger()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("the scan allocated %d MB", alloc>>20)
	}
	if files := git(t, dir, "ls-tree", "-r", "--name-only", "HEAD"); files != "fits.md\ngrows.md" {
		t.Errorf("committed files:\n%s", files)
	}
	if got := git(t, dir, "show", "HEAD:grows.md"); got != "small" {
		t.Errorf("grows.md in HEAD = %.20q, want its committed version", got)
	}
	for _, p := range []string{"huge.md", "grows.md"} {
		if !strings.Contains(logs.String(), "path="+p) || !strings.Contains(logs.String(), "larger than limits.max_note_bytes") {
			t.Errorf("%s left out without a log line:\n%s", p, logs.String())
		}
	}
	// Logged once, not at every sync.
	if err := r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "path=huge.md"); n != 1 {
		t.Errorf("huge.md logged %d times", n)
	}
}

// TestEmptyFetchedRefIsRecovered: go-git writes the fetched ref in place,
// so a kill in the middle of a fetch can leave its file empty, and every
// later fetch then failed with "ref file is empty" (the crash test ended
// so once). The next sync drops the empty file and fetches again.
func TestEmptyFetchedRefIsRecovered(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	w.write(t, "write a.md", "a.md", "a\n")
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(w.vault, ".git", filepath.FromSlash(w.r.fetchedRef().String()))
	if err := os.WriteFile(ref, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w.write(t, "write b.md", "b.md", "b\n")
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatalf("Sync after a fetched ref was left empty: %v", err)
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := git(t, w.remote, "rev-parse", "main"), git(t, w.vault, "rev-parse", "HEAD"); got != want {
		t.Errorf("the remote is at %s, the vault at %s", got, want)
	}
	assertClean(t, w.vault)
}
