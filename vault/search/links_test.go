package search

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"vaultmcp/vault"
	"vaultmcp/vault/access"
	"vaultmcp/vault/index"
)

// Searched from the index, a symbolic link in an allowed folder that
// leads into a hidden one finds nothing of its target: grep, glob and
// find under allow Public never show Public/alias.md ->
// ../Private/secret.md, while an unrestricted session finds it, and a
// link into .git is found by nobody.
func TestLinkScopeFromIndex(t *testing.T) {
	dir := t.TempDir()
	for rel, content := range map[string]string{
		"Public/n.md":       "public SECRETWORD? no\n",
		"Private/secret.md": "SECRETWORD here\n",
		".git/config":       "GITCONFIG url\n",
	} {
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for rel, target := range map[string]string{"Public/alias.md": "../Private/secret.md", "Public/git.md": "../.git/config"} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			t.Skip("no symlinks:", err)
		}
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(v, nil)
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	e := New(v, Options{Texts: ix})
	scoped := access.With(context.Background(), access.MustNew("test", access.Rules{Allow: []string{"Public"}}))

	paths := func(ctx context.Context, what string) []string {
		t.Helper()
		var out []string
		switch what {
		case "grep":
			res, err := e.Grep(ctx, GrepQuery{Query: "SECRETWORD here"})
			if err != nil {
				t.Fatal(err)
			}
			if !res.FromMemory {
				t.Fatal("grep did not search the index")
			}
			for _, l := range res.Lines {
				out = append(out, l.Path)
			}
		case "grep .git":
			res, err := e.Grep(ctx, GrepQuery{Query: "GITCONFIG"})
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range res.Lines {
				out = append(out, l.Path)
			}
		case "glob":
			res, err := e.Glob(ctx, GlobQuery{Pattern: "**/*.md"})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range res.Paths {
				if p != "Public/n.md" {
					out = append(out, p)
				}
			}
		case "find":
			res, err := e.Find(ctx, FindQuery{Path: "Public", Name: "*.md"})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Files {
				if f.Path != "Public/n.md" {
					out = append(out, f.Path)
				}
			}
		}
		return out
	}
	for _, what := range []string{"grep", "grep .git", "glob", "find"} {
		if got := paths(scoped, what); len(got) != 0 {
			t.Errorf("%s under allow Public found %q", what, got)
		}
	}
	if got := paths(context.Background(), "grep"); len(got) != 2 {
		t.Errorf("unrestricted grep found %q, want the note and its link", got)
	}
	if got := paths(context.Background(), "grep .git"); len(got) != 0 {
		t.Errorf("unrestricted grep found .git's text in %q", got)
	}
}
