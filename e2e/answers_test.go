package e2e

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// An agent reads a note that is one 258 KB line to its last byte through
// the binary, following the notices' offset and column; a page past the
// end is an answer; every tool reads relative times.
func TestAnswersAnAgentCanActOn(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; b.Len() < 258<<10; i++ {
		fmt.Fprintf(&b, "word%d é 日本 ", i)
	}
	wide := b.String() + "\nlast line\n"
	v := newVault(t, map[string]string{"wide.md": wide})
	s := startSession(t, v)

	next := regexp.MustCompile(`read on with offset=(\d+)(?: column=(\d+))? \.\.\.\]$`)
	var joined strings.Builder
	args := map[string]any{"path": "wide.md"}
	for pages := 0; ; pages++ {
		got := s.ok(t, "read_file", args)
		body, notice, _ := strings.Cut(got, "\n\n[...")
		m := next.FindStringSubmatch(notice)
		joined.WriteString(body)
		if m == nil || m[2] == "" {
			joined.WriteString("\n")
		}
		if m == nil {
			break
		}
		offset, _ := strconv.Atoi(m[1])
		column, _ := strconv.Atoi(cmp.Or(m[2], "0"))
		args = map[string]any{"path": "wide.md", "offset": offset, "column": column}
		if pages > 10 {
			t.Fatal("no end after 10 pages")
		}
	}
	if joined.String() != wide {
		t.Errorf("pages joined: %d bytes, want the note's %d", joined.Len(), len(wide))
	}

	if got := s.ok(t, "read_file", map[string]any{"path": "wide.md", "offset": 9}); got != "[offset=9 is past the end: wide.md has 2 lines; offset=0 reads from the start]" {
		t.Errorf("past the end: %q", got)
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"find_files", map[string]any{"modified_after": "2 weeks ago"}},
		{"query_notes", map[string]any{"filter": map[string]any{"modified_after": "yesterday"}}},
		{"get_recent_changes", map[string]any{"since": "7d", "files_only": true}},
		{"get_note_history", map[string]any{"path": "wide.md", "since": "an hour ago"}},
	} {
		if got := s.ok(t, call.tool, call.args); !strings.Contains(got, "wide.md") {
			t.Errorf("%s %v = %q, want wide.md in it", call.tool, call.args, got)
		}
	}
}
