package index

import (
	"log/slog"
	"testing"

	"vaultmcp/internal/vaultgen"
	"vaultmcp/vault"
	"vaultmcp/vault/concept"
)

// BenchmarkBuildConcepts builds the index of a vault of 10,000 notes,
// 1,000 of them concept notes, and of a control vault of the same bytes
// without concepts.
func BenchmarkBuildConcepts(b *testing.B) {
	b.Run("concepts", func(b *testing.B) { benchBuild(b, false) })
	b.Run("control", func(b *testing.B) { benchBuild(b, true) })
}

func benchBuild(b *testing.B, inert bool) {
	dir := b.TempDir()
	if _, err := vaultgen.Generate(dir, vaultgen.Options{Notes: 10000, Concepts: 1000, Seed: 4, ConceptsInert: inert}); err != nil {
		b.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		ix := New(v, slog.New(slog.DiscardHandler))
		if err := ix.Build(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConceptQueries measures the graph's side of the concept tools
// on 1,000 concepts among 10,000 notes: a depth-3 expansion, a search
// and a path across the graph, each in one consistent view.
func BenchmarkConceptQueries(b *testing.B) {
	const notes, concepts = 10000, 1000
	dir := b.TempDir()
	if _, err := vaultgen.Generate(dir, vaultgen.Options{Notes: notes, Concepts: concepts, Seed: 4}); err != nil {
		b.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ix := New(v, slog.New(slog.DiscardHandler))
	if err := ix.Build(ctx); err != nil {
		b.Fatal(err)
	}
	rel := func(k int) string { return vaultgen.Path(vaultgen.ConceptNote(k, notes, concepts)) }
	b.Run("expand", func(b *testing.B) {
		for b.Loop() {
			_ = ix.Concepts(ctx, func(cv *ConceptView) error {
				for _, st := range concept.Expand(cv, rel(5), concept.Hierarchy, 3) {
					_ = cv.Content(st.Node)
				}
				return nil
			})
		}
	})
	q := concept.NewQuery("memory graph")
	b.Run("search", func(b *testing.B) {
		for b.Loop() {
			_ = ix.Concepts(ctx, func(cv *ConceptView) error { cv.Search(q); return nil })
		}
	})
	b.Run("path", func(b *testing.B) {
		all := []concept.Relation{concept.Broader, concept.Narrower, concept.Related, concept.Prerequisite, concept.PrerequisiteOf}
		for b.Loop() {
			_ = ix.Concepts(ctx, func(cv *ConceptView) error {
				if concept.ShortestPath(cv, rel(concepts-1), rel(concepts/2+1), all) == nil {
					b.Fatal("no path")
				}
				return nil
			})
		}
	})
}
