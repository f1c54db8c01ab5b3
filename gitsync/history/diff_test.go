package history

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vaultmcp/internal/testutil"
)

// gitHunks returns the hunk part of `git diff` output (from the first @@).
func gitHunks(out string) []string {
	var lines []string
	body := false
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "@@") {
			body = true
		}
		if body && !strings.HasPrefix(l, "diff --git") {
			lines = append(lines, l)
		}
	}
	return lines
}

func TestUnifiedLinesMatchGit(t *testing.T) {
	t.Parallel()
	cases := [][2]string{
		{"a\nb\nc\n", "a\nB\nc\n"},
		{"", "new\n"},
		{"gone\n", ""},
		{"no newline", "no newline at all"},
		{noteLines(30, "x"), strings.Replace(strings.Replace(noteLines(30, "x"), "x line 2\n", "", 1), "x line 29", "x 29", 1)},
	}
	dir := t.TempDir()
	for i, c := range cases {
		got, _, _ := unifiedLines(c[0], c[1], diffContext)
		a, b := filepath.Join(dir, fmt.Sprint(i, "a")), filepath.Join(dir, fmt.Sprint(i, "b"))
		os.WriteFile(a, []byte(c[0]), 0o644)
		os.WriteFile(b, []byte(c[1]), 0o644)
		out, _ := testutil.GitErr(dir, "diff", "--no-index", a, b)
		if want := gitHunks(out); !slices.Equal(got, want) {
			t.Errorf("case %d:\n got %q\nwant %q", i, got, want)
		}
	}
}
