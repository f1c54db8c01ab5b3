package query

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// Path globs and folders typed in either Unicode form find notes whose
// names are stored decomposed (NFD) or composed; answers keep the path as
// stored.
func TestFilterNamesInEitherNormalForm(t *testing.T) {
	nfd := norm.NFD.String
	stored := nfd("Zettel/Énergie décomposée.md")
	inDir := nfd("Été 2026") + "/plan.md"
	ix := testIndex(t, map[string]string{
		stored:                       "x",
		inDir:                        "x",
		"Zettel/Énergie composée.md": "x",
		"Zettel/Other.md":            "x",
	}, nil)
	cases := []struct {
		filter string
		want   []string
	}{
		{`{"path": "Zettel/Énergie*"}`, []string{stored, "Zettel/Énergie composée.md"}},
		{`{"path": "**/*décomposée*"}`, []string{stored}},
		{`{"path": "` + nfd("Zettel/Énergie composée.md") + `"}`, []string{"Zettel/Énergie composée.md"}},
		{`{"folder": "Été 2026"}`, []string{inDir}},
		{`{"folder": "été 2026/"}`, []string{inDir}},
		{`{"folder": "` + nfd("Été 2026") + `"}`, []string{inDir}},
		{`{"not": {"folder": "Été 2026"}, "path": "**/*.md"}`, []string{stored, "Zettel/Other.md", "Zettel/Énergie composée.md"}},
	}
	for _, tc := range cases {
		var raw any
		if err := json.Unmarshal([]byte(tc.filter), &raw); err != nil {
			t.Fatal(err)
		}
		f, err := Parse(raw)
		if err != nil {
			t.Fatalf("%s: parse: %v", tc.filter, err)
		}
		res, err := NewTable(ix).Run(context.Background(), Request{Filter: f, Sort: "path"})
		if err != nil {
			t.Fatalf("%s: run: %v", tc.filter, err)
		}
		got := []string{}
		for _, n := range res.Notes {
			got = append(got, n.Path)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.filter, got, tc.want)
		}
	}
}
