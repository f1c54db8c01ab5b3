package gitsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vaultmcp/internal/testutil"
)

// declineHook installs a pre-receive hook in the bare repository that
// refuses every push with a forge-like message and counts its runs.
func declineHook(t *testing.T, remote string) (runs func() int) {
	t.Helper()
	count := filepath.Join(t.TempDir(), "runs")
	hook := "#!/bin/sh\necho run >> " + count + "\necho 'GitLab: You are not allowed to push code to protected branches on this project.' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(remote, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	return func() int {
		data, _ := os.ReadFile(count)
		return strings.Count(string(data), "run")
	}
}

// TestDeclinedPushSaysWhy: a push a server hook declines (a protected
// branch) is reported as that, with the remote's own message, not as "the
// remote has new commits"; the loop waits minutes before trying again
// instead of pulling and pushing in a loop.
func TestDeclinedPushSaysWhy(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{SyncInterval: -1})
	runs := declineHook(t, w.remote)
	w.write(t, "write a.md", "a.md", "a\n")
	err := w.r.Push(context.Background())
	var declined *PushDeclinedError
	if !errors.As(err, &declined) || errors.Is(err, ErrRejected) {
		t.Fatalf("Push = %v, want a PushDeclinedError", err)
	}
	if !strings.Contains(declined.Reason, "pre-receive hook declined") || !strings.Contains(declined.Message, "not allowed to push code to protected branches") {
		t.Errorf("declined = %+v", declined)
	}
	st := w.r.Status()
	if !strings.Contains(st.LastPushError, "declined") || !strings.Contains(st.LastPushError, "protected branches") || strings.Contains(st.LastPushError, "new commits") {
		t.Errorf("LastPushError = %q", st.LastPushError)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.r.Start(ctx)
	testutil.WaitFor(t, "the loop's retry to be scheduled", func() bool { return !w.r.Status().NextPushRetry.IsZero() })
	if next := w.r.Status().NextPushRetry; time.Until(next) < declinedBackoff-time.Minute {
		t.Errorf("next push retry at %v, want about %v from now", next, declinedBackoff)
	}
	before := runs()
	// New commits do not make it try again meanwhile.
	for _, n := range []string{"b", "c", "d"} {
		w.write(t, "write "+n+".md", n+".md", n+"\n")
	}
	w.r.SyncNow()
	testutil.WaitFor(t, "the sync asked for", func() bool { return w.r.Status().Ahead == 4 })
	if got := runs(); got != before {
		t.Errorf("the hook ran %d more times: the loop retried a declined push", got-before)
	}
}

// TestDeclinedPushOverHTTP: the same over smart HTTP (git http-backend),
// where the hook's message arrives on the side band.
func TestDeclinedPushOverHTTP(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	repos := filepath.Join(base, "repos")
	remote := filepath.Join(repos, "vault.git")
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	git(t, remote, "config", "http.receivepack", "true")
	declineHook(t, remote)
	const token = "not-a-real-token"
	srv := testutil.GitHTTPServer(t, repos, token)
	r := openRepo(t, Options{Dir: filepath.Join(base, "vault"), RemoteURL: srv.URL + "/vault.git", Auth: Auth{Token: token}})
	record(t, r, "write a.md", "a.md", "a\n")
	err := r.Push(context.Background())
	var declined *PushDeclinedError
	if !errors.As(err, &declined) || !strings.Contains(declined.Message, "protected branches") {
		t.Fatalf("Push over HTTP = %v, want a PushDeclinedError with the hook's message", err)
	}
	if strings.Contains(err.Error(), token) {
		t.Errorf("error shows the token: %v", err)
	}
}

// TestPushSendsEveryObjectOfARevertedTree: a folder that changes and
// changes back within one push (tree T, then O, then T again) must not
// make the push skip the objects that first came in with T. (The object
// walk used to go newest first and skip a tree it had already seen, which
// it had only compared against O: the new subfolder was never sent, and
// the remote refused the push as "missing necessary objects".)
func TestPushSendsEveryObjectOfARevertedTree(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	writeFile(t, w.vault, "lane/sub/s.md", "new in the first commit\n")
	writeFile(t, w.vault, "lane/a.md", "A\n")
	w.lock.Lock()
	if _, err := w.r.Commit(context.Background(), "add lane", []string{"lane"}); err != nil {
		t.Fatal(err)
	}
	w.lock.Unlock()
	w.write(t, "edit a", "lane/a.md", "A2\n")
	w.write(t, "edit a back", "lane/a.md", "A\n")
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatalf("push: %v", err)
	}
	if out, err := gitErr(w.remote, "fsck", "--strict"); err != nil {
		t.Errorf("remote fsck: %v\n%s", err, out)
	}
	w.assertSameEverywhere(t)
}

// TestPushFileBecomesFolder: a note replaced by a folder of the same name
// in one push.
func TestPushFileBecomesFolder(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	w.write(t, "write x", "x", "a file\n")
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(w.vault, "x")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, w.vault, "x/inside.md", "now a folder\n")
	w.lock.Lock()
	if _, err := w.r.Commit(context.Background(), "x is a folder", []string{"x"}); err != nil {
		t.Fatal(err)
	}
	w.lock.Unlock()
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatalf("push: %v", err)
	}
	w.assertSameEverywhere(t)
}

// TestPushBlockedByARemoteLock: a branch lock file left on the remote (a
// push killed mid-update) is reported as that, naming the file, and not
// as "the remote has new commits", which would send the loop pulling and
// pushing to no end.
func TestPushBlockedByARemoteLock(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{SyncInterval: -1})
	w.write(t, "write a.md", "a.md", "a\n")
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(w.remote, "refs", "heads", "main.lock")
	if err := os.WriteFile(lock, []byte(git(t, w.remote, "rev-parse", "HEAD")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.write(t, "write b.md", "b.md", "b\n")
	err := w.r.Push(context.Background())
	var locked *RemoteLockedError
	if !errors.As(err, &locked) || errors.Is(err, ErrRejected) {
		t.Fatalf("Push = %v, want a RemoteLockedError", err)
	}
	if want := filepath.Join(w.remote, "refs", "heads", "main.lock"); locked.Lock != want {
		t.Errorf("Lock = %q, want %q", locked.Lock, want)
	}
	if st := w.r.Status(); !strings.Contains(st.LastPushError, "main.lock exists") || strings.Contains(st.LastPushError, "new commits") {
		t.Errorf("LastPushError = %q", st.LastPushError)
	}
	// Once the file is gone, the next push goes through.
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatalf("push after the lock is gone: %v", err)
	}
}

func TestLockInTheWay(t *testing.T) {
	for _, c := range []struct {
		said, lock string
		ok         bool
	}{
		{"error: cannot lock ref 'refs/heads/main': Unable to create '/srv/v.git/./refs/heads/main.lock': File exists.\n\nAnother git process seems to be running", "/srv/v.git/refs/heads/main.lock", true},
		{"error: cannot lock ref 'refs/heads/main': is at 1111 but expected 2222", "", false},
		{"Unable to create '/srv/v.git/index.lock': Permission denied", "", false},
		{"", "", false},
	} {
		lock, ok := lockInTheWay(c.said)
		if lock != c.lock || ok != c.ok {
			t.Errorf("lockInTheWay(%q) = %q, %v; want %q, %v", c.said, lock, ok, c.lock, c.ok)
		}
	}
}
