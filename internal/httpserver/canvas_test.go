package httpserver

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestCanvasAPI(t *testing.T) {
	e := newEnv(t)
	tok := bearer(e.tokens["full"])
	resp, m := e.do("POST", "/api/canvas/Journal/Board.canvas", `{"add_nodes":[{"id":"a","type":"file","file":"Journal/2024-01-01.md"},{"id":"b","type":"text","text":"hi"}],"add_edges":[{"id":"e","fromNode":"b","toNode":"a"}]}`, tok...)
	if resp.StatusCode != 200 || m["created"] != true || m["commit"] == "" {
		t.Fatalf("POST: %d %v", resp.StatusCode, m)
	}
	etag := resp.Header.Get("ETag")
	resp, m = e.do("GET", "/api/canvas/Journal/Board.canvas?limit=1", "", tok...)
	if resp.StatusCode != 200 || resp.Header.Get("ETag") != etag || m["node_count"] != 2.0 || len(m["nodes"].([]any)) != 1 || m["next_offset"] != 1.0 {
		t.Fatalf("GET: %d %v", resp.StatusCode, m)
	}
	before, _ := os.ReadFile(filepath.Join(e.root, "Journal", "Board.canvas"))
	// A stale If-Match, an edit breaking the rules, another body: refused.
	for _, c := range []struct {
		body    string
		headers []string
		want    int
	}{
		{`{"remove_nodes":["a"]}`, []string{"If-Match", strconv.Quote(strings.Repeat("0", 40))}, 412},
		{`{"add_edges":[{"fromNode":"a","toNode":"zz"}]}`, nil, 400},
		{`{"nodes":[]}`, nil, 400},
	} {
		resp, m := e.do("POST", "/api/canvas/Journal/Board.canvas", c.body, append(tok, c.headers...)...)
		if resp.StatusCode != c.want {
			t.Errorf("POST %s: %d %v, want %d", c.body, resp.StatusCode, m, c.want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(e.root, "Journal", "Board.canvas")); string(after) != string(before) {
		t.Errorf("a refused edit wrote:\n%s", after)
	}
	// If-Match with the version read: the edit goes through, once per key.
	hdr := append(tok, "If-Match", etag, "Idempotency-Key", "k1")
	for i := range 2 {
		resp, m = e.do("POST", "/api/canvas/Journal/Board.canvas", `{"update_nodes":[{"id":"b","text":"hello"}]}`, hdr...)
		if resp.StatusCode != 200 || (i == 1) != (resp.Header.Get("Idempotent-Replayed") == "true") {
			t.Fatalf("POST %d: %d %v", i, resp.StatusCode, m)
		}
	}
	if resp, m = e.do("GET", "/api/canvas/Journal/2024-01-01.md", "", tok...); resp.StatusCode != 400 {
		t.Errorf("GET a note as a canvas: %d %v", resp.StatusCode, m)
	}
	if resp, _ = e.do("GET", "/api/canvas/Journal/Board.canvas", "", bearer(e.tokens["readonly"])...); resp.StatusCode != 200 {
		t.Errorf("read-only GET: %d", resp.StatusCode)
	}
	if resp, _ = e.do("POST", "/api/canvas/Journal/Board.canvas", `{"remove_nodes":["b"]}`, bearer(e.tokens["readonly"])...); resp.StatusCode != 403 {
		t.Errorf("read-only POST: %d", resp.StatusCode)
	}
}
