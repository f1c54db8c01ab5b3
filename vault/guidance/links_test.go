package guidance

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"vaultmcp/vault/access"
)

// A CLAUDE.md that is a symbolic link shows its target's text, so a
// session sees it only when its scope sees both ends: a folder's
// CLAUDE.md leading into a hidden folder is left out of Along, and a
// root CLAUDE.md leading there is no session's instructions. The cache,
// shared by every session, still serves a session that may see both.
func TestLinkedClaudeMD(t *testing.T) {
	v, root := newVault(t, map[string]string{
		"Private/rules.md": "private rules\n",
		"Public/n.md":      "",
	})
	for rel, target := range map[string]string{"CLAUDE.md": "Private/rules.md", "Public/CLAUDE.md": "../Private/rules.md"} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			t.Skip("no symlinks:", err)
		}
	}
	f := New(v, Options{})
	for _, rules := range []access.Rules{{Allow: []string{"Public", "CLAUDE.md"}}, {Deny: []string{"Private"}}} {
		scoped := access.With(context.Background(), access.MustNew("test", rules))
		files, err := f.Along(scoped, "Public/n.md")
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 0 {
			t.Errorf("%+v: Along(Public) = %s, want nothing", rules, dirs(files))
		}
		if got := f.Root(scoped); got != "" {
			t.Errorf("%+v: Root = %q, want none", rules, got)
		}
	}
	files, err := f.Along(context.Background(), "Public/n.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := dirs(files); got != "Public=private rules" {
		t.Errorf("unrestricted Along(Public) = %q", got)
	}
	if got := f.Root(context.Background()); got != "private rules\n" {
		t.Errorf("unrestricted Root = %q", got)
	}
}
