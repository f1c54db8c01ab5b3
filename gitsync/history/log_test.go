package history

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCapLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want int // bytes kept before "…", -1: unchanged
	}{
		{"short", -1},
		{strings.Repeat("a", MaxLineBytes), -1},
		{strings.Repeat("a", MaxLineBytes+1), MaxLineBytes},
		{"+" + strings.Repeat("é", MaxLineBytes), MaxLineBytes - 1}, // cut before a split é
		{strings.Repeat("日", 200), MaxLineBytes},
	}
	for _, c := range cases {
		got := capLine(c.in)
		switch {
		case c.want < 0 && got != c.in:
			t.Errorf("%.20q: changed to %.20q", c.in, got)
		case c.want >= 0 && (got != c.in[:c.want]+"…" || !utf8.ValidString(got)):
			t.Errorf("%.20q: got %d bytes %q", c.in, len(got), got[max(0, len(got)-10):])
		}
	}
}
