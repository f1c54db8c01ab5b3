package rank

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"vaultmcp/vault/access"
)

// search_notes under allow Public finds nothing through a link in Public
// that leads into Private, and an unrestricted session finds both.
func TestSearchLinkScope(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"Public/n.md":       "nothing to see",
		"Private/secret.md": "zebracorn secret",
	})
	if err := os.Symlink("../Private/secret.md", filepath.Join(dir, "Public", "alias.md")); err != nil {
		t.Skip("no symlinks:", err)
	}
	_, s := newSearcher(t, dir)
	scoped := access.With(context.Background(), access.MustNew("test", access.Rules{Allow: []string{"Public"}}))
	res, err := s.Search(scoped, Query{Text: "zebracorn"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 0 {
		t.Errorf("under allow Public, search found %q", paths(res))
	}
	res, err = s.Search(context.Background(), Query{Text: "zebracorn"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 2 {
		t.Errorf("unrestricted, search found %q, want the note and its link", paths(res))
	}
}
