package gitsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestSyncRespectsForcePushedPurge: someone purges secret.md from the
// remote's history and force-pushes. The next sync follows the rewrite:
// the note leaves the vault and is not pushed again, and our commit the
// remote never had is replayed on top.
func TestSyncRespectsForcePushedPurge(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	w.write(t, "write plan.md", "plan.md", "plan\n")
	w.write(t, "write secret.md", "secret.md", "password=hunter2\n")
	w.write(t, "write later.md", "later.md", "later\n")
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The laptop rewrites history without the secret.
	git(t, w.laptop, "pull", "-q", "--ff-only")
	git(t, w.laptop, "rebase", "-q", "--onto", "HEAD~2", "HEAD~1")
	if git(t, w.laptop, "log", "--all", "--format=%s", "main") == "" {
		t.Fatal("no history")
	}
	if _, err := os.Stat(filepath.Join(w.laptop, "secret.md")); err == nil {
		t.Fatal("rebase kept the secret")
	}
	git(t, w.laptop, "push", "-q", "--force", "origin", "main")
	// Meanwhile the server writes, unpushed.
	w.write(t, "write new.md", "new.md", "new\n")

	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.vault, "secret.md")); err == nil {
		t.Error("the purged note is back in the vault")
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	remoteFiles := git(t, w.remote, "log", "--format=", "--name-only", "main")
	if strings.Contains(remoteFiles, "secret.md") {
		t.Errorf("the purged note was pushed again; remote history touches:\n%s", remoteFiles)
	}
	if got, want := w.remoteLog(t), []string{"MCP: write new.md", "MCP: write later.md", "MCP: write plan.md", "MCP: write welcome.md"}; !slices.Equal(got, want) {
		t.Errorf("remote log = %q, want %q", got, want)
	}
	for _, f := range []string{"plan.md", "later.md", "new.md"} {
		if _, err := os.Stat(filepath.Join(w.vault, f)); err != nil {
			t.Errorf("%s lost: %v", f, err)
		}
	}
	w.assertSameEverywhere(t)
}

// TestSyncFollowsRemoteRewindOfPushedCommits: the remote is reset to an
// older commit, dropping commits we pushed; with nothing of ours unpushed
// the vault follows it instead of pushing them back.
func TestSyncFollowsRemoteRewindOfPushedCommits(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	w.write(t, "write dropped.md", "dropped.md", "x\n")
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	git(t, w.remote, "update-ref", "refs/heads/main", "main~1")
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.vault, "dropped.md")); err == nil {
		t.Error("the dropped note is still in the vault")
	}
	if st := w.r.Status(); st.Ahead != 0 {
		t.Errorf("ahead = %d after following the rewind; the dropped commit would be pushed again", st.Ahead)
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := w.remoteLog(t); !slices.Equal(got, []string{"MCP: write welcome.md"}) {
		t.Errorf("remote log = %q", got)
	}
	assertClean(t, w.vault)
}

// TestSyncReplaysOnlyTheOwnChangesOfAHandMadeMerge: a `git pull` (merge)
// made on the command line in the vault leaves a merge commit. When the
// remote moves on (here: deleting a note that came in through that merge,
// and editing another), the sync replays only our own commit, not the
// whole history, and does not bring the deleted note back.
func TestSyncReplaysOnlyTheOwnChangesOfAHandMadeMerge(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	for i := 0; i < 5; i++ {
		w.write(t, "write old"+itoa(i)+".md", "old"+itoa(i)+".md", "old\n")
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	git(t, w.laptop, "pull", "-q", "--ff-only")
	w.laptopCommit(t, "incoming.md", "from the laptop\n", "laptop adds incoming.md")
	w.laptopCommit(t, "shared.md", "one\ntwo\nthree\n", "laptop adds shared.md")
	// The server writes; then someone runs `git pull` (a merge) in the
	// vault by hand.
	w.write(t, "write mine.md", "mine.md", "mine\n")
	func() {
		w.lock.Lock()
		defer w.lock.Unlock()
		git(t, w.vault, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
	}()
	if n := git(t, w.vault, "rev-list", "--merges", "--count", "HEAD"); n != "1" {
		t.Fatalf("%s merge commits; the setup needs one", n)
	}
	// The laptop deletes what came in through the merge and edits.
	os.Remove(filepath.Join(w.laptop, "incoming.md"))
	w.laptopCommit(t, "shared.md", "one\ntwo (laptop)\nthree\n", "laptop deletes incoming.md, edits shared.md")
	remoteBefore := len(w.remoteLog(t))

	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.vault, "incoming.md")); err == nil {
		t.Error("incoming.md, deleted on the remote, came back through the merge's replay")
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	log := w.remoteLog(t)
	if len(log) != remoteBefore+1 || log[0] != "MCP: write mine.md" {
		t.Errorf("remote log after the sync = %q; want exactly our one commit on top of the %d before", log, remoteBefore)
	}
	if got := readFile(t, w.vault, "shared.md"); got != "one\ntwo (laptop)\nthree\n" {
		t.Errorf("shared.md = %q", got)
	}
	w.assertSameEverywhere(t)
}

// TestOursOnlyMatchesRevList checks the fork-point walk against git's
// rev-list on a history with merges and a rewritten remote.
func TestOursOnlyMatchesRevList(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	for i := 0; i < 3; i++ {
		w.write(t, "write a"+itoa(i), "a"+itoa(i)+".md", "a\n")
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	git(t, w.laptop, "pull", "-q", "--ff-only")
	w.laptopCommit(t, "l1.md", "l\n", "l1")
	w.write(t, "write b", "b.md", "b\n")
	func() {
		w.lock.Lock()
		defer w.lock.Unlock()
		git(t, w.vault, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
	}()
	w.write(t, "write c", "c.md", "c\n")
	git(t, w.laptop, "reset", "-q", "--hard", "HEAD~2")
	writeFile(t, w.laptop, "l2.md", "l\n")
	git(t, w.laptop, "add", "-A")
	git(t, w.laptop, "commit", "-q", "-m", "l2")
	git(t, w.laptop, "push", "-q", "--force", "origin", "main")
	if _, err := w.r.fetch(context.Background()); err != nil {
		t.Fatal(err)
	}
	local, _ := w.r.headHash()
	remote, _ := w.r.refHash(w.r.fetchedRef())
	tips := append([]plumbing.Hash{remote}, w.r.upstreamTips()...)
	got, err := w.r.oursOnly(local, tips)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"rev-list", "--topo-order", "--reverse", local.String()}
	for _, h := range tips {
		args = append(args, "^"+h.String())
	}
	want := strings.Split(git(t, w.vault, args...), "\n")
	var gotHashes []string
	for _, c := range got {
		gotHashes = append(gotHashes, c.Hash.String())
	}
	if !slices.Equal(sorted(gotHashes), sorted(want)) {
		t.Errorf("oursOnly = %q\nrev-list = %q", gotHashes, want)
	}
	// Parents before children.
	pos := map[string]int{}
	for i, c := range got {
		pos[c.Hash.String()] = i
	}
	for _, c := range got {
		for _, p := range c.ParentHashes {
			if j, ok := pos[p.String()]; ok && j > pos[c.Hash.String()] {
				t.Errorf("%s comes before its parent %s", c.Hash, p)
			}
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestPushNeverUndoesARemoteRewind: the remote is rewound to an older
// commit and we push before any pull. Our branch is a fast-forward of the
// rewound remote, so a plain push would put the dropped commit back; the
// push is rejected instead, the pull follows the rewind, and the next push
// carries only the new commit.
func TestPushNeverUndoesARemoteRewind(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	w.write(t, "write secret.md", "secret.md", "secret\n")
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	git(t, w.remote, "update-ref", "refs/heads/main", "main~1")
	w.write(t, "write new.md", "new.md", "new\n")
	if err := w.r.Push(context.Background()); !errors.Is(err, ErrRejected) {
		t.Fatalf("Push onto a rewound remote = %v, want ErrRejected", err)
	}
	if got := w.remoteLog(t); !slices.Equal(got, []string{"MCP: write welcome.md"}) {
		t.Fatalf("remote log = %q", got)
	}
	if err := w.r.pushWithPull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := w.remoteLog(t), []string{"MCP: write new.md", "MCP: write welcome.md"}; !slices.Equal(got, want) {
		t.Errorf("remote log = %q, want %q", got, want)
	}
	w.assertSameEverywhere(t)
}

// TestSyncWithinOneSecondReplaysNothing: commits made within the same
// second (a fast agent, a coarse clock) on top of an unchanged remote are
// not replayed by the next sync: their hashes stay. (A date-ordered
// ahead/behind walk miscounted such histories and replayed the newest
// commits.)
func TestSyncWithinOneSecondReplaysNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{NoPush: true})
	w.laptopCommit(t, "laptop.md", "laptop\n", "laptop note")
	sec, err := strconv.ParseInt(git(t, w.remote, "log", "-1", "--format=%ct", "main"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	same := time.Unix(sec, 0)
	w.r.opts.Now = func() time.Time { return same }
	w.write(t, "write s0.md", "s0.md", "s0\n")
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 6; i++ {
		w.write(t, "write s.md", "s"+itoa(i)+".md", "s\n")
	}
	head := git(t, w.vault, "rev-parse", "HEAD")
	for i := 0; i < 3; i++ {
		if err := w.r.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := git(t, w.vault, "rev-parse", "HEAD"); got != head {
			t.Fatalf("sync %d with the remote unchanged rewrote HEAD %s -> %s:\n%s", i, head, got, git(t, w.vault, "log", "--format=%h %ct %s"))
		}
	}
	if st := w.r.Status(); st.Ahead != 6 || st.Behind != 0 {
		t.Errorf("ahead %d behind %d, want 6 and 0\n%s", st.Ahead, st.Behind, git(t, w.vault, "log", "--all", "--graph", "--format=%h %ct %s %d"))
	}
}
