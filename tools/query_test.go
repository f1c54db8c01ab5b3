package tools_test

import (
	"encoding/json"
	"strings"
	"testing"
)

var queryNotes = map[string]string{
	"Home.md":             "# Home\nWelcome. [[Projects/Alpha]]",
	"Projects/Alpha.md":   "---\nstatus: active\npriority: 3\ntags: [project]\n---\n# Alpha\nThe garden irrigation project. [[Home]]",
	"Projects/Beta.md":    "---\nstatus: done\npriority: 1\ntags: [project/archived]\n---\n# Beta\nA finished website redesign.",
	"Journal/2026-01.md":  "Garden notes: planted tomatoes. #garden",
	"Attachments/pic.png": "\x89PNG",
}

func TestQueryNotesTool(t *testing.T) {
	g := newNotesVault(t, queryNotes)
	h := g.serve()
	var res struct {
		Total      int  `json:"total"`
		NextOffset *int `json:"next_offset"`
		Notes      []struct {
			Path       string          `json:"path"`
			Name       string          `json:"name"`
			Modified   string          `json:"modified"`
			Tags       []string        `json:"tags"`
			Properties json.RawMessage `json:"properties"`
		} `json:"notes"`
	}
	out := h.ok("query_notes", `{"filter": {"tags": ["project"], "properties": {"priority": {"gte": 2}}}}`)
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || len(res.Notes) != 1 || res.Notes[0].Path != "Projects/Alpha.md" || res.Notes[0].Name != "Alpha" ||
		string(res.Notes[0].Properties) != `{"status":"active","priority":3,"tags":["project"]}` || res.Notes[0].Tags[0] != "project" || res.NextOffset != nil {
		t.Errorf("query_notes: %s", out)
	}
	// Sorted, paged, with next_offset; a filter sent as JSON text works.
	out = h.ok("query_notes", `{"filter": "{\"folder\": \"Projects\"}", "sort": "-properties.priority", "limit": 1}`)
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Total != 2 || res.Notes[0].Path != "Projects/Alpha.md" || res.NextOffset == nil || *res.NextOffset != 1 {
		t.Errorf("paged: %s", out)
	}
	out = h.ok("query_notes", `{}`)
	if !strings.Contains(out, `"total":4`) {
		t.Errorf("everything: %s", out)
	}
	// Reads its own writes.
	h.ok("set_properties", `{"path": "Journal/2026-01.md", "properties": {"priority": 5}}`)
	out = h.ok("query_notes", `{"filter": {"properties": {"priority": {"gt": 4}}}}`)
	if !strings.Contains(out, `"path":"Journal/2026-01.md"`) {
		t.Errorf("after set_properties: %s", out)
	}
	h.fails("query_notes", `{"filter": {"colour": "red"}}`, `unknown filter key "colour"`)
	h.fails("query_notes", `{"filter": {"links_to": "Nobody"}}`, `no note or file is named "Nobody"`)
	h.fails("query_notes", `{"sort": "weight"}`, "unknown sort")
	h.fails("query_notes", `{"filter": 3}`, "filter")
}

func TestSearchNotesTool(t *testing.T) {
	g := newNotesVault(t, queryNotes)
	h := g.serve()
	var res struct {
		Total   int `json:"total"`
		Results []struct {
			Path    string  `json:"path"`
			Title   string  `json:"title"`
			Score   float64 `json:"score"`
			Snippet string  `json:"snippet"`
			Line    int     `json:"line"`
		} `json:"results"`
	}
	out := h.ok("search_notes", `{"query": "garden"}`)
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Total != 2 || res.Results[0].Path != "Journal/2026-01.md" || res.Results[0].Line != 1 ||
		res.Results[1].Snippet != "The garden irrigation project. [[Home]]" || res.Results[1].Title != "Alpha" {
		t.Errorf("search_notes: %s", out)
	}
	// Sees a patch made a moment ago.
	h.ok("patch_note", `{"path": "Home.md", "target_type": "heading", "target": "Home", "operation": "append", "content": "Zucchini everywhere."}`)
	out = h.ok("search_notes", `{"query": "zucchini"}`)
	if !strings.Contains(out, `"path":"Home.md"`) || !strings.Contains(out, `"snippet":"Zucchini everywhere."`) {
		t.Errorf("after patch: %s", out)
	}
	h.fails("search_notes", `{"query": "  "}`, "no words")
	h.fails("search_notes", `{"query": "x", "limit": 0}`, "limit")
}
