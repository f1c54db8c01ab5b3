package search

import (
	"context"
	"slices"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// Names stored decomposed (NFD, as macOS writes them) and names stored
// composed are found by patterns typed either way; answers keep the path
// as it is on disk, sorted by the composed spelling of the path
// ("composée" before "décomposée", whichever form each is stored in).
func TestNamesInEitherNormalForm(t *testing.T) {
	nfd := norm.NFD.String
	stored := nfd("Zettel/Énergie décomposée.md")
	storedDir := nfd("Été 2026") + "/plan.md"
	composed := "Zettel/Énergie composée.md"
	v := newTestVault(t, map[string]string{
		stored:     "énergie",
		storedDir:  "énergie",
		composed:   "énergie",
		"Other.md": "énergie",
	})
	globs := []struct {
		q    GlobQuery
		want []string
	}{
		{GlobQuery{Pattern: "**/*décomposée*"}, []string{stored}},
		{GlobQuery{Pattern: "Zettel/Énergie décomposée.md"}, []string{stored}},
		{GlobQuery{Pattern: nfd("Zettel/Énergie décomposée.md")}, []string{stored}},
		{GlobQuery{Pattern: "zettel/énergie*", CaseInsensitive: true}, []string{composed, stored}},
		{GlobQuery{Pattern: "ZETTEL/ÉNERGIE*", CaseInsensitive: true}, []string{composed, stored}},
		{GlobQuery{Pattern: nfd("*composée*")}, []string{composed, stored}},
		{GlobQuery{Pattern: "Été 2026/*"}, []string{storedDir}},
		{GlobQuery{Pattern: "*.md", Path: "Été 2026"}, []string{storedDir}},
		{GlobQuery{Pattern: "[ÉE]nergie*"}, []string{composed, stored}},
	}
	findNames := []struct {
		name string
		want []string
	}{
		{"décomposée", []string{stored}},
		{"Énergie", []string{composed, stored}},
		{"énergie", []string{composed, stored}},
		{nfd("énergie"), []string{composed, stored}},
		{"*décomposée.md", []string{stored}},
	}
	greps := []struct {
		q    GrepQuery
		want []string
	}{
		{GrepQuery{Query: "énergie", Include: "Zettel/Énergie*"}, []string{composed, stored}},
		{GrepQuery{Query: "énergie", Include: "*décomposée*"}, []string{stored}},
		{GrepQuery{Query: "énergie", Path: "Zettel/Énergie décomposée.md"}, []string{stored}},
		{GrepQuery{Query: "énergie", Path: "Été 2026", Include: "*.md"}, []string{storedDir}},
	}
	for name, e := range engines(t, v) {
		for _, tt := range globs {
			res, err := e.Glob(context.Background(), tt.q)
			if err != nil {
				t.Errorf("%s: Glob(%+v): %v", name, tt.q, err)
				continue
			}
			if !slices.Equal(res.Paths, tt.want) {
				t.Errorf("%s: Glob(%+v) = %q, want %q", name, tt.q, res.Paths, tt.want)
			}
		}
		for _, tt := range findNames {
			res, err := e.Find(context.Background(), FindQuery{Name: tt.name, MaxSize: -1})
			if err != nil {
				t.Errorf("%s: Find(%q): %v", name, tt.name, err)
				continue
			}
			var got []string
			for _, f := range res.Files {
				got = append(got, f.Path)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s: Find(%q) = %q, want %q", name, tt.name, got, tt.want)
			}
		}
		for _, tt := range greps {
			res, err := e.Grep(context.Background(), tt.q)
			if err != nil {
				t.Errorf("%s: Grep(%+v): %v", name, tt.q, err)
				continue
			}
			var got []string
			for _, l := range res.Lines {
				got = append(got, l.Path)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s: Grep(%+v) = %q, want %q", name, tt.q, got, tt.want)
			}
		}
	}
}
