package mcpserver

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"vaultmcp/gitsync"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// The validator compiles each tool's schema at its first call; every
// tool's schema (with the index and git, so all of them) must compile.
func TestEveryToolSchemaCompiles(t *testing.T) {
	root := t.TempDir()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	repo, err := gitsync.Open(context.Background(), gitsync.Options{Dir: root, Locker: v.Locker(), Logger: logger, SyncInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	all := tools.All(tools.Deps{Vault: v, Index: index.New(v, logger), Git: repo, Logger: logger})
	val, err := newArgValidator(all, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(val.schemas) != len(all) {
		t.Fatalf("%d schemas for %d tools", len(val.schemas), len(all))
	}
	if err := val.compileAll(); err != nil {
		t.Fatal(err)
	}
}
