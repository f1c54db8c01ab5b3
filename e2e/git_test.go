package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vaultmcp/internal/testutil"
)

// remoteLog returns the subjects of the remote branch, newest first (none
// while the branch does not exist).
func remoteLog(t *testing.T, remote string) []string {
	t.Helper()
	return branchLog(remote, "main")
}

func branchLog(repo, branch string) []string {
	out, err := gitTry(repo, "log", "--format=%s", branch)
	if err != nil || out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// remoteHeadIs reports whether the remote's newest commit has subject msg.
func remoteHeadIs(t *testing.T, remote, msg string) bool {
	log := remoteLog(t, remote)
	return len(log) > 0 && log[0] == msg
}

// newRemoteVault makes a vault whose origin is a bare repository on disk.
func newRemoteVault(t *testing.T, files map[string]string) (*testVault, string) {
	t.Helper()
	v := newVault(t, files)
	remote := filepath.Join(v.base, "remote.git")
	gitCLI(t, "", "init", "-q", "--bare", "-b", "main", remote)
	v.gitRun(t, "remote", "add", "origin", remote)
	v.commitAll(t, "test setup")
	v.gitRun(t, "push", "-q", "origin", "main")
	return v, remote
}

// laptopPush commits what the laptop clone changed and pushes it. When the
// server pushed meanwhile, the laptop pulls (rebasing its commit, as
// obsidian-git does) and pushes again; tests whose outcome depends on the
// order arrange that the server has nothing to push at that moment, so the
// first push lands.
func laptopPush(t *testing.T, laptop, msg string) {
	t.Helper()
	gitCLI(t, laptop, "add", "-A")
	gitCLI(t, laptop, "commit", "-q", "-m", msg)
	// The server pushes too, as often as agents write: a push refused
	// because it moved first is pulled in and tried again, for as long as
	// a hung remote would take, not a number of times that a busy server
	// can outrun.
	for deadline := time.Now().Add(callTimeout); ; {
		_, err := gitTry(laptop, "push", "-q", "origin", "main")
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("laptop push: %v", err)
		}
		gitCLI(t, laptop, "pull", "-q", "--rebase", "origin", "main")
	}
}

// TestSyncWithRemote: every write reaches the remote as its own commit;
// when the laptop and the server change the same notes, the server merges
// what merges and keeps both versions of what collides, and the laptop
// ends up with everything.
//
// Nothing here depends on who wins a race: the server pulls only at start
// and when its push is rejected (the sync interval is an hour); the
// laptop pushes while the server has nothing to push; the remote is then
// out of reach while the server makes both its edits on the old versions
// (its pushes fail and are retried later, without pulling); once the
// remote is back the server's push is rejected, and it pulls, merges and
// pushes again, in that order every time.
func TestSyncWithRemote(t *testing.T) {
	t.Parallel()
	lines := "one\ntwo\nthree\nfour\nfive\nsix\nseven\n"
	v, remote := newRemoteVault(t, map[string]string{
		"shared/merge.md":    lines,
		"shared/conflict.md": "title\nstatus: draft\n",
	})
	s := startSession(t, v, withEnv("VAULTMCP_GIT_REMOTE="+remote, "VAULTMCP_GIT_SYNC_INTERVAL=1h"))

	// Every write arrives on the remote as its own commit.
	s.ok(t, "write_file", map[string]any{"path": "notes/a.md", "content": "A\n"})
	s.ok(t, "write_file", map[string]any{"path": "notes/b.md", "content": "B\n"})
	s.ok(t, "edit_file", map[string]any{"path": "notes/a.md", "old_text": "A", "new_text": "A2"})
	testutil.WaitFor(t, "the three commits on the remote", func() bool {
		log := remoteLog(t, remote)
		return len(log) >= 3 && log[0] == "MCP: edit notes/a.md" && log[1] == "MCP: write notes/b.md" && log[2] == "MCP: write notes/a.md"
	})

	// The laptop and the server change the same notes: one in different
	// places, one in the same line. The laptop pushes first.
	laptop := filepath.Join(v.base, "laptop")
	gitCLI(t, "", "clone", "-q", remote, laptop)
	writeAt(t, filepath.Join(laptop, "shared/merge.md"), strings.Replace(lines, "seven", "seven (laptop)", 1))
	writeAt(t, filepath.Join(laptop, "shared/conflict.md"), "title\nstatus: done (laptop)\n")
	writeAt(t, filepath.Join(laptop, "from-laptop.md"), "laptop note\n")
	laptopPush(t, laptop, "laptop edits")
	away := remote + ".away"
	if err := os.Rename(remote, away); err != nil {
		t.Fatal(err)
	}
	s.ok(t, "edit_file", map[string]any{"path": "shared/merge.md", "old_text": "one", "new_text": "one (server)"})
	s.ok(t, "edit_file", map[string]any{"path": "shared/conflict.md", "old_text": "status: draft", "new_text": "status: review (server)"})
	if err := os.Rename(away, remote); err != nil {
		t.Fatal(err)
	}

	// The server's push is rejected; it pulls, merges, and pushes again.
	testutil.WaitFor(t, "the server's edits on the remote, on top of the laptop's", func() bool {
		log := remoteLog(t, remote)
		return len(log) >= 3 && log[0] == "MCP: edit shared/conflict.md" && log[1] == "MCP: edit shared/merge.md" && log[2] == "laptop edits"
	})
	if !v.exists("from-laptop.md") {
		t.Error("the laptop's note is not in the server's vault")
	}
	if got, want := v.read(t, "shared/merge.md"), strings.NewReplacer("one", "one (server)", "seven", "seven (laptop)").Replace(lines); got != want {
		t.Errorf("merged note = %q, want %q", got, want)
	}
	// The colliding note: the remote's version at the path, ours beside it.
	matches, _ := filepath.Glob(filepath.Join(v.Root, "shared", "conflict (conflict *).md"))
	if len(matches) != 1 {
		t.Fatalf("conflict copies: %q", matches)
	}
	if got := v.read(t, "shared/conflict.md"); got != "title\nstatus: done (laptop)\n" {
		t.Errorf("conflicted note at its path = %q, want the remote's version", got)
	}
	if data, _ := os.ReadFile(matches[0]); string(data) != "title\nstatus: review (server)\n" {
		t.Errorf("conflict copy = %q, want the server's version", data)
	}
	info := s.ok(t, "get_vault_info", map[string]any{})
	wantContains(t, "get_vault_info", info, "conflict")

	// The laptop fast-forwards to everything.
	gitCLI(t, laptop, "pull", "-q", "--ff-only", "origin", "main")
	if data, _ := os.ReadFile(filepath.Join(laptop, "shared/merge.md")); !strings.Contains(string(data), "one (server)") {
		t.Errorf("laptop merge.md = %q", data)
	}
	if _, err := os.Stat(filepath.Join(laptop, "shared", filepath.Base(matches[0]))); err != nil {
		t.Errorf("the conflict copy did not reach the laptop: %v", err)
	}
	if st := v.gitStatus(t); st != "" {
		t.Errorf("git status after sync:\n%s", st)
	}
}

func TestRemoteDownLosesNothing(t *testing.T) {
	t.Parallel()
	v, remote := newRemoteVault(t, map[string]string{"a.md": "a\n"})
	s := startSession(t, v, withEnv("VAULTMCP_GIT_REMOTE="+remote, "VAULTMCP_GIT_SYNC_INTERVAL=300ms"))
	s.ok(t, "write_file", map[string]any{"path": "before.md", "content": "x\n"})
	// The remote's receive-pack has moved the branch before it lets go of
	// its lock files: moving the remote away before that would strand a
	// lock that refuses every later push, which is not what this tests.
	testutil.WaitFor(t, "the first push, its locks released", func() bool {
		return remoteHeadIs(t, remote, "MCP: write before.md") && !remoteLocked(remote)
	})

	away := remote + ".away"
	if err := os.Rename(remote, away); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		text := s.ok(t, "write_file", map[string]any{"path": fmt.Sprintf("offline-%d.md", i), "content": "while the remote is down\n"})
		wantContains(t, "write while offline", text, "commit")
	}
	testutil.WaitFor(t, "a push error in get_vault_info", func() bool {
		var info struct {
			Sync struct {
				LastPushError string `json:"last_push_error"`
				Ahead         int    `json:"ahead"`
			} `json:"sync"`
		}
		res, err := s.callResult("get_vault_info", map[string]any{})
		if err != nil || res.IsError {
			return false
		}
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &info)
		return info.Sync.LastPushError != ""
	})
	if err := os.Rename(away, remote); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, "the offline commits on the remote", func() bool {
		log := remoteLog(t, remote)
		return len(log) >= 4 && log[0] == "MCP: write offline-2.md"
	})
}

// remoteLocked reports whether a git process holds a lock on the bare
// repository's branch or HEAD.
func remoteLocked(remote string) bool {
	for _, lock := range []string{"HEAD.lock", "refs/heads/main.lock"} {
		if _, err := os.Stat(filepath.Join(remote, lock)); err == nil {
			return true
		}
	}
	return false
}

func TestHTTPRemoteWithToken(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"a.md": "a\n"})
	repos := filepath.Join(v.base, "repos")
	remote := filepath.Join(repos, "vault.git")
	gitCLI(t, "", "init", "-q", "--bare", "-b", "main", remote)
	gitCLI(t, remote, "config", "http.receivepack", "true")
	const token = "not-a-real-token"
	srv := testutil.GitHTTPServer(t, repos, token)
	url := srv.URL + "/vault.git"

	s := startSession(t, v, withEnv("VAULTMCP_GIT_REMOTE="+url, "VAULTMCP_GIT_TOKEN="+token, "VAULTMCP_GIT_SYNC_INTERVAL=300ms"))
	s.ok(t, "write_file", map[string]any{"path": "over-http.md", "content": "pushed over smart HTTP\n"})
	testutil.WaitFor(t, "the write on the HTTP remote", func() bool { return remoteHeadIs(t, remote, "MCP: write over-http.md") })
	info := s.ok(t, "get_vault_info", map[string]any{})
	if strings.Contains(info, token) {
		t.Errorf("get_vault_info shows the token: %s", info)
	}
}

// TestConcurrentWritesKeepRepositoryClean: 1,000 mixed changes from 8
// concurrent writers through one session; afterwards git fsck is clean,
// git status shows nothing, and every change is its own commit.
func TestConcurrentWritesKeepRepositoryClean(t *testing.T) {
	t.Parallel()
	v := newVault(t, nil)
	s := startSession(t, v)
	before := strings.Count(v.gitRun(t, "log", "--format=%H"), "\n") + 1

	const writers, perWriter = 8, 125
	var wg sync.WaitGroup
	var mu sync.Mutex
	commits := 0
	errs := make(chan string, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				path := fmt.Sprintf("w%d/note-%d.md", w, i/4)
				var name string
				var args map[string]any
				switch i % 4 {
				case 0:
					name, args = "write_file", map[string]any{"path": path, "content": fmt.Sprintf("line %d\n", i)}
				case 1:
					name, args = "edit_file", map[string]any{"path": path, "old_text": fmt.Sprintf("line %d", i-1), "new_text": fmt.Sprintf("line %d edited", i-1)}
				case 2:
					name, args = "rename_file", map[string]any{"old_path": path, "new_path": path + ".moved.md"}
				case 3:
					name, args = "delete_file", map[string]any{"path": path + ".moved.md"}
				}
				res, err := s.callResult(name, args)
				if err != nil || res.IsError {
					errs <- fmt.Sprintf("%s %v: %v %s", name, args, err, resultText(res))
					return
				}
				mu.Lock()
				commits++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if out, err := gitTry(v.Root, "fsck", "--full", "--strict"); err != nil {
		t.Errorf("git fsck: %v %s", err, out)
	}
	if st := v.gitStatus(t); st != "" {
		t.Errorf("git status not clean:\n%s", st)
	}
	after := strings.Count(v.gitRun(t, "log", "--format=%H"), "\n") + 1
	if after-before != commits || commits != writers*perWriter {
		t.Errorf("%d commits for %d successful changes (want %d)", after-before, commits, writers*perWriter)
	}
}

func writeAt(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
