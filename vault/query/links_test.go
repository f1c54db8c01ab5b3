package query

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"vaultmcp/vault"
	"vaultmcp/vault/access"
	"vaultmcp/vault/index"
)

// query_notes under allow Public leaves out a link in Public that leads
// into Private, as it leaves out Private's own notes.
func TestRunLinkScope(t *testing.T) {
	dir := t.TempDir()
	for rel, content := range map[string]string{
		"Public/n.md":       "---\nstatus: open\n---\n",
		"Private/secret.md": "---\nstatus: secret\n---\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../Private/secret.md", filepath.Join(dir, "Public", "alias.md")); err != nil {
		t.Skip("no symlinks:", err)
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(v, slog.New(slog.DiscardHandler))
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	scoped := access.With(context.Background(), access.MustNew("test", access.Rules{Allow: []string{"Public"}}))
	res, err := NewTable(ix).Run(scoped, Request{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || res.Notes[0].Path != "Public/n.md" {
		var got []string
		for _, n := range res.Notes {
			got = append(got, n.Path)
		}
		t.Errorf("under allow Public, query_notes = %q, want Public/n.md", got)
	}
}
