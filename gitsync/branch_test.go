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

// TestUnusableRemoteURLIsAnErrorAtStart: a remote URL no fetch or push
// could use (a typo, a scheme git does not speak) given as git.remote
// stops Open with what to write instead. Before, the server started, wrote
// it into .git/config, and only logged "push failed; retrying later" every
// few seconds. The repository's own origin is only warned about: it may
// use a git remote helper go-git lacks, and the vault is still served
// locally. A token in the URL is not shown.
func TestUnusableRemoteURLIsAnErrorAtStart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		url        string
		configured bool     // given as git.remote, else as the repository's origin
		want       []string // parts of the error; nil = Open succeeds
	}{
		{"not a URL", "ht!tp://bad url", true, []string{"git.remote cannot be used", "not a URL git can use", "git@host:owner/notes.git"}},
		{"not a URL in origin", "ht!tp://bad url", false, nil},
		{"remote helper in origin", "keybase://private/me/notes", false, nil},
		{"scheme git does not speak", "ftp://example.com/notes.git", true, []string{"ftp://example.com/notes.git", "use https, ssh, git or a folder path"}},
		{"token not shown", "https://me:s3cret@exa mple.com/notes.git", true, []string{"not a URL git can use"}},
		{"token with a slash not shown", "https://me:s3/cret@host/notes.git", true, []string{"not a URL git can use"}},
		{"token with a hash not shown", "https://me:s3#cret@host/notes.git", true, []string{"not a URL git can use"}},
		{"https", "https://example.com/notes.git", true, nil},
		{"https in origin", "https://example.com/notes.git", false, nil},
		{"folder", "/srv/notes.git", true, nil},
		{"file URL", "file:///srv/notes.git", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			git(t, dir, "init", "-q", "-b", "main")
			opts := Options{Dir: dir}
			if tt.configured {
				opts.RemoteURL = tt.url
			} else {
				git(t, dir, "remote", "add", "origin", tt.url)
			}
			r, err := Open(context.Background(), opts)
			if r != nil {
				defer r.Close()
			}
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Open(%q) = %v", tt.url, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Open(%q) succeeded", tt.url)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "cret") {
				t.Errorf("error %q shows the token", err)
			}
			if tt.configured {
				if out := git(t, dir, "remote"); strings.TrimSpace(out) != "" {
					t.Errorf("the refused URL was written into .git/config: remotes %q", out)
				}
			}
		})
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/notes.git":             "https://example.com/notes.git",
		"https://me:s3cret@example.com/notes.git":   "https://me:xxxxx@example.com/notes.git",
		"https://me@example.com/notes.git":          "https://me@example.com/notes.git",
		"https://me:s3cret@exa mple.com/notes.git":  "https://me:xxxxx@exa mple.com/notes.git",
		"https://me:s3c@ret@exa mple.com/a@b/c.git": "https://me:xxxxx@b/c.git", // cut too much: never too little
		"https://me:ab/cd@host/r.git":               "https://me:xxxxx@host/r.git",
		"https://me:a#b?c@host/r.git":               "https://me:xxxxx@host/r.git",
		// Parsed without a user: the digits are taken for a port.
		"https://me:12#cret@host/r.git":  "https://me:xxxxx@host/r.git",
		"https://me:123/cret@host/r.git": "https://me:xxxxx@host/r.git",
		"https://me:/cret@host/r.git":    "https://me:xxxxx@host/r.git",
		"https://me:9?cret@host/r.git":   "https://me:xxxxx@host/r.git",
		// A token given as the user name.
		"https://ghp_s3cret@host/r.git":                    "https://xxxxx@host/r.git",
		"https://ghp_s3cret@host:bad/r.git":                "https://xxxxx@host:bad/r.git",
		"https://0123456789abcdef0123456789@host/r.git":    "https://xxxxx@host/r.git",
		"https://oauth2:glpat-s3cret@gitlab.example/r.git": "https://oauth2:xxxxx@gitlab.example/r.git",
		// A token as the user name, with a password beside it.
		"https://ghp_s3cretT0ken:x-oauth-basic@github.com/o/r.git": "https://xxxxx:xxxxx@github.com/o/r.git",
		"https://glpat-s3cretT0ken:x@gitlab.com/o/r.git":           "https://xxxxx:xxxxx@gitlab.com/o/r.git",
		"https://ghp_s3cretT0ken:x-oauth-basic@host:bad/r.git":     "https://xxxxx:xxxxx@host:bad/r.git",
		"ht!tp://bad url":              "ht!tp://bad url",
		"git@example.com:me/notes.git": "git@example.com:me/notes.git",
		"/srv/notes.git":               "/srv/notes.git",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStatusHidesTheRemoteToken: get_vault_info shows the remote's URL,
// so the repository's own remote must not show the password in it, even
// where url.Parse takes the password's digits for a port.
func TestStatusHidesTheRemoteToken(t *testing.T) {
	for _, u := range []string{"https://me:/s3cret@host/r.git", "https://me:123/s3cret@host/r.git", "https://me:12#s3cret@host/r.git", "https://ghp_s3cret@host/r.git"} {
		dir := t.TempDir()
		git(t, dir, "init", "-q", "-b", "main")
		git(t, dir, "remote", "add", "origin", u)
		r, err := Open(context.Background(), Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		got := r.Status().RemoteURL
		r.Close()
		if strings.Contains(got, "s3cret") {
			t.Errorf("%s: Status().RemoteURL = %q", u, got)
		}
	}
}

// TestOpenRefusesAnUnusableRemote: a git.remote no fetch could use stops
// Open before it clones into an empty folder, without the token.
func TestOpenRefusesAnUnusableRemote(t *testing.T) {
	for _, u := range []string{
		"https://me:s3cret@exa mple.com/notes.git",
		"https://me:s3cret@host:bad/notes.git",
		"ht!tp://me:s3cret@host/notes.git",
	} {
		dir := filepath.Join(t.TempDir(), "vault")
		r, err := Open(context.Background(), Options{Dir: dir, RemoteURL: u})
		if err == nil {
			r.Close()
			t.Errorf("%s: opened", u)
			continue
		}
		if !strings.Contains(err.Error(), "git.remote cannot be used") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %v", u, err)
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			t.Errorf("%s: a repository was made", u)
		}
	}
}
