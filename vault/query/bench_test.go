package query

import (
	"context"
	"log/slog"
	"testing"

	"vaultmcp/internal/vaultgen"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// benchIndex builds an index over a generated vault of n notes.
func benchIndex(b testing.TB, n int) *index.Index {
	b.Helper()
	g, err := vaultgen.Generate(b.TempDir(), vaultgen.Options{Notes: n, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	v, err := vault.Open(g.Dir, vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ix := index.New(v, slog.New(slog.DiscardHandler))
	if err := ix.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	return ix
}

func BenchmarkRun(b *testing.B) {
	ix := benchIndex(b, 10000)
	ctx := context.Background()
	t := NewTable(ix)
	for _, bc := range []struct {
		name   string
		filter map[string]any
		sort   string
	}{
		{"tag-newest", map[string]any{"tags": "project"}, "-modified"},
		{"property-range", map[string]any{"properties": map[string]any{"created": map[string]any{"gte": "2025-06-01"}}}, "properties.created"},
		{"links-to", map[string]any{"links_to": vaultgen.Name(7)}, ""},
	} {
		f, err := Parse(bc.filter)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := t.Run(ctx, Request{Filter: f, Sort: bc.sort}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
