package indexsource_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"vaultmcp/internal/vaultgen"
	"vaultmcp/vault"
	"vaultmcp/vault/bases"
	"vaultmcp/vault/bases/indexsource"
	"vaultmcp/vault/index"
)

// BenchmarkIndexQueryBase is cmd/vaultbench's query_base figure in small:
// the budgeted base over a varied generated vault, through the index.
func BenchmarkIndexQueryBase(b *testing.B) { benchIndexQuery(b, false) }

// BenchmarkIndexQueryBaseAfterWrite is the same query after each write
// of one note: the source's list and columns are made again for the
// index's new generation (the note itself is converted again, no other).
func BenchmarkIndexQueryBaseAfterWrite(b *testing.B) { benchIndexQuery(b, true) }

func benchIndexQuery(b *testing.B, write bool) {
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
	n := 0
	for b.Loop() {
		if write {
			n++
			rel := "bench-written.md"
			if err := os.WriteFile(filepath.Join(dir, rel), fmt.Appendf(nil, "---\nrating: %d\ntags: [project]\n---\n", n%5), 0o644); err != nil {
				b.Fatal(err)
			}
			ix.Refresh([]string{rel})
		}
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
