package testutil

import (
	"net/http"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

func TestWaitFor(t *testing.T) {
	calls := 0
	WaitFor(t, "the third call", func() bool { calls++; return calls == 3 })
	if calls != 3 {
		t.Errorf("cond called %d times, want 3", calls)
	}
}

func TestCPUTime(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no getrusage")
	}
	start := CPUTime()
	for deadline := time.Now().Add(20 * time.Millisecond); time.Now().Before(deadline); {
	}
	if used := CPUTime() - start; used <= 0 {
		t.Errorf("20 ms of spinning used %v of CPU", used)
	}
}

func TestGitHTTPServerWantsTheToken(t *testing.T) {
	srv := GitHTTPServer(t, t.TempDir(), "secret")
	url := srv.URL + "/repo.git/info/refs?service=git-upload-pack"
	for _, tt := range []struct {
		pass string
		want int
	}{{"", http.StatusUnauthorized}, {"wrong", http.StatusUnauthorized}, {"secret", http.StatusNotFound}} {
		req, err := http.NewRequest("GET", url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tt.pass != "" {
			req.SetBasicAuth("git", tt.pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("password %q: status %d, want %d", tt.pass, resp.StatusCode, tt.want)
		}
	}
}

func TestGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	Git(t, dir, "init", "--quiet", "--initial-branch=main")
	if got := Git(t, dir, "symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Errorf("HEAD is %q, want refs/heads/main (output trimmed)", got)
	}
	// The machine's configuration is not read: no identity comes from it.
	if out, err := GitErr(dir, "config", "--global", "user.name"); err == nil {
		t.Errorf("a global user.name %q reached the test's git", out)
	}
	if out, err := GitErr(dir, "rev-parse", "--verify", "no-such-ref"); err == nil {
		t.Errorf("rev-parse of a missing ref succeeded: %q", out)
	}
}
