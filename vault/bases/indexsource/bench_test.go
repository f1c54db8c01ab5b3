package indexsource_test

import (
	"context"
	"log/slog"
	"testing"

	"vaultmcp/internal/vaultgen"
	"vaultmcp/vault"
	"vaultmcp/vault/bases"
	"vaultmcp/vault/bases/indexsource"
	"vaultmcp/vault/index"
)

// BenchmarkIndexQueryBase is cmd/vaultbench's query_base figure in small:
// the budgeted base over a varied generated vault, through the index.
func BenchmarkIndexQueryBase(b *testing.B) {
	dir := b.TempDir()
	if _, err := vaultgen.Generate(dir, vaultgen.Options{Notes: 10_000, Seed: 1, Varied: true}); err != nil {
		b.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ix := index.New(v, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	if err := ix.Build(ctx); err != nil {
		b.Fatal(err)
	}
	s := indexsource.New(ix, dir, nil)
	base, err := bases.Parse([]byte(`filters:
  and:
    - 'rating >= 1'
    - file.hasTag("project")
formulas:
  score: 'rating * 10 + file.size / 1000'
  label: 'title + " (" + formula.score.round(1) + ")"'
views:
  - type: table
    sort:
      - property: formula.score
        direction: DESC
    order: [file.name, rating, formula.score, formula.label]
`))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		src, err := s.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		q, err := bases.Compile(base, "")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := q.Run(ctx, src, bases.Options{Limit: 50}); err != nil {
			b.Fatal(err)
		}
	}
}
