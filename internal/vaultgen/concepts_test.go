package vaultgen

import (
	"context"
	"log/slog"
	"testing"

	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// The generated concept notes are concepts, their relations resolve (but
// for the one in fifty meant to name nothing), and the inert control
// makes none.
func TestGenerateConcepts(t *testing.T) {
	for _, inert := range []bool{false, true} {
		dir := t.TempDir()
		if _, err := Generate(dir, Options{Notes: 1000, Concepts: 100, Seed: 3, ConceptsInert: inert}); err != nil {
			t.Fatal(err)
		}
		v, err := vault.Open(dir, vault.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ix := index.New(v, slog.New(slog.DiscardHandler))
		if err := ix.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
		var st index.ConceptStats
		if err := ix.Concepts(context.Background(), func(cv *index.ConceptView) error { st = cv.Stats(); return nil }); err != nil {
			t.Fatal(err)
		}
		if inert {
			if st.Concepts != 0 {
				t.Errorf("inert control: %d concepts", st.Concepts)
			}
			continue
		}
		// 99 broader pairs (every concept but the root; the explicit
		// narrower lists repeat some of them); one target names nothing
		// (concept 50's; concept 0 writes its related as a list).
		if st.Concepts != 100 || st.Broader != 99 || st.Unresolved != 1 || st.Prerequisite == 0 || st.Related == 0 {
			t.Errorf("stats %+v", st)
		}
	}
}
