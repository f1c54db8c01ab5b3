package tools

import (
	"testing"
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
