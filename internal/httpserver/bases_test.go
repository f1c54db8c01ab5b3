package httpserver

import (
	"strings"
	"testing"
)

// TestBasesAPI: POST /api/bases/query answers query_base, under the
// credential's scope, with the base's own errors as 400.
func TestBasesAPI(t *testing.T) {
	e := newEnv(t)
	tok := bearer(e.tokens["full"])
	base := `{"base": "filters: 'file.hasProperty(\"prefLabel\")'\nviews:\n  - type: table\n    order: [prefLabel]\n    sort: [{property: prefLabel}]\n"}`
	resp, m := e.do("POST", "/api/bases/query", base, tok...)
	rows, _ := m["rows"].([]any)
	if resp.StatusCode != 200 || m["total"] != float64(3) || len(rows) != 3 {
		t.Fatalf("query: %d %v", resp.StatusCode, m)
	}
	if first, _ := rows[0].(map[string]any); first["path"] != "Journal/regression.md" {
		t.Errorf("first row %v", rows[0])
	}
	// The journal token sees the two concepts in Journal only.
	resp, m = e.do("POST", "/api/bases/query", base, bearer(e.tokens["journal"])...)
	if resp.StatusCode != 200 || m["total"] != float64(2) {
		t.Errorf("journal token: %d %v", resp.StatusCode, m)
	}
	for _, c := range []struct {
		body, detail string
		want         int
	}{
		{`{"base": "formulas:\n  x: nosuch(1)\n"}`, `formula "x" at 1:1: unknown function nosuch()`, 400},
		{`{"path": "Nope.base"}`, "Nope.base", 404},
		{`{"path": "Home.md"}`, "not a .base file", 400},
		{`{"bass": "x"}`, `Unknown field "bass"`, 400},
	} {
		resp, m := e.do("POST", "/api/bases/query", c.body, tok...)
		if d, _ := m["detail"].(string); resp.StatusCode != c.want || !strings.Contains(d, c.detail) {
			t.Errorf("%s: %d %v, want %d %q", c.body, resp.StatusCode, m, c.want, c.detail)
		}
	}
	if resp, _ := e.do("GET", "/api/bases/query", "", tok...); resp.StatusCode != 405 {
		t.Errorf("GET: %d", resp.StatusCode)
	}
}
