package tools

import (
	"testing"

	"golang.org/x/text/unicode/norm"
)

func TestNameQueryScore(t *testing.T) {
	q := newNameQuery("plugins/canvas.md")
	for _, tt := range []struct {
		rel   string
		dir   bool
		score int
		ok    bool
	}{
		{"Plugins/Canvas.md", false, 0, true},
		{"Plugins/Canvas", true, 0, true},
		{"Archive/Canvas.md", false, 1, true},
		{"Archive/Canvs.md", false, 2, true},
		{"Archive/Other.md", false, 0, false},
	} {
		s, ok := q.score(tt.rel, tt.dir)
		if s != tt.score || ok != tt.ok {
			t.Errorf("score(%q) = %d, %v; want %d, %v", tt.rel, s, ok, tt.score, tt.ok)
		}
	}
}

// Suggestions fold accents and Unicode form as completion does: "ete"
// finds "Été", stored composed or decomposed.
func TestNameQueryScoreAccents(t *testing.T) {
	nfd := norm.NFD.String
	for _, tt := range []struct {
		given, rel string
		dir        bool
		score      int
		ok         bool
	}{
		{"ete 2026", "Été 2026", true, 0, true},
		{"ete 2026/plan.md", nfd("Été 2026/plan.md"), false, 0, true},
		{"Zettel/Energie.md", nfd("Zettel/Énergie.md"), false, 0, true},
		{"Archive/energie", nfd("Zettel/Énergie.md"), false, 1, true},
		{"Archive/énergies", "Zettel/Energie.md", false, 2, true},
		{"Été", "Ete 2026", true, 0, false},
	} {
		s, ok := newNameQuery(tt.given).score(tt.rel, tt.dir)
		if s != tt.score || ok != tt.ok {
			t.Errorf("%q: score(%q) = %d, %v; want %d, %v", tt.given, tt.rel, s, ok, tt.score, tt.ok)
		}
	}
}
