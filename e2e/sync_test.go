package e2e

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"vaultmcp/internal/testutil"
)

// The sync's trust boundary and recovery, through the binary: hostile
// remote trees, rewritten remote history, stale locks, an unreachable
// remote, the vault's own branch and remote, a mass deletion, a declined
// push. Every wait is on state a user could observe (the remote's refs,
// get_vault_info, files), never on time.

// syncInfo is get_vault_info's sync section.
type syncInfo struct {
	Branch           string `json:"branch"`
	RemoteConfigured bool   `json:"remote_configured"`
	Remote           string `json:"remote"`
	Ahead            int    `json:"ahead"`
	LastPushError    string `json:"last_push_error"`
	LastPullError    string `json:"last_pull_error"`
	NextPushRetry    string `json:"next_push_retry"`
	HeldDeletion     *struct {
		Files   int `json:"files"`
		Tracked int `json:"tracked"`
	} `json:"held_deletion"`
}

// syncState calls get_vault_info and returns its sync section.
func (s *session) syncState(t *testing.T) syncInfo {
	t.Helper()
	res, err := s.callResult("get_vault_info", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("get_vault_info: %v %s", err, resultText(res))
	}
	var info struct {
		Sync syncInfo `json:"sync"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatalf("get_vault_info: %v", err)
	}
	return info.Sync
}

// writeGitObject stores data as an object in repo without git's checks
// (hash-object --literally), as a hostile remote can.
func writeGitObject(t *testing.T, repo, typ string, data []byte) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-t", typ, "--literally", "-w", "--stdin")
	cmd.Dir = repo
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git hash-object: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// treeEntry is one entry of a hand-made tree.
type treeEntry struct{ mode, name, hash string }

// writeTree writes a tree with exactly these entries, in git's order.
func writeTree(t *testing.T, repo string, es []treeEntry) string {
	t.Helper()
	key := func(e treeEntry) string {
		if e.mode == "40000" {
			return e.name + "/"
		}
		return e.name
	}
	sort.Slice(es, func(i, j int) bool { return key(es[i]) < key(es[j]) })
	var b bytes.Buffer
	for _, e := range es {
		h, err := hex.DecodeString(e.hash)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s\x00", e.mode, e.name)
		b.Write(h)
	}
	return writeGitObject(t, repo, "tree", b.Bytes())
}

// pushHostileCommit adds to the bare remote's main a commit whose tree is
// the current one plus, for each path, an entry chain holding content
// (each path element is one tree entry name, so one may be ".." or hold a
// '/'). It returns the commit.
func pushHostileCommit(t *testing.T, remote string, paths [][]string, content string) string {
	t.Helper()
	var root []treeEntry
	for _, line := range strings.Split(gitCLI(t, remote, "ls-tree", "main"), "\n") {
		if line == "" {
			continue
		}
		meta, name, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		root = append(root, treeEntry{strings.TrimPrefix(f[0], "0"), name, f[2]})
	}
	blob := writeGitObject(t, remote, "blob", []byte(content))
	for _, p := range paths {
		hash, mode := blob, "100755"
		for i := len(p) - 1; i >= 1; i-- {
			hash = writeTree(t, remote, []treeEntry{{mode, p[i], hash}})
			mode = "40000"
		}
		root = append(root, treeEntry{mode, p[0], hash})
	}
	tree := writeTree(t, remote, root)
	commit := gitCLI(t, remote, "commit-tree", tree, "-p", "main", "-m", "hostile")
	gitCLI(t, remote, "update-ref", "refs/heads/main", commit)
	return commit
}

// withoutRemotes drops the bare repositories (which the test itself
// changes) from a snapshot of a vault's surroundings.
func withoutRemotes(s snapshot) snapshot {
	out := snapshot{}
	for k, v := range s {
		if !strings.HasPrefix(k, "remote.git") && !strings.HasPrefix(k, "repos") {
			out[k] = v
		}
	}
	return out
}

// newHTTPRemoteVault is newRemoteVault with the remote served over smart
// HTTP (git http-backend on loopback) behind a token; it returns the vault,
// the bare repository on disk and the server's environment.
func newHTTPRemoteVault(t *testing.T, files map[string]string) (*testVault, string, []string) {
	t.Helper()
	v := newVault(t, files)
	repos := filepath.Join(v.base, "repos")
	remote := filepath.Join(repos, "vault.git")
	gitCLI(t, "", "init", "-q", "--bare", "-b", "main", remote)
	gitCLI(t, remote, "config", "http.receivepack", "true")
	v.gitRun(t, "remote", "add", "origin", remote)
	v.commitAll(t, "test setup")
	v.gitRun(t, "push", "-q", "origin", "main")
	v.gitRun(t, "remote", "remove", "origin")
	const token = "not-a-real-token"
	srv := testutil.GitHTTPServer(t, repos, token)
	return v, remote, []string{"VAULTMCP_GIT_REMOTE=" + srv.URL + "/vault.git", "VAULTMCP_GIT_TOKEN=" + token}
}

// remotes runs fn against a bare repository on disk and against the same
// served by git http-backend.
func remotes(t *testing.T, files map[string]string, fn func(t *testing.T, v *testVault, remote string, env []string)) {
	t.Run("bare", func(t *testing.T) {
		t.Parallel()
		v, remote := newRemoteVault(t, files)
		fn(t, v, remote, []string{"VAULTMCP_GIT_REMOTE=" + remote})
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		v, remote, env := newHTTPRemoteVault(t, files)
		fn(t, v, remote, env)
	})
}

// TestHostileRemoteTreeIsRefused: a remote commit whose tree would write
// .git/hooks/post-commit (code run at the user's next git command) and a
// file two folders above the vault is refused whole: nothing is written,
// HEAD stays, get_vault_info says why, and the server goes on serving.
func TestHostileRemoteTreeIsRefused(t *testing.T) {
	t.Parallel()
	remotes(t, map[string]string{"a.md": "a\n"}, func(t *testing.T, v *testVault, remote string, env []string) {
		s := startSession(t, v, withEnv(append(env, "VAULTMCP_GIT_SYNC_INTERVAL=300ms")...))
		head := v.gitRun(t, "rev-parse", "HEAD")
		before := withoutRemotes(v.snapshot(t))
		commit := pushHostileCommit(t, remote, [][]string{
			{".git", "hooks", "post-commit"},
			{"..", "..", "escaped.md"},
		}, "#!/bin/sh\necho pwned > escaped-by-hook\n")

		hookFile := filepath.Join(v.Root, ".git", "hooks", "post-commit")
		testutil.WaitFor(t, "the refusal in get_vault_info (or the damage)", func() bool {
			_, err := os.Stat(hookFile)
			return err == nil || strings.Contains(s.syncState(t).LastPullError, "refused")
		})
		if _, err := os.Stat(hookFile); err == nil {
			t.Fatal("the pull wrote .git/hooks/post-commit")
		}
		st := s.syncState(t)
		wantContains(t, "last_pull_error", st.LastPullError, commit[:7], "nothing of it was checked out")
		if after := withoutRemotes(v.snapshot(t)); !maps.Equal(before, after) {
			t.Errorf("the refused pull changed the vault or its surroundings:\nbefore %v\nafter  %v", before, after)
		}
		for _, p := range []string{filepath.Join(v.Root, ".git", "hooks", "post-commit"), filepath.Join(filepath.Dir(v.base), "escaped.md"), filepath.Join(v.base, "escaped.md")} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("the refused tree wrote %s", p)
			}
		}
		// Still serving: writes are committed locally.
		s.ok(t, "write_file", map[string]any{"path": "after.md", "content": "after\n"})
		if got := v.gitRun(t, "log", "-1", "--format=%s"); got != "MCP: write after.md" {
			t.Errorf("head commit %q", got)
		}
		if got := v.gitRun(t, "rev-parse", "HEAD~1"); got != head {
			t.Errorf("the write is not on top of the old head")
		}
		if st := v.gitStatus(t); st != "" {
			t.Errorf("git status:\n%s", st)
		}
	})
}

// TestForcePushedPurgeIsFollowed: someone drops the commit that added
// secret.md from the remote and force-pushes; the server follows (the note
// leaves the vault) and never pushes it back, while its own new write
// lands on top.
func TestForcePushedPurgeIsFollowed(t *testing.T) {
	t.Parallel()
	remotes(t, map[string]string{"a.md": "a\n"}, func(t *testing.T, v *testVault, remote string, env []string) {
		s := startSession(t, v, withEnv(append(env, "VAULTMCP_GIT_SYNC_INTERVAL=300ms")...))
		s.ok(t, "write_file", map[string]any{"path": "plan.md", "content": "plan\n"})
		s.ok(t, "write_file", map[string]any{"path": "secret.md", "content": "password=hunter2\n"})
		testutil.WaitFor(t, "both writes on the remote", func() bool { return remoteHeadIs(t, remote, "MCP: write secret.md") })

		// The rewrite, done on the bare repository itself.
		gitCLI(t, remote, "update-ref", "refs/heads/main", "main~1")
		s.ok(t, "write_file", map[string]any{"path": "new.md", "content": "new\n"})
		testutil.WaitFor(t, "the new write on the remote", func() bool { return remoteHeadIs(t, remote, "MCP: write new.md") })
		testutil.WaitFor(t, "secret.md gone from the vault", func() bool { return !v.exists("secret.md") })
		log := remoteLog(t, remote)
		if strings.Contains(strings.Join(log, "\n"), "secret.md") {
			t.Errorf("the purged commit was pushed again: %q", log)
		}
		if files := gitCLI(t, remote, "ls-tree", "-r", "--name-only", "main"); strings.Contains(files, "secret.md") {
			t.Errorf("the remote has secret.md again:\n%s", files)
		}
		if !v.exists("plan.md") || !v.exists("new.md") {
			t.Error("a note was lost")
		}
	})
}

// TestStaleLocksOfAKilledServerAreRecovered: index.lock and the branch's
// ref lock left by a killed server do not stop the next one: it removes
// them at start, says so in its log, and commits writes as usual. A lock
// another program holds (no owner mark) is left alone and reported, and a
// write then fails with a clear error instead of hanging.
func TestStaleLocksOfAKilledServerAreRecovered(t *testing.T) {
	t.Parallel()
	t.Run("ours", func(t *testing.T) {
		t.Parallel()
		v := newVault(t, map[string]string{"a.md": "a\n"})
		gitDir := filepath.Join(v.Root, ".git")
		testutil.LeaveStaleLock(t, gitDir, filepath.Join(gitDir, "index.lock"), "partial")
		testutil.LeaveStaleLock(t, gitDir, filepath.Join(gitDir, "refs", "heads", "main.lock"), "partial")
		s := startSession(t, v, withDirtyVault())
		s.ok(t, "write_file", map[string]any{"path": "b.md", "content": "b\n"})
		if got := v.gitRun(t, "log", "-1", "--format=%s"); got != "MCP: write b.md" {
			t.Errorf("head commit %q", got)
		}
		if st := v.gitStatus(t); st != "" {
			t.Errorf("git status:\n%s", st)
		}
	})
	t.Run("foreign", func(t *testing.T) {
		t.Parallel()
		v := newVault(t, map[string]string{"a.md": "a\n"})
		lock := filepath.Join(v.Root, ".git", "index.lock")
		if err := os.WriteFile(lock, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		s := startSession(t, v, withDirtyVault())
		msg := s.fail(t, "write_file", map[string]any{"path": "b.md", "content": "b\n"})
		wantContains(t, "write under a foreign lock", msg, "index.lock")
		if _, err := os.Stat(lock); err != nil {
			t.Error("the foreign lock was removed")
		}
		if v.exists("b.md") {
			t.Error("the refused write left its file")
		}
	})
}

// TestServerStartsWithTheRemoteDown: a vault whose origin cannot be
// reached, and an empty folder whose configured remote cannot be reached
// (nothing to clone from yet): the server starts, commits writes, shows
// the failed pull, and syncs once the remote is there.
func TestServerStartsWithTheRemoteDown(t *testing.T) {
	t.Parallel()
	t.Run("existing vault", func(t *testing.T) {
		t.Parallel()
		v, remote := newRemoteVault(t, map[string]string{"a.md": "a\n"})
		away := remote + ".away"
		if err := os.Rename(remote, away); err != nil {
			t.Fatal(err)
		}
		s := startSession(t, v, withEnv("VAULTMCP_GIT_SYNC_INTERVAL=300ms"))
		s.ok(t, "write_file", map[string]any{"path": "offline.md", "content": "offline\n"})
		testutil.WaitFor(t, "the failed pull in get_vault_info", func() bool { return s.syncState(t).LastPullError != "" })
		if err := os.Rename(away, remote); err != nil {
			t.Fatal(err)
		}
		testutil.WaitFor(t, "the offline write on the remote", func() bool { return remoteHeadIs(t, remote, "MCP: write offline.md") })
	})
	t.Run("empty folder", func(t *testing.T) {
		t.Parallel()
		v := newVault(t, nil, withoutGit())
		remote := filepath.Join(v.base, "later.git")
		s := startSession(t, v, withEnv("VAULTMCP_GIT_REMOTE="+remote, "VAULTMCP_GIT_SYNC_INTERVAL=300ms"))
		s.ok(t, "write_file", map[string]any{"path": "first.md", "content": "first\n"})
		// The remote appears, with a history of its own (made aside and
		// moved into place at once, so the server cannot push into it
		// half-made).
		making := remote + ".making"
		gitCLI(t, "", "init", "-q", "--bare", "-b", "main", making)
		laptop := filepath.Join(v.base, "laptop")
		gitCLI(t, "", "clone", "-q", making, laptop)
		writeAt(t, filepath.Join(laptop, "laptop.md"), "laptop\n")
		laptopPush(t, laptop, "laptop")
		if err := os.Rename(making, remote); err != nil {
			t.Fatal(err)
		}
		testutil.WaitFor(t, "the laptop's note in the vault", func() bool { return v.exists("laptop.md") })
		testutil.WaitFor(t, "the server's write on the remote", func() bool { return remoteHeadIs(t, remote, "MCP: write first.md") })
	})
}

// TestVaultOnMasterWithItsOwnOrigin: a vault cloned with git, on master,
// is served with no git configuration at all: its branch and its origin.
// A configured branch that differs is a clear error at start.
func TestVaultOnMasterWithItsOwnOrigin(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	remote := filepath.Join(base, "remote.git")
	gitCLI(t, "", "init", "-q", "--bare", "-b", "master", remote)
	seed := filepath.Join(base, "seed")
	gitCLI(t, "", "clone", "-q", remote, seed)
	writeAt(t, filepath.Join(seed, "a.md"), "a\n")
	gitCLI(t, seed, "add", "-A")
	gitCLI(t, seed, "commit", "-q", "-m", "first")
	gitCLI(t, seed, "push", "-q", "origin", "master")
	v := newVault(t, nil, withoutGit())
	if err := os.Remove(v.Root); err != nil {
		t.Fatal(err)
	}
	gitCLI(t, "", "clone", "-q", remote, v.Root)
	v.git = true

	s := startSession(t, v)
	if st := s.syncState(t); st.Branch != "master" || !st.RemoteConfigured || st.Remote != "origin" {
		t.Errorf("sync state = %+v", st)
	}
	s.ok(t, "write_file", map[string]any{"path": "b.md", "content": "b\n"})
	testutil.WaitFor(t, "the write on the remote's master", func() bool {
		log := branchLog(remote, "master")
		return len(log) > 0 && log[0] == "MCP: write b.md"
	})

	// git.branch set to something else: refused, saying what to do.
	cfg := newServerConfig(t, v, []serverOption{withEnv("VAULTMCP_GIT_BRANCH=main")})
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	stderr := &lockedBuffer{}
	cmd := cfg.command(ctx, stderr)
	cmd.Stdin = strings.NewReader("")
	if err := cmd.Run(); err == nil {
		t.Error("the server started on master with git.branch main")
	}
	wantContains(t, "start-up error", stderr.String(), `"master"`, `"main"`, "git.branch")
}

// TestMassDeletionIsHeldBack: 25 of 30 notes vanish outside the server
// (an emptied folder): the deletion is neither committed nor pushed,
// get_vault_info shows it, and confirm_mass_deletion with the count it
// shows commits and pushes it.
func TestMassDeletionIsHeldBack(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := 0; i < 25; i++ {
		files[fmt.Sprintf("synced/n%02d.md", i)] = "note\n"
	}
	for i := 0; i < 5; i++ {
		files[fmt.Sprintf("kept/k%d.md", i)] = "kept\n"
	}
	v, remote := newRemoteVault(t, files)
	s := startSession(t, v, withEnv("VAULTMCP_GIT_SYNC_INTERVAL=300ms"))
	if err := os.RemoveAll(v.path("synced")); err != nil {
		t.Fatal(err)
	}
	v.write(t, "kept/k0.md", "edited outside\n")
	testutil.WaitFor(t, "the held deletion in get_vault_info", func() bool {
		h := s.syncState(t).HeldDeletion
		return h != nil && h.Files == 25 && h.Tracked == 30
	})
	info := s.ok(t, "get_vault_info", map[string]any{})
	wantContains(t, "get_vault_info", info, "Mass deletion held back", "confirm_mass_deletion (files: 25)")
	testutil.WaitFor(t, "the outside edit on the remote", func() bool {
		return strings.Contains(gitCLI(t, remote, "show", "main:kept/k0.md"), "edited outside")
	})
	if n := strings.Count(gitCLI(t, remote, "ls-tree", "-r", "--name-only", "main"), "synced/"); n != 25 {
		t.Errorf("the remote has %d of the 25 notes: the deletion was pushed", n)
	}
	msg := s.fail(t, "confirm_mass_deletion", map[string]any{"files": 24})
	wantContains(t, "confirm with a wrong count", msg, "25 files")
	s.ok(t, "confirm_mass_deletion", map[string]any{"files": 25})
	testutil.WaitFor(t, "the confirmed deletion on the remote", func() bool {
		return !strings.Contains(gitCLI(t, remote, "ls-tree", "-r", "--name-only", "main"), "synced/")
	})
}

// TestDeclinedPushSaysWhy: a push a server hook declines (a protected
// branch) shows in get_vault_info as declined, with the remote's message,
// not as "the remote has new commits", and the next attempt is minutes
// away.
func TestDeclinedPushSaysWhy(t *testing.T) {
	t.Parallel()
	remotes(t, map[string]string{"a.md": "a\n"}, func(t *testing.T, v *testVault, remote string, env []string) {
		hook := "#!/bin/sh\necho 'protected branch: pushes to main need a review' >&2\nexit 1\n"
		if err := os.WriteFile(filepath.Join(remote, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
			t.Fatal(err)
		}
		s := startSession(t, v, withEnv(append(env, "VAULTMCP_GIT_SYNC_INTERVAL=300ms")...))
		s.ok(t, "write_file", map[string]any{"path": "b.md", "content": "b\n"})
		testutil.WaitFor(t, "the declined push in get_vault_info", func() bool {
			st := s.syncState(t)
			return strings.Contains(st.LastPushError, "declined") && st.NextPushRetry != ""
		})
		st := s.syncState(t)
		wantContains(t, "last_push_error", st.LastPushError, "pre-receive hook declined", "pushes to main need a review")
		if strings.Contains(st.LastPushError, "new commits") {
			t.Errorf("reported as a moved remote: %q", st.LastPushError)
		}
	})
}
