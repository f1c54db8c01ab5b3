package vaultgen

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// HubLinks gives note HubNote that many more backlinks and
// ExtraBrokenNames more broken names, and neither changes anything else: a
// note is as without them but for the lines they append.
func TestHubLinksAndExtraBrokenNames(t *testing.T) {
	const n, hub, extra = 1200, 1000, 50
	plainDir, popularDir := t.TempDir(), t.TempDir()
	plain, err := Generate(plainDir, Options{Notes: n, Seed: 3, Varied: true})
	if err != nil {
		t.Fatal(err)
	}
	popular, err := Generate(popularDir, Options{Notes: n, Seed: 3, Varied: true, HubLinks: hub, ExtraBrokenNames: extra})
	if err != nil {
		t.Fatal(err)
	}
	for i, rel := range plain.Paths {
		a, err := os.ReadFile(filepath.Join(plainDir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(popularDir, filepath.FromSlash(popular.Paths[i])))
		if err != nil {
			t.Fatal(err)
		}
		want := string(a)
		if i >= 100 && i < 100+hub {
			want += "\nSee [[" + popular.Name(HubNote) + "]].\n"
		}
		if i%20 == 7 {
			want += fmt.Sprintf("\nTo write: [[Missing %d]].\n", 1000+(i/20)%extra)
		}
		if string(b) != want {
			t.Fatalf("note %d is not the note without the options plus their lines:\n%s", i, b)
		}
	}

	v, err := vault.Open(popularDir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(v, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	if err := ix.Build(ctx); err != nil {
		t.Fatal(err)
	}
	count, _, err := ix.Linkers(ctx, popular.Path(HubNote), 0, 10)
	if err != nil || count < hub || count > hub+20 {
		t.Errorf("the popular note has %d backlinks (%v), want %d and a handful", count, err, hub)
	}
	broken, err := ix.Broken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, b := range broken {
		for _, target := range b.Targets {
			names[target] = true
			if !strings.HasPrefix(target, "Missing ") {
				t.Errorf("%s: broken link to %q", b.Source, target)
			}
		}
	}
	for k := range extra {
		if name := fmt.Sprintf("Missing %d", 1000+k); !names[name] {
			t.Errorf("no link to %s", name)
		}
	}
	if _, err := Generate(t.TempDir(), Options{Notes: 500, HubLinks: 450}); err == nil {
		t.Error("450 links to a popular note in a 500-note vault were generated")
	}
}
