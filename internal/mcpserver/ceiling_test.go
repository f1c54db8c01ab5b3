package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"vaultmcp/internal/mcpwire/answer"

	"vaultmcp/tools"
	"vaultmcp/vault"
)

// through runs one result through the ceiling.
func through(t *testing.T, limit int, args map[string]any, res *mcp.CallToolResult) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = "some_tool"
	req.Params.Arguments = args
	out, err := resultCeiling(limit)(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return res, nil
	})(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func errorOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if !res.IsError || len(res.Content) != 1 {
		t.Fatalf("want one error block, got %+v", res)
	}
	var body map[string]string
	if err := json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &body); err != nil {
		t.Fatal(err)
	}
	return body["error"]
}

func TestResultCeiling(t *testing.T) {
	// Within the limit: untouched, structured content encoded once and
	// kept as its bytes, which the transport then copies as they are.
	res := through(t, 100, nil, mcp.NewToolResultStructured(map[string]int{"n": 1}, `{"n":1}`))
	if raw, ok := res.StructuredContent.(answer.Encoded); !ok || string(raw) != `{"n":1}` || res.IsError {
		t.Errorf("small structured answer: %#v", res)
	}

	// Text over the limit is cut at a line end, notice included, valid UTF-8.
	lines := strings.Repeat("ligne numéro un\n", 100)
	res = through(t, 500, nil, mcp.NewToolResultText(lines))
	text := res.Content[0].(mcp.TextContent).Text
	head, notice, ok := strings.Cut(text, "\n[... the answer was cut at 500 bytes (the server's limits.max_result_bytes)")
	if !ok || len(text) > 500 || !utf8.ValidString(text) || !strings.HasPrefix(lines, head+"\n") || !strings.HasSuffix(notice, "...]") {
		t.Errorf("cut text (%d bytes):\n%s", len(text), text)
	}
	// One long line: cut at a rune boundary.
	res = through(t, 300, nil, mcp.NewToolResultText(strings.Repeat("é", 400)))
	if text := res.Content[0].(mcp.TextContent).Text; len(text) > 300 || !utf8.ValidString(text) || !strings.HasPrefix(text, "éé") {
		t.Errorf("cut long line: %q", text)
	}

	// Structured over the limit: an error naming the sizes and, when the
	// call had a limit, one that fits.
	big := map[string]any{"items": strings.Split(strings.Repeat("x,", 1000), ",")}
	raw, _ := json.Marshal(big)
	res = through(t, 1000, map[string]any{"limit": 1000.0}, mcp.NewToolResultStructured(big, string(raw)))
	msg := errorOf(t, res)
	for _, want := range []string{"some_tool", "larger than the server's limit of 1000 bytes", "limits.max_result_bytes", "a limit of about"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	res = through(t, 1000, nil, mcp.NewToolResultStructured(big, "short text"))
	if msg := errorOf(t, res); !strings.Contains(msg, "with limit and offset") {
		t.Errorf("error without a limit: %q", msg)
	}
	// An error answer over the limit is cut like any text.
	res = through(t, 200, nil, mcp.NewToolResultError(strings.Repeat("e", 1000)))
	if text := res.Content[0].(mcp.TextContent).Text; len(text) > 200 || !res.IsError {
		t.Errorf("long error: %d bytes", len(text))
	}
}

// Through the assembled server, limits.max_result_bytes holds a tool that
// was asked for more than fits.
func TestResultCeilingThroughServer(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("note-%03d.md", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(tools.Deps{Vault: v, MaxResultBytes: 2000, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, "1")
	if err != nil {
		t.Fatal(err)
	}
	initialize(t, s)
	resp := send(t, s, 2, "tools/call", `{"name":"list_directory","arguments":{"path":"","limit":10000}}`)
	res, _ := resp["result"].(map[string]any)
	content, _ := res["content"].([]any)
	text, _ := content[0].(map[string]any)["text"].(string)
	if len(text) > 2000 || !strings.Contains(text, "limits.max_result_bytes") || !strings.HasPrefix(text, "[file] note-000.md\n") {
		t.Errorf("list_directory with limit 10000 under a 2,000-byte ceiling (%d bytes):\n%s", len(text), text)
	}
	// The default page already fits: it stops at the ceiling and says
	// where to go on.
	resp = send(t, s, 3, "tools/call", `{"name":"list_directory","arguments":{"path":""}}`)
	res, _ = resp["result"].(map[string]any)
	content, _ = res["content"].([]any)
	text, _ = content[0].(map[string]any)["text"].(string)
	if len(text) > 2000 || !strings.Contains(text, "call again with offset=") {
		t.Errorf("default page under a 2,000-byte ceiling (%d bytes):\n%s", len(text), text)
	}
}
