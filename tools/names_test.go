package tools_test

import (
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// The reviewer's calls, through the real handlers: a note whose name is
// stored decomposed (NFD, as macOS writes it) is found by every name
// search typed composed, and each answer gives the path as stored, which
// read_file accepts.
func TestDecomposedNamesFound(t *testing.T) {
	stored := norm.NFD.String("Zettel/Énergie décomposée.md")
	h, _ := mlVault(t, map[string]string{stored: "# Énergie\n"})
	quoted, _ := json.Marshal(stored)
	for _, tt := range []struct{ tool, args string }{
		{"search_files", `{"pattern":"**/*décomposée*"}`},
		{"search_files", `{"pattern":"Zettel/Énergie décomposée.md"}`},
		{"find_files", `{"name":"décomposée"}`},
		{"find_files", `{"name":"Énergie"}`},
		{"query_notes", `{"filter":{"path":"Zettel/Énergie*"}}`},
		{"query_notes", `{"filter":{"folder":"zettel"}}`},
		{"grep", `{"query":"Énergie","include_pattern":"Zettel/Énergie*"}`},
	} {
		got := h.ok(tt.tool, tt.args)
		if !strings.Contains(got, stored) && !strings.Contains(got, string(quoted[1:len(quoted)-1])) {
			t.Errorf("%s %s: the stored path is not in the answer:\n%s", tt.tool, tt.args, got)
		}
	}
	if got := h.ok("read_file", `{"path":`+string(quoted)+`}`); !strings.Contains(got, "# Énergie") {
		t.Errorf("read_file of the path as answered: %s", got)
	}
}
