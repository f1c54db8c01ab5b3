package gitsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	waitFor(t, "the loop's retry to be scheduled", func() bool { return !w.r.Status().NextPushRetry.IsZero() })
	if next := w.r.Status().NextPushRetry; time.Until(next) < declinedBackoff-time.Minute {
		t.Errorf("next push retry at %v, want about %v from now", next, declinedBackoff)
	}
	before := runs()
	// New commits do not make it try again meanwhile.
	for _, n := range []string{"b", "c", "d"} {
		w.write(t, "write "+n+".md", n+".md", n+"\n")
	}
	w.r.SyncNow()
	waitFor(t, "the sync asked for", func() bool { return w.r.Status().Ahead == 4 })
	if got := runs(); got != before {
		t.Errorf("the hook ran %d more times: the loop retried a declined push", got-before)
	}
}

// TestDeclinedPushOverHTTP: the same over smart HTTP (git http-backend),
// where the hook's message arrives on the side band.
func TestDeclinedPushOverHTTP(t *testing.T) {
	base := t.TempDir()
	repos := filepath.Join(base, "repos")
	remote := filepath.Join(repos, "vault.git")
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	git(t, remote, "config", "http.receivepack", "true")
	declineHook(t, remote)
	const token = "not-a-real-token"
	srv := gitHTTPServer(t, repos, token)
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
