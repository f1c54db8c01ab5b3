package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The stdio transport answers tools/call itself, each answer encoded once
// (package answer); over HTTP mcp-go still encodes the answer. The same
// calls on two copies of one vault must be answered with the same bytes,
// the vault's own path aside (an HTTP client is remote and gets paths
// within the vault where a stdio one gets absolute paths: stdio's are
// cut to match), covering results as text, as structured content
// with characters JSON escapes, tool errors, argument errors and a
// protocol error.
func TestToolCallAnswersAsMCPGo(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"Home.md":                         "# Home <b>bold</b> & \"quotes\" \\ back\n\nSee [[Other]] and [x](<Other.md>).\u2028Tab\tend. 雪 é\n",
		"Other.md":                        "---\ntags: [a]\n---\n# Other\n\nBack to [[Home]].\n",
		"concepts/machine_learning.md":    "---\nprefLabel: Machine Learning\ndefinition: Learning <from> data & more\n---\n# Machine Learning\n\nText with <tags> & ampersands.\n",
		"concepts/supervised_learning.md": "---\nprefLabel: Supervised Learning\nbroader: [[Machine Learning]]\n---\n# Supervised Learning\n\nLabels \"quoted\".\n",
	}
	viaStdio, viaHTTP := newVault(t, files), newVault(t, files)
	raw := startRaw(t, viaStdio)
	srv := startHTTP(t, viaHTTP)
	post := httpSession(t, srv)

	calls := []struct{ name, args string }{
		{"read_file", `{"path":"Home.md"}`},
		{"read_file", `{"path":"home"}`},
		{"read_file", `{"path":"Missing.md"}`},
		{"read_file", `{"path":5}`},
		{"get_backlinks", `{"path":"Home.md"}`},
		{"expand_context", `{"concept_id":"machine_learning","max_depth":3}`},
		{"search_concepts", `{"query":"learning"}`},
		{"get_tags", `{}`},
		{"no_such_tool", `{}`},
	}
	for i, c := range calls {
		id := 100 + i
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, c.name, c.args)
		raw.send(t, []byte(line))
		got := raw.answer(t, id)
		want := post(line)
		got = bytes.ReplaceAll(bytes.TrimSuffix(got, []byte("\n")), []byte(viaStdio.Root+"/"), nil)
		got = bytes.ReplaceAll(got, []byte(viaStdio.Root), []byte("<vault>"))
		want = bytes.ReplaceAll(bytes.TrimSuffix(want, []byte("\n")), []byte(viaHTTP.Root), []byte("<vault>"))
		if !bytes.Equal(got, want) {
			t.Errorf("%s %s: stdio answer differs from mcp-go's over HTTP:\nstdio: %.600s\nHTTP:  %.600s", c.name, c.args, got, want)
		}
		if len(got) < 40 {
			t.Errorf("%s: answer %q", c.name, got)
		}
	}
}

// answer waits for the line answering id, as the server wrote it.
func (r *rawSession) answer(t testing.TB, id int) []byte {
	t.Helper()
	for msg := range r.lines {
		var resp rawResponse
		if err := json.Unmarshal(msg, &resp); err != nil {
			t.Fatalf("server sent invalid JSON: %q", msg)
		}
		if string(resp.ID) == fmt.Sprint(id) {
			return msg
		}
	}
	t.Fatalf("no answer to request %d", id)
	return nil
}

// httpSession initializes an MCP session over HTTP by hand (protocol
// 2025-06-18, as the raw stdio session) and returns a function posting
// one message in it and returning the body of the answer as sent.
func httpSession(t testing.TB, srv *httpServer) func(line string) []byte {
	t.Helper()
	sessionID := ""
	post := func(line string) []byte {
		t.Helper()
		req, err := http.NewRequest("POST", srv.url+"/mcp", strings.NewReader(line))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+srv.token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sessionID != "" {
			req.Header.Set("Mcp-Session-Id", sessionID)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode/100 != 2 || (resp.StatusCode == http.StatusOK && resp.Header.Get("Content-Type") != "application/json") {
			t.Fatalf("POST %.100s: %s %s: %.300s", line, resp.Status, resp.Header.Get("Content-Type"), body)
		}
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			sessionID = id
		}
		return body
	}
	post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":` + rawInitialize + `}`)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return post
}
