package gitsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/gitsync/internal/store"
)

func TestCheckLinkTarget(t *testing.T) {
	for _, tt := range []struct {
		rel, target string
		ok          bool
	}{
		{"a.md", "b.md", true},
		{"notes/a.md", "../b.md", true},
		{"notes/deep/a.md", "../../attachments/x.png", true},
		{"notes/dir", "sub", true},
		{"a.md", "./b.md", true},
		{"a.md", "/etc/passwd", false},
		{"a.md", "/tmp/outside/secret.md", false},
		{"a.md", `C:\Users\me\secret.md`, false},
		{"a.md", `\\server\share`, false},
		{"a.md", "../outside.md", false},
		{"notes/a.md", "../../outside.md", false},
		{"notes/a.md", "sub/../../../x", false},
		{"a.md", "..", false},
		{"a.md", ".git/config", false},
		{"notes/a.md", "../.GIT/hooks/post-commit", false},
		{"notes/a.md", `..\.git\config`, false},
		{"a.md", "", false},
	} {
		err := store.CheckLinkTarget(tt.rel, tt.target)
		if (err == nil) != tt.ok {
			t.Errorf("checkLinkTarget(%q, %q) = %v, want ok %v", tt.rel, tt.target, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrUnsafePath) {
			t.Errorf("checkLinkTarget(%q, %q) = %v, not an ErrUnsafePath", tt.rel, tt.target, err)
		}
	}
}

// Symbolic links made in the vault by hand are committed only when they
// point inside it: one to an absolute path or out of the vault would
// publish this machine's folders and point elsewhere on every other
// device. Whichever code path commits (the outside-changes scan, or a
// tool's commit of a folder holding the link), the rule is the same.
func TestLinksOutsideTheVaultAreNotCommitted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := t.TempDir()
	writeFile(t, outside, "secret.md", "secret\n")
	r := openRepo(t, Options{Dir: dir})
	record(t, r, "write a.md", "a.md", "a\n")
	writeFile(t, dir, "Inbox/note.md", "note\n")
	links := map[string]string{
		"Inbox/inside":   "note.md",
		"Inbox/up":       "../a.md",
		"Inbox/absolute": filepath.Join(outside, "secret.md"),
		"Inbox/escapes":  "../../" + filepath.Base(outside) + "/secret.md",
		"Inbox/gitdir":   "../.git/config",
	}
	for rel, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	var logs logBuffer
	r.log = logs.logger()
	if err := r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	files := git(t, dir, "ls-tree", "-r", "--name-only", "HEAD")
	if want := "Inbox/inside\nInbox/note.md\nInbox/up\na.md"; files != want {
		t.Errorf("committed after the scan:\n%s\nwant:\n%s", files, want)
	}
	for _, rel := range []string{"Inbox/absolute", "Inbox/escapes", "Inbox/gitdir"} {
		if !strings.Contains(logs.String(), "path="+rel) {
			t.Errorf("%s left out without a log line:\n%s", rel, logs.String())
		}
	}
	// A tool's commit of the folder (a rename of Inbox, say) applies the
	// same rule to what it finds there.
	if err := os.Rename(filepath.Join(dir, "Inbox"), filepath.Join(dir, "Moved")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(context.Background(), "rename Inbox -> Moved", []string{"Inbox", "Moved"}); err != nil {
		t.Fatal(err)
	}
	files = git(t, dir, "ls-tree", "-r", "--name-only", "HEAD")
	if want := "Moved/inside\nMoved/note.md\nMoved/up\na.md"; files != want {
		t.Errorf("committed after the folder's rename:\n%s\nwant:\n%s", files, want)
	}
}

func TestResolveLocalURL(t *testing.T) {
	for _, tt := range []struct{ url, want string }{
		{"", ""},
		{"../remote.git", "/vault/../remote.git"},
		{"remotes/vault.git", "/vault/remotes/vault.git"},
		{"/srv/git/vault.git", "/srv/git/vault.git"},
		{"https://example.com/v.git", "https://example.com/v.git"},
		{"file:///srv/v.git", "file:///srv/v.git"},
		{"git@github.com:me/vault.git", "git@github.com:me/vault.git"},
		{"ssh://git@host/vault.git", "ssh://git@host/vault.git"},
	} {
		want := tt.want
		if strings.HasPrefix(want, "/vault/") {
			want = filepath.Join("/vault", strings.TrimPrefix(want, "/vault/"))
		}
		if got := resolveLocalURL(tt.url, "/vault"); got != want {
			t.Errorf("resolveLocalURL(%q) = %q, want %q", tt.url, got, want)
		}
	}
}

// A remote added with a relative path (`git remote add origin
// ../remote.git`) is found from the vault, as git finds it, whatever
// folder the server was started in.
func TestRelativeRemoteIsResolvedAgainstTheVault(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "vault")
	remote := filepath.Join(base, "remote.git")
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	git(t, base, "init", "-q", "-b", "main", dir)
	git(t, dir, "remote", "add", "origin", "../remote.git")
	r := openRepo(t, Options{Dir: dir})
	record(t, r, "write a.md", "a.md", "a\n")
	if err := r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := git(t, remote, "log", "-1", "--format=%s", "main"); !strings.HasSuffix(got, "write a.md") {
		t.Errorf("remote head = %q, want the write", got)
	}
}
