package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// baseRows calls query_base and returns its rows' paths and values from
// the structured content.
func baseRows(t *testing.T, s *session, args map[string]any) (paths []string, values []map[string]any) {
	t.Helper()
	res, err := s.callResult("query_base", args)
	if err != nil || res.IsError {
		t.Fatalf("query_base %v: %v %s", args, err, resultText(res))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Total int `json:"total"`
		Rows  []struct {
			Path   string         `json:"path"`
			Values map[string]any `json:"values"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
	if out.Total != len(out.Rows) {
		t.Errorf("total %d, %d rows", out.Total, len(out.Rows))
	}
	for _, r := range out.Rows {
		paths = append(paths, r.Path)
		values = append(values, r.Values)
	}
	return paths, values
}

// TestBaseFollowsRename: a base lists notes by their properties; after
// rename_file of a listed note, query_base lists it at its new path,
// with its values, in the same order.
func TestBaseFollowsRename(t *testing.T) {
	v := newVault(t, map[string]string{
		"Projects/Idea.md":   "---\nstatus: open\ndue: 2026-03-01\ntags: [project]\n---\n# Idea\n",
		"Projects/Garden.md": "---\nstatus: open\ndue: 2026-02-01\ntags: [project]\n---\n# Garden\n",
		"Projects/Old.md":    "---\nstatus: done\ndue: 2025-01-01\ntags: [project]\n---\n# Old\n",
		"Home.md":            "# Home\n![[Open projects.base]]\n",
		"Open projects.base": "filters:\n  and:\n    - file.hasTag(\"project\")\n    - 'status != \"done\"'\n" +
			"formulas:\n  month: 'due.format(\"YYYY-MM\")'\n" +
			"views:\n  - type: table\n    name: By due date\n    order: [file.name, formula.month]\n    sort:\n      - property: due\n        direction: ASC\n",
	})
	s := startSession(t, v)
	paths, values := baseRows(t, s, map[string]any{"path": "Open projects.base"})
	if !slices.Equal(paths, []string{"Projects/Garden.md", "Projects/Idea.md"}) || values[1]["formula.month"] != "2026-03" {
		t.Fatalf("before the rename: %q %v", paths, values)
	}
	s.ok(t, "rename_file", map[string]any{"old_path": "Projects/Idea.md", "new_path": "Ideas/Big Idea.md"})
	paths, values = baseRows(t, s, map[string]any{"path": "Open projects.base"})
	if !slices.Equal(paths, []string{"Projects/Garden.md", "Ideas/Big Idea.md"}) || values[1]["file.name"] != "Big Idea.md" {
		t.Errorf("after the rename: %q %v", paths, values)
	}
	// A base's own error is named, never an empty answer.
	msg := s.fail(t, "query_base", map[string]any{"base": "filters: 'file.hasTagz(\"project\")'\n"})
	if !strings.Contains(msg, `filters at 1:6: unknown function hasTagz()`) {
		t.Errorf("unknown function: %q", msg)
	}
}
