package gitsync

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServesTheVaultsOwnBranchAndOrigin: a vault cloned with the git CLI,
// on master, with origin set, syncs with no branch and no remote
// configured.
func TestServesTheVaultsOwnBranchAndOrigin(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	remote := filepath.Join(base, "remote.git")
	git(t, base, "init", "-q", "--bare", "-b", "master", remote)
	seed := filepath.Join(base, "seed")
	git(t, base, "clone", "-q", remote, seed)
	writeFile(t, seed, "a.md", "a\n")
	git(t, seed, "add", "-A")
	git(t, seed, "commit", "-q", "-m", "first")
	git(t, seed, "push", "-q", "origin", "master")
	vault := filepath.Join(base, "vault")
	git(t, base, "clone", "-q", remote, vault)

	r := openRepo(t, Options{Dir: vault})
	st := r.Status()
	if st.Branch != "master" || !st.RemoteConfigured || st.Remote != "origin" {
		t.Fatalf("status = %+v", st)
	}
	record(t, r, "write b.md", "b.md", "b\n")
	if err := r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := git(t, remote, "log", "-1", "--format=%s", "master"); got != "MCP: write b.md" {
		t.Errorf("remote master at %q", got)
	}
	if err := r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertClean(t, vault)
}

// TestNewRepositoryUsesInitDefaultBranch: git's init.defaultBranch names
// the branch of a new repository; without it, main.
func TestNewRepositoryUsesInitDefaultBranch(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(cfg, []byte("[init]\n\tdefaultBranch = trunk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	r := openRepo(t, Options{Dir: t.TempDir()})
	if r.Branch() != "trunk" {
		t.Errorf("Branch() = %q, want trunk", r.Branch())
	}
}

// TestConfiguredRemoteThatDiffersIsAnError: a git.remote other than the
// vault's own origin is refused with a message saying what to do.
func TestConfiguredRemoteThatDiffersIsAnError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "remote", "add", "origin", "https://example.com/mine.git")
	_, err := Open(context.Background(), Options{Dir: dir, RemoteURL: "https://example.com/other.git"})
	if err == nil || !strings.Contains(err.Error(), "mine.git") || !strings.Contains(err.Error(), "git.remote") {
		t.Errorf("Open = %v", err)
	}
}

// TestOpenWhenTheRemoteIsUnreachable: the server starts on an empty folder
// whose remote cannot be reached (here: not there yet), writes commit
// locally, and the first sync that reaches the remote brings its history
// in under ours.
func TestOpenWhenTheRemoteIsUnreachable(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	remote := filepath.Join(base, "remote.git")
	vault := filepath.Join(base, "vault")
	r := openRepo(t, Options{Dir: vault, RemoteURL: remote})
	record(t, r, "write offline.md", "offline.md", "written offline\n")
	if err := r.Sync(context.Background()); err == nil {
		t.Error("Sync reached a remote that is not there")
	}
	// The remote appears, with a history of its own.
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	laptop := filepath.Join(base, "laptop")
	git(t, base, "clone", "-q", remote, laptop)
	writeFile(t, laptop, "laptop.md", "laptop\n")
	git(t, laptop, "add", "-A")
	git(t, laptop, "commit", "-q", "-m", "laptop")
	git(t, laptop, "push", "-q", "origin", "main")
	if err := r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, vault, "laptop.md"); got != "laptop\n" {
		t.Errorf("laptop.md = %q", got)
	}
	git(t, laptop, "pull", "-q", "--ff-only")
	if got := readFile(t, laptop, "offline.md"); got != "written offline\n" {
		t.Errorf("offline.md on the laptop = %q", got)
	}
	assertClean(t, vault)
}
