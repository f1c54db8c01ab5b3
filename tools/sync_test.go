package tools_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/gitsync"
	"vaultmcp/tools"
)

// TestConfirmMassDeletionTool: the guard's hold shows in get_vault_info,
// confirm_mass_deletion refuses a count that differs from it, and with the
// right count commits the deletion.
func TestConfirmMassDeletionTool(t *testing.T) {
	var repo *gitsync.Repo
	h := newDepsHarness(t, func(d *tools.Deps) {
		var err error
		repo, err = gitsync.Open(context.Background(), gitsync.Options{Dir: d.Vault.Root(), Locker: d.Vault.Locker(), NoFsync: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { repo.Close() })
		d.Git = repo
	})
	h.fails("confirm_mass_deletion", `{"files":3}`, "no mass deletion is waiting")
	for i := 0; i < 6; i++ {
		h.file(fmt.Sprintf("notes/n%d.md", i), "note\n")
	}
	if err := repo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(h.root, "notes")); err != nil {
		t.Fatal(err)
	}
	if err := repo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	info := h.ok("get_vault_info", `{}`)
	if !strings.Contains(info, "Mass deletion held back") || !strings.Contains(info, "confirm_mass_deletion (files: 6)") {
		t.Errorf("get_vault_info does not show the hold:\n%s", info)
	}
	h.fails("confirm_mass_deletion", `{"files":5}`, "6 files are waiting", "not 5")
	h.fails("confirm_mass_deletion", `{}`, "files")
	got := h.ok("confirm_mass_deletion", `{"files":6}`)
	if !strings.Contains(got, "Committed the deletion of 6 files") {
		t.Errorf("confirm_mass_deletion = %q", got)
	}
	if info := h.ok("get_vault_info", `{}`); strings.Contains(info, "Mass deletion held back") {
		t.Errorf("hold still shown after the confirmation:\n%s", info)
	}
}
