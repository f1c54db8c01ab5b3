package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHTTPAnswersNameNoServerPath: over HTTP the client is remote, and no
// answer, MCP or REST, names the server's folders: file_path and
// absolute_path give the path within the vault, vault_path the vault's
// folder name. Over stdio the client shares the server's disk and keeps
// the absolute paths the concept tools' and get_backlinks' answers
// document.
func TestHTTPAnswersNameNoServerPath(t *testing.T) {
	t.Parallel()
	v := newVault(t, conceptNotes)
	srv := startHTTP(t, v)
	s := srv.session(t, srv.token)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"get_concept", map[string]any{"concept_id": "regression"}},
		{"expand_context", map[string]any{"concept_id": "regression", "max_depth": 2, "include_content": true}},
		{"search_concepts", map[string]any{"query": "regression"}},
		{"get_concept_path", map[string]any{"from_concept": "linear_regression", "to_concept": "machine_learning"}},
		{"get_statistics", map[string]any{}},
		{"get_backlinks", map[string]any{"note_name": "regression"}},
		{"get_vault_info", map[string]any{}},
		{"list_directory", map[string]any{"path": "", "recursive": true}},
		{"read_file", map[string]any{"path": "concepts/regression.md"}},
		{"grep", map[string]any{"query": "regression"}},
		{"search_files", map[string]any{"pattern": "*.md"}},
		{"find_files", map[string]any{"name": "regression"}},
		{"search_notes", map[string]any{"query": "regression"}},
		{"query_notes", map[string]any{"filter": map[string]any{"folder": "concepts"}}},
		{"get_recent_changes", map[string]any{}},
		{"read_file", map[string]any{"path": "concepts/missing.md"}}, // an error
	}
	answers := map[string]map[string]any{}
	for _, c := range calls {
		res, err := s.callResult(c.tool, c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		raw, _ := json.Marshal(res) // the text and structuredContent
		if strings.Contains(string(raw), v.Root) {
			t.Errorf("%s %v answers a remote client with the vault's absolute path %s:\n%s", c.tool, c.args, v.Root, raw)
		}
		var m map[string]any
		if !res.IsError && json.Unmarshal([]byte(resultText(res)), &m) == nil {
			answers[c.tool] = m
		}
	}
	if got := answers["get_concept"]["file_path"]; got != "concepts/regression.md" {
		t.Errorf("get_concept's file_path = %v, want concepts/regression.md", got)
	}
	if got := answers["get_statistics"]["vault_path"]; got != filepath.Base(v.Root) {
		t.Errorf("get_statistics' vault_path = %v, want %s", got, filepath.Base(v.Root))
	}
	res, err := s.callResult("get_backlinks", map[string]any{"note_name": "regression"})
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonPath(res.StructuredContent, "backlinks", "0", "absolute_path"); got != "notes/plain.md" {
		t.Errorf("get_backlinks' absolute_path = %v, want notes/plain.md", got)
	}

	for _, c := range []struct{ method, path, body string }{
		{"POST", "/api/concept", `{"concept_id": "regression", "include_relations": true}`},
		{"POST", "/api/context/expand", `{"concept_id": "regression", "max_depth": 2, "include_content": true}`},
		{"POST", "/api/search", `{"query": "regression"}`},
		{"GET", "/api/statistics", ""},
		{"GET", "/api/notes/concepts/regression.md", ""},
	} {
		req, _ := http.NewRequest(c.method, srv.url+c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer "+srv.token)
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || strings.Contains(string(body), v.Root) {
			t.Errorf("%s %s: %d %s", c.method, c.path, resp.StatusCode, body)
		}
	}

	local := startSession(t, v)
	var concept, stats map[string]any
	_ = json.Unmarshal([]byte(local.ok(t, "get_concept", map[string]any{"concept_id": "regression"})), &concept)
	_ = json.Unmarshal([]byte(local.ok(t, "get_statistics", map[string]any{})), &stats)
	if want := filepath.Join(v.Root, "concepts", "regression.md"); concept["file_path"] != want || stats["vault_path"] != v.Root {
		t.Errorf("over stdio: file_path %v, vault_path %v; want %s and %s", concept["file_path"], stats["vault_path"], want, v.Root)
	}
}

// jsonPath walks a decoded JSON value by object keys and list indexes.
func jsonPath(v any, keys ...string) any {
	for _, k := range keys {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}
