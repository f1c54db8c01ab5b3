package markdown

import (
	"slices"
	"strings"
	"testing"
)

// TestBlockLines: each block id comes with the line it is written on, in
// LF and CRLF notes, after frontmatter, and never for an id in code.
func TestBlockLines(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n"} {
		src := strings.Join([]string{
			"---", "a: 1", "---", // lines 1-3
			"para one", "two ^p1", // 4-5
			"",
			"- item ^li", // 7
			"",
			"```", "code ^nope", "```", // 9-11
			"",
			"| a |", "| - |", "| 1 |", // 13-15
			"",
			"^tbl", // 17
		}, eol)
		n := Parse([]byte(src))
		if want := []string{"p1", "li", "tbl"}; !slices.Equal(n.BlockIDs, want) {
			t.Fatalf("eol %q: ids %q, want %q", eol, n.BlockIDs, want)
		}
		if want := []int{5, 7, 17}; !slices.Equal(n.BlockLines, want) {
			t.Errorf("eol %q: lines %v, want %v", eol, n.BlockLines, want)
		}
		if want := []int{4, 7, 17}; !slices.Equal(n.BlockStarts, want) {
			t.Errorf("eol %q: starts %v, want %v", eol, n.BlockStarts, want)
		}
	}
}
