package gitsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vaultmcp/internal/testutil"
)

// world is a remote (bare repository on disk), the server's vault and a
// laptop (a clone driven by the git CLI).
type world struct {
	remote, vault, laptop string
	r                     *Repo
	changedMu             sync.Mutex
	changed               []string
	lock                  sync.Mutex // the vault's write lock
}

// newWorld makes an empty remote, opens the server's vault on it (an empty
// remote gives a fresh repository) and clones the laptop after the server's
// first push.
func newWorld(t *testing.T, opts Options) *world {
	t.Helper()
	return newWorldOpened(t, opts, openRepo)
}

// newWorldOpened is newWorld with the server's repository opened by open
// (openDurableRepo for one that flushes).
func newWorldOpened(t *testing.T, opts Options, open func(testing.TB, Options) *Repo) *world {
	t.Helper()
	base := t.TempDir()
	w := &world{
		remote: filepath.Join(base, "remote.git"),
		vault:  filepath.Join(base, "vault"),
		laptop: filepath.Join(base, "laptop"),
	}
	git(t, base, "init", "-q", "--bare", "-b", "main", w.remote)
	opts.Dir = w.vault
	opts.RemoteURL = w.remote
	opts.Locker = &w.lock
	opts.Changed = func(paths []string) {
		if w.lock.TryLock() {
			t.Error("Changed called without the vault lock held")
			w.lock.Unlock()
		}
		w.changedMu.Lock()
		w.changed = append(w.changed, paths...)
		w.changedMu.Unlock()
	}
	w.r = open(t, opts)
	w.write(t, "write welcome.md", "welcome.md", "# Welcome\n")
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatalf("first push: %v", err)
	}
	git(t, base, "clone", "-q", w.remote, w.laptop)
	return w
}

// write records a change the way the vault does: under the vault lock.
func (w *world) write(t *testing.T, summary, rel, content string) Result {
	t.Helper()
	w.lock.Lock()
	defer w.lock.Unlock()
	return record(t, w.r, summary, rel, content)
}

// laptopCommit commits a change on the laptop and pushes it.
func (w *world) laptopCommit(t *testing.T, rel, content, msg string) {
	t.Helper()
	writeFile(t, w.laptop, rel, content)
	git(t, w.laptop, "add", "-A")
	git(t, w.laptop, "commit", "-q", "-m", msg)
	git(t, w.laptop, "push", "-q", "origin", "main")
}

func (w *world) takeChanged() []string {
	w.changedMu.Lock()
	defer w.changedMu.Unlock()
	out := w.changed
	w.changed = nil
	slices.Sort(out)
	return out
}

// remoteLog is the subject lines of the remote branch, newest first.
func (w *world) remoteLog(t *testing.T) []string {
	return strings.Split(git(t, w.remote, "log", "--format=%s", "main"), "\n")
}

// assertSameEverywhere pulls the laptop and checks both worktrees hold the
// same files with the same content, the history is linear, and both are
// clean.
func (w *world) assertSameEverywhere(t *testing.T) {
	t.Helper()
	git(t, w.laptop, "pull", "-q", "--ff-only")
	if a, b := git(t, w.vault, "rev-parse", "HEAD"), git(t, w.laptop, "rev-parse", "HEAD"); a != b {
		t.Errorf("vault at %s, laptop at %s", a, b)
	}
	if got := git(t, w.remote, "rev-list", "--merges", "--count", "main"); got != "0" {
		t.Errorf("%s merge commits on the remote; history must stay linear", got)
	}
	files := strings.Split(git(t, w.vault, "ls-files"), "\n")
	for _, f := range files {
		if a, b := readFile(t, w.vault, f), readFile(t, w.laptop, f); a != b {
			t.Errorf("%s differs:\nvault:\n%s\nlaptop:\n%s", f, a, b)
		}
	}
	assertClean(t, w.vault)
	assertClean(t, w.laptop)
}

func TestPushOneCommitPerWrite(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	for _, n := range []string{"a", "b", "c"} {
		w.write(t, "write notes/"+n+".md", "notes/"+n+".md", n+"\n")
	}
	if got := w.r.Status().Ahead; got != 3 {
		t.Errorf("ahead = %d, want 3", got)
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{"MCP: write notes/c.md", "MCP: write notes/b.md", "MCP: write notes/a.md", "MCP: write welcome.md"}
	if got := w.remoteLog(t); !slices.Equal(got, want) {
		t.Errorf("remote log = %q, want %q", got, want)
	}
	st := w.r.Status()
	if st.Ahead != 0 || st.LastPush.IsZero() || st.LastPushError != "" || !st.RemoteConfigured {
		t.Errorf("status after push = %+v", st)
	}
	// The remote-tracking ref follows, for `git status` on the command line.
	if got := git(t, w.vault, "rev-parse", "origin/main"); got != git(t, w.vault, "rev-parse", "HEAD") {
		t.Errorf("origin/main = %s", got)
	}
	w.assertSameEverywhere(t)
}

func TestBackgroundPushCoalescesAndArrives(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.r.Start(ctx)
	testutil.WaitFor(t, "the first sync", func() bool { return !w.r.Status().LastSync.IsZero() })
	pushesBefore := w.pushes()
	// Hold the network side as a slow push would: the five commits made
	// meanwhile must leave in one push.
	w.r.netMu.Lock()
	for i, n := range []string{"a", "b", "c", "d", "e"} {
		w.write(t, "write "+n+".md", n+".md", strings.Repeat(n, i+1)+"\n")
	}
	w.r.netMu.Unlock()
	testutil.WaitFor(t, "the remote to have all 6 commits", func() bool { return len(w.remoteLog(t)) == 6 })
	testutil.WaitFor(t, "ahead to drop to 0", func() bool { return w.r.Status().Ahead == 0 })
	if got := w.pushes() - pushesBefore; got != 1 {
		t.Errorf("%d pushes for 5 commits, want 1", got)
	}
	w.assertSameEverywhere(t)
}

func (w *world) pushes() int {
	w.r.statMu.Lock()
	defer w.r.statMu.Unlock()
	return w.r.state.pushes
}

func TestCloneIntoEmptyFolder(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	remote := filepath.Join(base, "remote.git")
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	laptop := filepath.Join(base, "laptop")
	git(t, base, "clone", "-q", remote, laptop)
	writeFile(t, laptop, "notes/one.md", "one\n")
	writeFile(t, laptop, "two.md", "two\n")
	git(t, laptop, "add", "-A")
	git(t, laptop, "commit", "-q", "-m", "from the laptop")
	git(t, laptop, "push", "-q", "origin", "main")

	vault := filepath.Join(base, "vault")
	r := openRepo(t, Options{Dir: vault, RemoteURL: remote})
	if got := readFile(t, vault, "notes/one.md"); got != "one\n" {
		t.Errorf("cloned content = %q", got)
	}
	if r.Branch() != "main" || r.Status().Head == "" {
		t.Errorf("status after clone: %+v", r.Status())
	}
	assertClean(t, vault)
	res := record(t, r, "edit two.md", "two.md", "two, edited\n")
	if !res.Created {
		t.Fatal("no commit")
	}
	if err := r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	git(t, laptop, "pull", "-q", "--ff-only")
	if got := readFile(t, laptop, "two.md"); got != "two, edited\n" {
		t.Errorf("laptop has %q", got)
	}
}

func TestFastForwardTouchesOnlyChangedFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	for _, n := range []string{"a", "b", "c"} {
		w.write(t, "write "+n+".md", n+".md", n+"\n")
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	git(t, w.laptop, "pull", "-q")
	before, _ := os.Stat(filepath.Join(w.vault, "a.md"))
	w.laptopCommit(t, "b.md", "b from the laptop\n", "laptop edits b")
	os.Remove(filepath.Join(w.laptop, "c.md"))
	w.laptopCommit(t, "new/d.md", "d\n", "laptop adds d, deletes c")
	w.takeChanged()
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := w.takeChanged(), []string{"b.md", "c.md", "new/d.md"}; !slices.Equal(got, want) {
		t.Errorf("Changed got %q, want %q", got, want)
	}
	after, _ := os.Stat(filepath.Join(w.vault, "a.md"))
	if !after.ModTime().Equal(before.ModTime()) {
		t.Error("an unchanged file was rewritten")
	}
	if _, err := os.Stat(filepath.Join(w.vault, "c.md")); !os.IsNotExist(err) {
		t.Error("c.md still in the vault")
	}
	st := w.r.Status()
	if st.Behind != 0 || st.Ahead != 0 || st.LastSync.IsZero() || st.LastPullError != "" {
		t.Errorf("status = %+v", st)
	}
	w.assertSameEverywhere(t)
}

func TestSyncReplaysOurCommitsOnTopOfTheRemote(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	w.laptopCommit(t, "laptop.md", "from the laptop\n", "laptop note")
	w.write(t, "write server1.md", "server1.md", "1\n")
	w.write(t, "write server2.md", "server2.md", "2\n")
	if err := w.r.Push(context.Background()); !errors.Is(err, ErrRejected) {
		t.Fatalf("push over a moved remote: %v, want ErrRejected", err)
	}
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{"MCP: write server2.md", "MCP: write server1.md", "laptop note", "MCP: write welcome.md"}
	if got := w.remoteLog(t); !slices.Equal(got, want) {
		t.Errorf("remote log = %q, want %q", got, want)
	}
	w.assertSameEverywhere(t)
}

func TestSyncMergesEditsInDifferentPlaces(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	base := "# Plan\n\nline 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n"
	w.write(t, "write plan.md", "plan.md", base)
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	git(t, w.laptop, "pull", "-q")
	w.laptopCommit(t, "plan.md", strings.Replace(base, "line 2\n", "line 2 (laptop)\n", 1), "laptop edits the top")
	w.write(t, "edit plan.md", "plan.md", strings.Replace(base, "line 7\n", "line 7 (server)\n", 1)+"line 9 (server)\n")
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "# Plan\n\nline 1\nline 2 (laptop)\nline 3\nline 4\nline 5\nline 6\nline 7 (server)\nline 8\nline 9 (server)\n"
	if got := readFile(t, w.vault, "plan.md"); got != want {
		t.Errorf("merged:\n%s\nwant:\n%s", got, want)
	}
	if got := w.takeChanged(); !slices.Equal(got, []string{"plan.md"}) {
		t.Errorf("Changed = %q", got)
	}
	if c := w.r.Status().PendingConflicts; len(c) != 0 {
		t.Errorf("conflicts: %q", c)
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.assertSameEverywhere(t)
}

// conflictName matches "name (conflict YYYY-MM-DD HHMM).md".
var conflictNameRE = regexp.MustCompile(`^plan \(conflict \d{4}-\d{2}-\d{2} \d{4}\)\.md$`)

func TestSyncKeepsBothVersionsOnCollision(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	base := "# Plan\nStatus: planning\nOwner: me\n"
	w.write(t, "write plan.md", "plan.md", base)
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	git(t, w.laptop, "pull", "-q")
	laptopText := "# Plan\nStatus: blocked\nOwner: me\n"
	serverText := "# Plan\nStatus: in progress\nOwner: me\n"
	w.laptopCommit(t, "plan.md", laptopText, "laptop says blocked")
	w.write(t, "edit plan.md", "plan.md", serverText)
	w.write(t, "edit plan.md", "plan.md", serverText+"More from the server.\n")
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, w.vault, "plan.md"); got != laptopText {
		t.Errorf("plan.md = %q, want the remote's version", got)
	}
	conflicts := w.r.Status().PendingConflicts
	if len(conflicts) != 1 || !conflictNameRE.MatchString(conflicts[0]) {
		t.Fatalf("pending conflicts = %q", conflicts)
	}
	if got := readFile(t, w.vault, conflicts[0]); got != serverText+"More from the server.\n" {
		t.Errorf("conflict copy = %q, want our latest version", got)
	}
	if got := w.takeChanged(); !slices.Equal(got, []string{conflicts[0], "plan.md"}) {
		t.Errorf("Changed = %q", got)
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.assertSameEverywhere(t)
	// Both commits of ours are kept, following the note into the copy.
	log := w.remoteLog(t)
	if !slices.Equal(log[:3], []string{"MCP: edit plan.md", "MCP: edit plan.md", "laptop says blocked"}) {
		t.Errorf("remote log = %q", log)
	}
	// The user resolves it by deleting the copy.
	w.lock.Lock()
	os.Remove(filepath.Join(w.vault, conflicts[0]))
	w.r.Commit(context.Background(), "delete "+conflicts[0], conflicts[:1])
	w.lock.Unlock()
	if c := w.r.Status().PendingConflicts; len(c) != 0 {
		t.Errorf("conflicts after resolving: %q", c)
	}
}

func TestSyncDeleteAgainstEdit(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	w.write(t, "write a.md", "a.md", "a\n")
	w.write(t, "write b.md", "b.md", "b\n")
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	git(t, w.laptop, "pull", "-q")
	// The laptop deletes a.md and edits b.md; the server edits a.md and
	// deletes b.md. Edits win: nothing is lost.
	os.Remove(filepath.Join(w.laptop, "a.md"))
	w.laptopCommit(t, "b.md", "b edited on the laptop\n", "laptop")
	w.write(t, "edit a.md", "a.md", "a edited on the server\n")
	w.lock.Lock()
	os.Remove(filepath.Join(w.vault, "b.md"))
	w.r.Commit(context.Background(), "delete b.md", []string{"b.md"})
	w.lock.Unlock()
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, w.vault, "a.md"); got != "a edited on the server\n" {
		t.Errorf("a.md = %q", got)
	}
	if got := readFile(t, w.vault, "b.md"); got != "b edited on the laptop\n" {
		t.Errorf("b.md = %q", got)
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.assertSameEverywhere(t)
}

// TestSyncFollowsARemoteRename: a note the laptop renamed (moved as it
// was) while the server edited it keeps the server's edits at its new
// name; the old name does not come back beside it. A note renamed and
// changed on the laptop, one deleted there, a rename whose content
// several new files share, and an empty note are not guessed at: the server's version stays
// at the old name, as before.
func TestSyncFollowsARemoteRename(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	for _, n := range []string{"moved", "changed", "deleted", "twin"} {
		w.write(t, "write "+n+".md", n+".md", "# "+n+"\n\nfirst line\n")
	}
	w.write(t, "write empty.md", "empty.md", "")
	w.write(t, "write other.md", "other.md", "# other\n")
	// Two notes made from one template, byte for byte the same.
	w.write(t, "write tplA.md", "tplA.md", "# Meeting\n\nAgenda\n")
	w.write(t, "write tplB.md", "tplB.md", "# Meeting\n\nAgenda\n")
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	git(t, w.laptop, "pull", "-q")
	if err := os.Mkdir(filepath.Join(w.laptop, "Archive"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, w.laptop, "mv", "moved.md", "Archive/moved.md")
	git(t, w.laptop, "mv", "changed.md", "changed2.md")
	writeFile(t, w.laptop, "changed2.md", "# changed\n\nfirst line, on the laptop\n")
	git(t, w.laptop, "rm", "-q", "deleted.md")
	git(t, w.laptop, "mv", "twin.md", "twin1.md")
	writeFile(t, w.laptop, "twin2.md", "# twin\n\nfirst line\n")
	// An empty note deleted and another made: no rename, though the
	// contents match.
	git(t, w.laptop, "rm", "-q", "empty.md")
	writeFile(t, w.laptop, "Inbox/blank.md", "")
	// One template note moved, its twin deleted: which of ours moved is
	// not known, so neither is followed.
	git(t, w.laptop, "mv", "tplA.md", "Archive/tplA.md")
	git(t, w.laptop, "rm", "-q", "tplB.md")
	w.laptopCommit(t, "other.md", "# other, on the laptop\n", "laptop renames")

	// Two commits on the moved note: the second follows the first.
	w.write(t, "edit moved.md", "moved.md", "# moved\n\nfirst line\nthe server's line\n")
	w.write(t, "edit moved.md again", "moved.md", "# moved\n\nfirst line\nthe server's line\nand another\n")
	for _, n := range []string{"changed", "deleted", "twin", "empty", "tplB", "tplA"} {
		w.write(t, "edit "+n+".md", n+".md", "# "+n+"\n\nfirst line\nthe server's line\n")
	}
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Archive/moved.md": "# moved\n\nfirst line\nthe server's line\nand another\n",
		"changed2.md":      "# changed\n\nfirst line, on the laptop\n",
		"changed.md":       "# changed\n\nfirst line\nthe server's line\n",
		"deleted.md":       "# deleted\n\nfirst line\nthe server's line\n",
		"twin.md":          "# twin\n\nfirst line\nthe server's line\n",
		"twin1.md":         "# twin\n\nfirst line\n",
		"twin2.md":         "# twin\n\nfirst line\n",
		"other.md":         "# other, on the laptop\n",
		"empty.md":         "# empty\n\nfirst line\nthe server's line\n",
		"Inbox/blank.md":   "",
		"Archive/tplA.md":  "# Meeting\n\nAgenda\n",
		"tplA.md":          "# tplA\n\nfirst line\nthe server's line\n",
		"tplB.md":          "# tplB\n\nfirst line\nthe server's line\n",
	}
	for rel, content := range want {
		if got := readFile(t, w.vault, rel); got != content {
			t.Errorf("%s = %q, want %q", rel, got, content)
		}
	}
	if _, err := os.Stat(filepath.Join(w.vault, "moved.md")); err == nil {
		t.Error("moved.md came back beside Archive/moved.md")
	}
	for _, f := range strings.Split(git(t, w.vault, "ls-files"), "\n") {
		if _, ok := want[f]; !ok && f != "welcome.md" {
			t.Errorf("%s is tracked", f)
		}
	}
	if c := w.r.Status().PendingConflicts; len(c) != 0 {
		t.Errorf("conflicts %q", c)
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.assertSameEverywhere(t)
	if got := git(t, w.vault, "log", "--format=%s", "-2", "--", "Archive/moved.md"); got != "MCP: edit moved.md again\nMCP: edit moved.md" {
		t.Errorf("history of Archive/moved.md:\n%s", got)
	}
}

func TestExternalChangesAreCommitted(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	w.write(t, "write keep.md", "keep.md", "keep\n")
	w.write(t, "write gone.md", "gone.md", "gone\n")
	// Obsidian on the same disk: an edit, a new note, a deletion, and an
	// ignored workspace file.
	writeFile(t, w.vault, ".gitignore", ".obsidian/workspace.json\n")
	writeFile(t, w.vault, "keep.md", "keep, edited in Obsidian\n")
	writeFile(t, w.vault, "Inbox/new note.md", "new\n")
	writeFile(t, w.vault, ".obsidian/workspace.json", "{}")
	os.Remove(filepath.Join(w.vault, "gone.md"))
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := git(t, w.vault, "log", "-1", "--format=%s"); got != ExternalChangesMessage {
		t.Errorf("last commit %q", got)
	}
	got := git(t, w.vault, "show", "--name-status", "--format=", "HEAD")
	want := "A\t.gitignore\nA\tInbox/new note.md\nD\tgone.md\nM\tkeep.md"
	if got != want {
		t.Errorf("external commit:\n%s\nwant:\n%s", got, want)
	}
	assertClean(t, w.vault)
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.assertSameEverywhere(t)
	// Nothing new: no commit.
	head := git(t, w.vault, "rev-parse", "HEAD")
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if git(t, w.vault, "rev-parse", "HEAD") != head {
		t.Error("a sync without changes made a commit")
	}
}

func TestExternalChangesWithoutRemote(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "existing.md", "was here before the server\n")
	r := openRepo(t, Options{Dir: dir})
	if err := r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "log", "--format=%s"); got != ExternalChangesMessage {
		t.Errorf("log = %q", got)
	}
	assertClean(t, dir)
}

func TestRemoteUnavailableLosesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	away := w.remote + ".away"
	if err := os.Rename(w.remote, away); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.r.Start(ctx)
	for _, n := range []string{"a", "b", "c"} {
		w.write(t, "write "+n+".md", n+".md", n+"\n")
	}
	testutil.WaitFor(t, "a push error in the status", func() bool { return w.r.Status().LastPushError != "" })
	st := w.r.Status()
	if st.Ahead != 3 {
		t.Errorf("ahead = %d, want 3", st.Ahead)
	}
	if strings.Contains(st.LastPushError, w.vault) {
		t.Errorf("push error shows the vault's path: %s", st.LastPushError)
	}
	if err := os.Rename(away, w.remote); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, "the commits to reach the remote", func() bool { return len(w.remoteLog(t)) == 4 })
	testutil.WaitFor(t, "the push error to clear", func() bool { return w.r.Status().LastPushError == "" })
	w.assertSameEverywhere(t)
}

func TestRejectedPushPullsAndPushesAgain(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{SyncInterval: -1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.r.Start(ctx)
	testutil.WaitFor(t, "the first sync", func() bool { return !w.r.Status().LastSync.IsZero() })
	w.laptopCommit(t, "laptop.md", "laptop\n", "laptop note")
	w.write(t, "write server.md", "server.md", "server\n")
	testutil.WaitFor(t, "both commits on the remote", func() bool { return len(w.remoteLog(t)) == 3 })
	w.assertSameEverywhere(t)
}

// TestConcurrentEditsBothSides runs the server's writes and the laptop's
// commits at the same time, with the background sync on, and checks that
// after a final sync both sides have every change.
func TestConcurrentEditsBothSides(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{SyncInterval: 300 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.r.Start(ctx)
	// The server writes two notes per laptop push, so both sides' commits
	// interleave however the machine schedules them, without a sleep.
	pushed := make(chan struct{}, 10)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			w.write(t, "write server/n"+itoa(i)+".md", "server/n"+itoa(i)+".md", "s"+itoa(i)+"\n")
			if i%2 == 1 {
				<-pushed
			}
		}
	}()
	for i := 0; i < 10; i++ {
		writeFile(t, w.laptop, "laptop/n"+itoa(i)+".md", "l"+itoa(i)+"\n")
		git(t, w.laptop, "add", "-A")
		git(t, w.laptop, "commit", "-q", "-m", "laptop "+itoa(i))
		for {
			if _, err := gitErr(w.laptop, "push", "-q", "origin", "main"); err == nil {
				break
			}
			git(t, w.laptop, "pull", "-q", "--rebase")
		}
		pushed <- struct{}{}
	}
	wg.Wait()
	testutil.WaitFor(t, "all 31 commits on the remote, and the vault at the remote's head", func() bool {
		w.r.SyncNow()
		return len(w.remoteLog(t)) == 31 && w.r.Status().Ahead == 0 &&
			git(t, w.remote, "rev-parse", "main") == git(t, w.vault, "rev-parse", "HEAD")
	})
	w.assertSameEverywhere(t)
	for i := 0; i < 20; i++ {
		if got := readFile(t, w.laptop, "server/n"+itoa(i)+".md"); got != "s"+itoa(i)+"\n" {
			t.Errorf("server/n%d.md = %q", i, got)
		}
	}
	for i := 0; i < 10; i++ {
		if got := readFile(t, w.vault, "laptop/n"+itoa(i)+".md"); got != "l"+itoa(i)+"\n" {
			t.Errorf("laptop/n%d.md = %q", i, got)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestAdoptFolderWithNotes opens a vault that has notes but no repository
// while the remote already has a history: everything is kept, identical
// notes merge silently, differing ones get a conflict copy.
func TestAdoptFolderWithNotes(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	remote := filepath.Join(base, "remote.git")
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	laptop := filepath.Join(base, "laptop")
	git(t, base, "clone", "-q", remote, laptop)
	writeFile(t, laptop, "same.md", "same\n")
	writeFile(t, laptop, "plan.md", "laptop plan\n")
	writeFile(t, laptop, "laptop-only.md", "l\n")
	git(t, laptop, "add", "-A")
	git(t, laptop, "commit", "-q", "-m", "laptop history")
	git(t, laptop, "push", "-q", "origin", "main")

	vault := filepath.Join(base, "vault")
	writeFile(t, vault, "same.md", "same\n")
	writeFile(t, vault, "plan.md", "server plan\n")
	writeFile(t, vault, "server-only.md", "s\n")
	r := openRepo(t, Options{Dir: vault, RemoteURL: remote})
	if err := r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	conflicts := r.Status().PendingConflicts
	if len(conflicts) != 1 || !conflictNameRE.MatchString(conflicts[0]) {
		t.Fatalf("conflicts = %q", conflicts)
	}
	for f, want := range map[string]string{
		"same.md": "same\n", "plan.md": "laptop plan\n", conflicts[0]: "server plan\n",
		"laptop-only.md": "l\n", "server-only.md": "s\n",
	} {
		if got := readFile(t, vault, f); got != want {
			t.Errorf("%s = %q, want %q", f, got, want)
		}
	}
	assertClean(t, vault)
	git(t, laptop, "pull", "-q", "--ff-only")
	if got := readFile(t, laptop, "server-only.md"); got != "s\n" {
		t.Errorf("laptop server-only.md = %q", got)
	}
}

func TestCommitExternal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	record(t, r, "write a.md", "a.md", "a\n")
	writeFile(t, dir, "a.md", "edited in Obsidian\n")
	res, err := r.CommitExternal(context.Background(), []string{"a.md"})
	if err != nil || !res.Created {
		t.Fatalf("CommitExternal = %+v, %v", res, err)
	}
	if got := git(t, dir, "log", "-1", "--format=%s"); got != ExternalChangesMessage {
		t.Errorf("message %q", got)
	}
	assertClean(t, dir)
}

func conflictRE(name string) *regexp.Regexp {
	return regexp.MustCompile("^" + regexp.QuoteMeta(name) + ` \(conflict \d{4}-\d{2}-\d{2} \d{4}\)`)
}

// TestSyncFileAgainstFolder: the remote turned a note into a folder while
// the server edited the note, and the other way round. Both sides stay.
func TestSyncFileAgainstFolder(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	w.write(t, "write Projects", "Projects", "a note without extension\n")
	w.write(t, "write Ideas", "Ideas", "ideas\n")
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	git(t, w.laptop, "pull", "-q")
	// Laptop: Projects becomes a folder; Ideas is edited.
	git(t, w.laptop, "rm", "-q", "Projects")
	writeFile(t, w.laptop, "Projects/alpha.md", "alpha\n")
	w.laptopCommit(t, "Ideas", "ideas, edited on the laptop\n", "laptop reshapes")
	// Server: edits Projects; Ideas becomes a folder.
	w.write(t, "edit Projects", "Projects", "edited on the server\n")
	w.lock.Lock()
	os.Remove(filepath.Join(w.vault, "Ideas"))
	writeFile(t, w.vault, "Ideas/one.md", "one\n")
	if _, err := w.r.Commit(context.Background(), "rename Ideas -> Ideas/one.md", []string{"Ideas", "Ideas/one.md"}); err != nil {
		t.Fatal(err)
	}
	w.lock.Unlock()
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, w.vault, "Projects/alpha.md"); got != "alpha\n" {
		t.Errorf("Projects/alpha.md = %q", got)
	}
	if got := readFile(t, w.vault, "Ideas"); got != "ideas, edited on the laptop\n" {
		t.Errorf("Ideas = %q", got)
	}
	conflicts := w.r.Status().PendingConflicts
	slices.Sort(conflicts)
	if len(conflicts) != 2 || !conflictRE("Ideas").MatchString(conflicts[0]) || !conflictRE("Projects").MatchString(conflicts[1]) {
		t.Fatalf("conflicts = %q", conflicts)
	}
	if got := readFile(t, w.vault, conflicts[1]); got != "edited on the server\n" {
		t.Errorf("%s = %q", conflicts[1], got)
	}
	if !strings.HasSuffix(conflicts[0], "/one.md") || readFile(t, w.vault, conflicts[0]) != "one\n" {
		t.Errorf("our Ideas/one.md went to %q", conflicts[0])
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.assertSameEverywhere(t)
}

// TestPullMovesAsideAFolderInTheWay: a pulled file replaces a folder that
// still holds ignored files; the folder is moved aside, not deleted.
func TestPullMovesAsideAFolderInTheWay(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	w.write(t, "write .gitignore", ".gitignore", "*.tmp\n")
	w.write(t, "write box/a.md", "box/a.md", "a\n")
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	writeFile(t, w.vault, "box/cache.tmp", "precious scratch\n")
	git(t, w.laptop, "pull", "-q")
	git(t, w.laptop, "rm", "-q", "-r", "box")
	w.laptopCommit(t, "box", "box is a file now\n", "laptop: box becomes a file")
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, w.vault, "box"); got != "box is a file now\n" {
		t.Errorf("box = %q", got)
	}
	conflicts := w.r.Status().PendingConflicts
	if len(conflicts) != 1 || !conflictRE("box").MatchString(conflicts[0]) {
		t.Fatalf("conflicts = %q", conflicts)
	}
	if got := readFile(t, w.vault, conflicts[0]+"/cache.tmp"); got != "precious scratch\n" {
		t.Errorf("the ignored file was not kept: %q", got)
	}
}

// A pull whose last flush fails after the branch moved still counts: the
// pulled files are in place, the index is told of them, the head and the
// tracking branch follow, and the error says what may not be on disk.
func TestPullFlushFailsAfterTheBranchMoved(t *testing.T) {
	t.Parallel()
	w := newWorldOpened(t, Options{SyncInterval: -1}, openDurableRepo)
	w.laptopCommit(t, "laptop.md", "from the laptop\n", "laptop adds a note")
	w.takeChanged()
	fault := errors.New("injected: input/output error")
	w.r.testHooks.Store(&testHooks{flushFault: failRefFlush(fault)})
	err := w.r.Sync(context.Background())
	w.r.testHooks.Store(nil)
	if !errors.Is(err, fault) || !strings.Contains(err.Error(), "pull: the branch moved to") || !strings.Contains(err.Error(), "may not survive a power loss") {
		t.Fatalf("Sync: %v, want the pull's flush failure", err)
	}
	if got := readFile(t, w.vault, "laptop.md"); got != "from the laptop\n" {
		t.Errorf("laptop.md = %q", got)
	}
	if got := w.takeChanged(); !slices.Equal(got, []string{"laptop.md"}) {
		t.Errorf("Changed got %q, want the pulled file", got)
	}
	if st := w.r.Status(); st.Behind != 0 || st.Ahead != 0 {
		t.Errorf("status = %+v, want even with the remote", st)
	}
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatalf("the next sync: %v", err)
	}
	w.assertSameEverywhere(t)
}

// TestSyncFollowsARemoteRenameOnlyWhereItIsOurs: the remote renamed a.md
// and c.md while we changed them. Our a.md was edited, deleted, then made
// anew: the new note stays at a.md and the remote's b.md goes with the
// deletion. Our c.md edit came in the commit that also wrote d.md, the
// remote's new name for it: the edit stays at c.md rather than overwrite
// our own d.md.
func TestSyncFollowsARemoteRenameOnlyWhereItIsOurs(t *testing.T) {
	w := newWorld(t, Options{})
	w.write(t, "write a.md", "a.md", "# a\n\nfirst line\n")
	w.write(t, "write c.md", "c.md", "# c\n\nfirst line\n")
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	git(t, w.laptop, "pull", "-q")
	git(t, w.laptop, "mv", "a.md", "b.md")
	git(t, w.laptop, "mv", "c.md", "d.md")
	w.laptopCommit(t, "other.md", "x\n", "laptop renames")

	// a.md: edited, deleted, then a new note under the old name.
	w.write(t, "edit a.md", "a.md", "# a\n\nfirst line\nedit\n")
	w.lock.Lock()
	os.Remove(filepath.Join(w.vault, "a.md"))
	if _, err := w.r.Commit(context.Background(), "delete a.md", []string{"a.md"}); err != nil {
		t.Fatal(err)
	}
	w.lock.Unlock()
	w.write(t, "new a.md", "a.md", "a brand new note\n")
	// c.md edited in the same commit that writes d.md itself.
	w.lock.Lock()
	writeFile(t, w.vault, "c.md", "# c\n\nfirst line\nedit\n")
	writeFile(t, w.vault, "d.md", "ours at d\n")
	if _, err := w.r.Commit(context.Background(), "edit c and write d", []string{"c.md", "d.md"}); err != nil {
		t.Fatal(err)
	}
	w.lock.Unlock()

	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{"a.md": "a brand new note\n", "c.md": "# c\n\nfirst line\nedit\n"} {
		if got := readFile(t, w.vault, rel); got != want {
			t.Errorf("%s = %q, want %q", rel, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(w.vault, "b.md")); err == nil {
		t.Errorf("b.md = %q, want it deleted with a.md", readFile(t, w.vault, "b.md"))
	}
}
