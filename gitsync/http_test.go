package gitsync

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/internal/testutil"
)

func TestHTTPRemoteWithToken(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	repos := filepath.Join(base, "repos")
	remote := filepath.Join(repos, "vault.git")
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	git(t, remote, "config", "http.receivepack", "true")
	const token = "ghp_not-a-real-token"
	srv := testutil.GitHTTPServer(t, repos, token)
	url := srv.URL + "/vault.git"

	vault := filepath.Join(base, "vault")
	r := openRepo(t, Options{Dir: vault, RemoteURL: url, Auth: Auth{Token: token}})
	record(t, r, "write notes/a.md", "notes/a.md", "a\n")
	record(t, r, "write notes/b.md", "notes/b.md", "b\n")
	if err := r.Push(context.Background()); err != nil {
		t.Fatalf("push over http: %v", err)
	}
	if got := git(t, remote, "log", "--format=%s", "main"); got != "MCP: write notes/b.md\nMCP: write notes/a.md" {
		t.Errorf("remote log = %q", got)
	}

	// The laptop pushes over http too; the server pulls it in.
	laptop := filepath.Join(base, "laptop")
	authURL := strings.Replace(url, "http://", "http://git:"+token+"@", 1)
	git(t, base, "clone", "-q", authURL, laptop)
	writeFile(t, laptop, "notes/c.md", "c\n")
	git(t, laptop, "add", "-A")
	git(t, laptop, "commit", "-q", "-m", "laptop c")
	git(t, laptop, "push", "-q", "origin", "main")
	record(t, r, "edit notes/a.md", "notes/a.md", "a2\n")
	if err := r.Push(context.Background()); !errors.Is(err, ErrRejected) {
		t.Fatalf("push over a moved remote: %v, want ErrRejected", err)
	}
	if err := r.Sync(context.Background()); err != nil {
		t.Fatalf("sync over http: %v", err)
	}
	if got := readFile(t, vault, "notes/c.md"); got != "c\n" {
		t.Errorf("c.md = %q", got)
	}
	if err := r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	git(t, laptop, "pull", "-q", "--ff-only")
	if got := readFile(t, laptop, "notes/a.md"); got != "a2\n" {
		t.Errorf("laptop a.md = %q", got)
	}
	assertClean(t, vault)

	// A wrong token fails without showing it.
	r2, err := Open(context.Background(), Options{Dir: filepath.Join(base, "third"), RemoteURL: url, Auth: Auth{Token: "wrong-token"}, Logger: testLogger(t)})
	if err == nil {
		r2.Close()
		t.Fatal("clone with a wrong token succeeded")
	}
	if strings.Contains(err.Error(), "wrong-token") {
		t.Errorf("error shows the token: %v", err)
	}
}
