package e2e

import (
	"strings"
	"testing"
)

// TestTextAnswers drives the text tools through the built binary on a
// vault as an agent trial found it: a PNG attachment, a note stored
// decomposed (NFD, as pasted from macOS). Text edits refuse the PNG and
// leave it and the history alone; composed queries and old_text find the
// decomposed text; accent-free searches say what would match.
func TestTextAnswers(t *testing.T) {
	t.Parallel()
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10"
	nfdName := "Zettelkasten/2024/Cafe\u0301 cre\u0300me 00915.md"
	v := newVault(t, map[string]string{
		"Archive/attachments/scan-01053.png": png,
		nfdName:                              "# Cafe\u0301 cre\u0300me\n\nLe cafe\u0301 e\u0301tait tre\u0300s bon.\n",
		"Zettelkasten/2024/Café crème 00015.md": "# Café crème\n\nThe Quick Fox\n",
	})
	s := startSession(t, v)
	before := v.snapshot(t)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"edit_file", map[string]any{"path": "Archive/attachments/scan-01053.png", "old_text": "PNG", "new_text": "JPG"}},
		{"patch_note", map[string]any{"path": "Archive/attachments/scan-01053.png", "target_type": "frontmatter", "target": "x", "operation": "replace", "content": "y"}},
		{"set_properties", map[string]any{"path": "Archive/attachments/scan-01053.png", "properties": map[string]any{"x": "y"}}},
		{"write_file", map[string]any{"path": "Archive/attachments/scan-01053.png", "content": "text", "mode": "append"}},
	} {
		wantContains(t, c.tool+" on a PNG", s.fail(t, c.tool, c.args), "is a binary file (read_file shows no text of it)", "nothing was changed")
	}
	v.unchanged(t, before)

	wantContains(t, "grep composed", s.ok(t, "grep", map[string]any{"query": "café était"}), nfdName+":3: Le cafe\u0301 e\u0301tait")
	wantContains(t, "grep accent-free", s.ok(t, "grep", map[string]any{"query": "cafe creme"}),
		`Ignoring accents, 2 lines in 2 files would match`, `use query "Café crème"`)
	wantContains(t, "find_files accent-free", s.ok(t, "find_files", map[string]any{"name": "Cafe creme"}), `use name "Café crème"`)
	wantContains(t, "search_files accent-free", s.ok(t, "search_files", map[string]any{"pattern": "Cafe*"}), `use pattern "Café*"`)
	got := s.ok(t, "find_files", map[string]any{"name": "Café crème 00*15", "path": "Zettelkasten/2024"})
	if i, j := strings.Index(got, "00015"), strings.Index(got, "00915"); i < 0 || j < i {
		t.Errorf("find_files without the extension, sorted by the composed name:\n%s", got)
	}
	wantContains(t, "edit_file near miss", s.fail(t, "edit_file", map[string]any{"path": "Zettelkasten/2024/Café crème 00015.md", "old_text": "the quick fox", "new_text": "x"}),
		"the text at line 3 differs from old_text only in letter case", `line 3 reads "The Quick Fox"`)
	wantContains(t, "edit_file composed", s.ok(t, "edit_file", map[string]any{"path": nfdName, "old_text": "Le café était très bon.", "new_text": "Le thé était bon."}),
		"Edited", "found only in Unicode form NFD")
	if got := v.read(t, nfdName); got != "# Cafe\u0301 cre\u0300me\n\nLe the\u0301 e\u0301tait bon.\n" {
		t.Errorf("the decomposed note after the edit: %q", got)
	}
}
