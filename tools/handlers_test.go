package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/mcpserver"
	"vaultmcp/tools"
	"vaultmcp/vault"
)

// harness is the assembled server over a temporary vault, driven with raw
// JSON-RPC as a client would send it.
type harness struct {
	t    *testing.T
	root string
	v    *vault.Vault
	s    *server.MCPServer
	id   int
}

func newHarness(t *testing.T, maxRead int64) *harness {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := tools.Deps{Vault: v, MaxReadBytes: maxRead, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	s, err := mcpserver.New(d, "test", mcpserver.WithOutputValidation())
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, root: root, v: v, s: s}
	h.rpc("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}`)
	return h
}

// rpc sends one request and returns the decoded response.
func (h *harness) rpc(method, params string) map[string]any {
	h.t.Helper()
	h.id++
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, h.id, method, params)
	resp := h.s.HandleMessage(context.Background(), json.RawMessage(msg))
	raw, err := json.Marshal(resp)
	if err != nil {
		h.t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		h.t.Fatal(err)
	}
	return out
}

// result is a decoded tools/call result.
type result struct {
	text    string
	isError bool
	errMsg  string         // the "error" field of an error result
	errBody map[string]any // the whole error JSON
	version string         // the version a read answered with
	raw     string         // every text block, joined
}

// splitVersion takes the block a reading or writing tool's answer gives
// the file's version in (see versionText) off content, returning the
// version it names.
func splitVersion(content []any) ([]any, string) {
	var rest []any
	version := ""
	for _, c := range content {
		m, _ := c.(map[string]any)
		text, _ := m["text"].(string)
		if v, ok := strings.CutPrefix(text, "version: "); ok && len(content) > 1 {
			version, _, _ = strings.Cut(v, " ")
			continue
		}
		rest = append(rest, c)
	}
	return rest, version
}

func (h *harness) call(tool, args string) result {
	h.t.Helper()
	resp := h.rpc("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
	if e, ok := resp["error"]; ok {
		h.t.Fatalf("%s %s: protocol error %v", tool, args, e)
	}
	res, _ := resp["result"].(map[string]any)
	var r result
	r.isError, _ = res["isError"].(bool)
	content, _ := res["content"].([]any)
	for _, c := range content {
		text, _ := c.(map[string]any)["text"].(string)
		r.raw += text + "\n"
	}
	content, r.version = splitVersion(content)
	if len(content) == 2 {
		content = content[:1] // a notice after the answer
	}
	if len(content) != 1 {
		h.t.Fatalf("%s %s: %d content items: %v", tool, args, len(content), res)
	}
	c, _ := content[0].(map[string]any)
	if c["type"] != "text" {
		h.t.Fatalf("%s %s: content type %v", tool, args, c["type"])
	}
	r.text, _ = c["text"].(string)
	if r.isError {
		if err := json.Unmarshal([]byte(r.text), &r.errBody); err != nil {
			h.t.Fatalf("%s %s: error text is not JSON: %q", tool, args, r.text)
		}
		r.errMsg, _ = r.errBody["error"].(string)
		if r.errMsg == "" {
			h.t.Fatalf("%s %s: error JSON without an error field: %q", tool, args, r.text)
		}
	}
	if strings.Contains(r.text, h.root) {
		h.t.Errorf("%s %s: the vault's absolute path reached the client: %q", tool, args, r.text)
	}
	return r
}

// ok calls a tool that must succeed and returns its text.
func (h *harness) ok(tool, args string) string {
	h.t.Helper()
	r := h.call(tool, args)
	if r.isError {
		h.t.Fatalf("%s %s: %s", tool, args, r.errMsg)
	}
	return r.text
}

// fails calls a tool that must fail and checks the message.
func (h *harness) fails(tool, args string, wantParts ...string) result {
	h.t.Helper()
	r := h.call(tool, args)
	if !r.isError {
		h.t.Fatalf("%s %s: succeeded with %q, want an error", tool, args, r.text)
	}
	for _, w := range wantParts {
		if !strings.Contains(r.errMsg, w) {
			h.t.Errorf("%s %s: error %q does not mention %q", tool, args, r.errMsg, w)
		}
	}
	return r
}

func (h *harness) file(rel, content string) {
	h.t.Helper()
	abs := filepath.Join(h.root, rel)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) read(rel string) string {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.root, rel))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(data)
}

func TestToolsListed(t *testing.T) {
	h := newHarness(t, 0)
	resp := h.rpc("tools/list", `{}`)
	res, _ := resp["result"].(map[string]any)
	list, _ := res["tools"].([]any)
	var names []string
	for _, x := range list {
		tool := x.(map[string]any)
		names = append(names, tool["name"].(string))
		ann, _ := tool["annotations"].(map[string]any)
		for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, ok := ann[k].(bool); !ok {
				t.Errorf("%s: %s missing from tools/list", tool["name"], k)
			}
		}
		schema, _ := tool["inputSchema"].(map[string]any)
		if schema["additionalProperties"] != false {
			t.Errorf("%s: input schema allows unknown arguments", tool["name"])
		}
	}
	// mcp-go lists tools sorted by name.
	want := "create_daily_note create_directory delete_file edit_canvas edit_file find_files get_claude_context get_daily_note get_obsidian_guide get_properties get_vault_info grep list_directory patch_note read_canvas read_file rename_file search_files set_properties write_file"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("tools/list = %s, want %s", got, want)
	}
}

func TestFileTools(t *testing.T) {
	h := newHarness(t, 0)

	if got := h.ok("write_file", `{"path":"notes/daily.md","content":"# Daily\n- one\n"}`); got != "Created notes/daily.md (14 bytes)" {
		t.Errorf("write_file = %q", got)
	}
	if got := h.read("notes/daily.md"); got != "# Daily\n- one\n" {
		t.Errorf("written %q", got)
	}
	if got := h.ok("read_file", `{"path":"notes/daily.md"}`); got != "# Daily\n- one\n" {
		t.Errorf("read_file = %q", got)
	}
	if got := h.ok("edit_file", `{"path":"notes/daily.md","old_text":"- one","new_text":"- one\n- two"}`); !strings.HasPrefix(got, "Edited notes/daily.md") {
		t.Errorf("edit_file = %q", got)
	}
	if got := h.read("notes/daily.md"); got != "# Daily\n- one\n- two\n" {
		t.Errorf("after edit %q", got)
	}
	if got := h.ok("rename_file", `{"old_path":"notes/daily.md","new_path":"archive/2026/daily.md"}`); got != "Renamed notes/daily.md -> archive/2026/daily.md" {
		t.Errorf("rename_file = %q", got)
	}
	if got := h.ok("delete_file", `{"path":"archive/2026/daily.md"}`); got != "Deleted archive/2026/daily.md" {
		t.Errorf("delete_file = %q", got)
	}
	if _, err := os.Stat(filepath.Join(h.root, "archive/2026/daily.md")); !os.IsNotExist(err) {
		t.Errorf("file still there: %v", err)
	}

	// CRLF file, LF old_text.
	h.file("win.md", "a\r\nb\r\nc\r\n")
	h.ok("edit_file", `{"path":"win.md","old_text":"a\nb","new_text":"A\nB"}`)
	if got := h.read("win.md"); got != "A\r\nB\r\nc\r\n" {
		t.Errorf("CRLF edit: %q", got)
	}
}

func TestFileToolErrors(t *testing.T) {
	h := newHarness(t, 0)
	h.file("a.md", "one two two")
	h.file("b.md", "b")
	h.file("folder/x.md", "x")
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(h.root, "out")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool, args string
		want       []string
	}{
		{"read_file", `{"path":"../x.md"}`, []string{"outside the vault", "../x.md"}},
		{"read_file", `{"path":"/etc/passwd"}`, []string{"outside the vault"}},
		{"read_file", `{"path":"a/../../x"}`, []string{"outside the vault"}},
		{"read_file", `{"path":".git/config"}`, []string{".git"}},
		{"read_file", `{"path":"notes/.claude/x"}`, []string{".claude"}},
		{"read_file", `{"path":"a\u0000.md"}`, []string{"NUL"}},
		{"read_file", `{"path":""}`, []string{"required"}},
		{"read_file", `{"path":"missing.md"}`, []string{"File not found: missing.md"}},
		{"read_file", `{"path":"folder"}`, []string{"Is a directory"}},
		{"read_file", `{"path":"out/x.md"}`, []string{"outside the vault"}},
		{"write_file", `{"path":"out/new.md","content":"x"}`, []string{"outside the vault"}},
		{"write_file", `{"path":"a.md/x.md","content":"x"}`, []string{"is a file"}},
		{"write_file", `{"path":"x.md","content":"bad \ufffd text"}`, []string{"U+FFFD"}},
		{"write_file", `{"path":"x.md","content":"lone \ud800 surrogate"}`, []string{"U+FFFD"}},
		{"edit_file", `{"path":"a.md","old_text":"three","new_text":"3"}`, []string{"not found"}},
		{"edit_file", `{"path":"a.md","old_text":"two","new_text":"2"}`, []string{"matches 2 times"}},
		{"edit_file", `{"path":"a.md","old_text":"one","new_text":"\ufffd"}`, []string{"new_text", "U+FFFD"}},
		{"delete_file", `{"path":"folder"}`, []string{"Is a directory"}},
		{"delete_file", `{"path":"/"}`, []string{"vault root"}},
		{"rename_file", `{"old_path":"a.md","new_path":"b.md"}`, []string{"already exists", "b.md"}},
		{"rename_file", `{"old_path":"a.md","new_path":"../a.md"}`, []string{"outside the vault"}},
		{"list_directory", `{"path":"a.md"}`, []string{"Not a directory"}},
		{"list_directory", `{"path":"nope"}`, []string{"not found"}},
		{"list_directory", `{"path":".git"}`, []string{".git"}},
		{"create_directory", `{"path":"a.md"}`, []string{"already exists"}},
		{"create_directory", `{"path":"../up"}`, []string{"outside the vault"}},
	}
	for _, tt := range tests {
		before := tree(t, h.root)
		r := h.fails(tt.tool, tt.args, tt.want...)
		if len(r.errBody) != 1 {
			t.Errorf("%s %s: error JSON has extra fields: %q", tt.tool, tt.args, r.text)
		}
		if after := tree(t, h.root); after != before {
			t.Errorf("%s %s changed the vault:\n%s\n->\n%s", tt.tool, tt.args, before, after)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files appeared outside the vault")
	}
}

// tree renders every file and folder below root with its content.
func tree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "%s %v", rel, fi.Mode())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %q", data)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestReadFileNotices(t *testing.T) {
	h := newHarness(t, 64)
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 100)...)
	h.file("img/pic.png", string(png))
	h.file("blob.bin", "\x00\x01\x02")
	h.file("latin1.txt", "caf\xe9")
	h.file("long.md", strings.Repeat("x", 63)+"é"+strings.Repeat("y", 99))
	h.file("exact.md", strings.Repeat("z", 64))

	got := h.ok("read_file", `{"path":"img/pic.png"}`)
	if !strings.HasPrefix(got, "Binary file: img/pic.png (image/png, 116 bytes)") {
		t.Errorf("png: %q", got)
	}
	if got := h.ok("read_file", `{"path":"blob.bin"}`); !strings.Contains(got, "Binary file: blob.bin") || !strings.Contains(got, "3 bytes") {
		t.Errorf("bin: %q", got)
	}
	if got := h.ok("read_file", `{"path":"latin1.txt"}`); !strings.HasPrefix(got, "Binary file: latin1.txt") {
		t.Errorf("invalid UTF-8: %q", got)
	}
	// The cut falls inside "é": the partial rune is dropped, not shown as
	// U+FFFD, and the file is not called binary.
	got = h.ok("read_file", `{"path":"long.md"}`)
	want := strings.Repeat("x", 63) + "\n\n[... truncated: line 1 is longer than a page: showing its bytes 1–63 of 164; read on with offset=0 column=63 ...]"
	if got != want {
		t.Errorf("truncated read:\n%q\nwant\n%q", got, want)
	}
	if got := h.ok("read_file", `{"path":"exact.md"}`); got != strings.Repeat("z", 64) {
		t.Errorf("file of exactly the limit: %q", got)
	}
}

func TestDirectoryTools(t *testing.T) {
	h := newHarness(t, 0)
	if got := h.ok("list_directory", `{"path":""}`); got != "The vault root is empty" {
		t.Errorf("empty root: %q", got)
	}
	h.file("b.md", "b")
	h.file("A/x.md", "x")
	h.file("A/deep/y.md", "y")
	h.file(".git/config", "c")
	h.file(".obsidian/app.json", "{}")
	h.file(".trash/old.md", "old")

	if got := h.ok("list_directory", `{"path":"/"}`); got != "[directory] A/\n[file] b.md" {
		t.Errorf("list root:\n%s", got)
	}
	want := "[directory] A/\n[directory] A/deep/\n[file] A/deep/y.md\n[file] A/x.md\n[file] b.md"
	if got := h.ok("list_directory", `{"path":"","recursive":true}`); got != want {
		t.Errorf("recursive:\n%s\nwant\n%s", got, want)
	}
	want = "[directory] A/\n[directory] A/deep/\n[file] A/x.md\n[file] b.md"
	if got := h.ok("list_directory", `{"path":"","recursive":true,"max_depth":2}`); got != want {
		t.Errorf("max_depth 2:\n%s\nwant\n%s", got, want)
	}
	// max_depth alone does not make a listing recursive.
	if got := h.ok("list_directory", `{"path":"A","max_depth":5}`); got != "[directory] A/deep/\n[file] A/x.md" {
		t.Errorf("max_depth without recursive:\n%s", got)
	}

	if got := h.ok("create_directory", `{"path":"new/sub"}`); got != "Created directory new/sub" {
		t.Errorf("create_directory = %q", got)
	}
	if got := h.ok("create_directory", `{"path":"new/sub"}`); got != "Directory already exists: new/sub" {
		t.Errorf("create_directory again = %q", got)
	}
	if got := h.ok("create_directory", `{"path":"/"}`); !strings.Contains(got, "vault root") {
		t.Errorf("create_directory of the root = %q", got)
	}
	if got := h.ok("list_directory", `{"path":"new/sub"}`); got != "new/sub is empty" {
		t.Errorf("empty folder: %q", got)
	}
}

// Arguments are checked against the schema before any handler runs; the
// messages name the argument and say what is wrong.
func TestArgumentValidation(t *testing.T) {
	h := newHarness(t, 0)
	h.file("a.md", "a")
	tests := []struct {
		tool, args string
		want       []string
	}{
		{"read_file", `{}`, []string{`missing required argument "path"`}},
		{"write_file", `{"path":"x.md"}`, []string{`missing required argument "content"`}},
		{"rename_file", `{}`, []string{`"old_path"`, `"new_path"`}},
		{"read_file", `{"path":"a.md","file":"b.md"}`, []string{`unknown argument "file"`, "read_file takes: column, limit, offset, path"}},
		{"read_file", `{"path":42}`, []string{`argument "path"`, "string"}},
		{"write_file", `{"path":"x.md","content":null}`, []string{`argument "content"`}},
		{"list_directory", `{"path":"","recursive":"yes"}`, []string{`argument "recursive"`, "boolean"}},
		{"list_directory", `{"path":"","max_depth":0}`, []string{`argument "max_depth"`}},
		{"list_directory", `{"path":"","max_depth":1.5}`, []string{`argument "max_depth"`}},
		{"list_directory", `{"path":"","max_depth":"3"}`, []string{`argument "max_depth"`}},
		{"edit_file", `{"path":"a.md","old_text":"a"}`, []string{`missing required argument "new_text"`}},
		// Whole numbers the schema takes but an int cannot hold.
		{"read_file", `{"path":"a.md","limit":1e20}`, []string{`argument "limit": number 1e20 is out of range`}},
		{"read_file", `{"path":"a.md","offset":1e300}`, []string{`argument "offset": number 1e300 is out of range`}},
	}
	for _, tt := range tests {
		before := tree(t, h.root)
		r := h.fails(tt.tool, tt.args, tt.want...)
		if !strings.HasPrefix(r.errMsg, "invalid arguments for "+tt.tool+": ") {
			t.Errorf("%s %s: %q", tt.tool, tt.args, r.errMsg)
		}
		if after := tree(t, h.root); after != before {
			t.Errorf("%s %s changed the vault", tt.tool, tt.args)
		}
	}
	// Arguments that are not an object at all.
	h.fails("read_file", `"a.md"`, "JSON object")
	h.fails("read_file", `null`, `missing required argument "path"`)
}

// A handler that panics (here: no vault at all) returns an error result
// and the server goes on.
func TestHandlerPanicBecomesError(t *testing.T) {
	d := tools.Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, st := range tools.All(d) {
		req := mcp.CallToolRequest{}
		req.Params.Name = st.Tool.Name
		req.Params.Arguments = map[string]any{"path": "a.md", "content": "x", "old_text": "a", "new_text": "b", "old_path": "a.md", "new_path": "b.md", "pattern": "*", "query": "x", "topic": "conventions", "properties": map[string]any{"a": 1}}
		if strings.HasSuffix(st.Tool.Name, "_canvas") {
			req.Params.Arguments = map[string]any{"path": "a.canvas", "remove_nodes": []any{"x"}}
		}
		res, err := st.Handler(context.Background(), req)
		if err != nil {
			t.Errorf("%s: protocol error %v", st.Tool.Name, err)
			continue
		}
		if !res.IsError {
			t.Errorf("%s: no error without a vault", st.Tool.Name)
			continue
		}
		text := res.Content[0].(mcp.TextContent).Text
		var body map[string]string
		if err := json.Unmarshal([]byte(text), &body); err != nil || !strings.Contains(body["error"], "internal error in "+st.Tool.Name) {
			t.Errorf("%s: %q", st.Tool.Name, text)
		}
	}
}

// Concurrent tool calls through one server lose nothing.
func TestConcurrentToolCalls(t *testing.T) {
	h := newHarness(t, 0)
	h.file("log.md", "END")
	const workers, rounds = 4, 20
	done := make(chan error, workers)
	for w := range workers {
		go func() {
			for r := range rounds {
				args := fmt.Sprintf(`{"name":"edit_file","arguments":{"path":"log.md","old_text":"END","new_text":"w%d-r%d\nEND"}}`, w, r)
				msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, 1000+w*rounds+r, args)
				resp := h.s.HandleMessage(context.Background(), json.RawMessage(msg))
				raw, _ := json.Marshal(resp)
				if strings.Contains(string(raw), `"isError":true`) {
					done <- fmt.Errorf("w%d r%d: %s", w, r, raw)
					return
				}
			}
			done <- nil
		}()
	}
	for range workers {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	got := h.read("log.md")
	for w := range workers {
		for r := range rounds {
			if !strings.Contains(got, fmt.Sprintf("w%d-r%d\n", w, r)) {
				t.Errorf("w%d-r%d lost", w, r)
			}
		}
	}
}

// read_file's work is a typed function (as the REST API would call it):
// the page, the file read, and which file a loosely given path was taken
// for; the tool's text is the result's Text.
func TestRead(t *testing.T) {
	h := newHarness(t, 0)
	h.file("Notes/Café.md", "one\ntwo\nthree\n")
	d := tools.Deps{Vault: h.v, Logger: slog.New(slog.DiscardHandler)}
	ctx := context.Background()
	one := 1
	tests := []struct {
		name     string
		args     tools.ReadArgs
		call     string // the same arguments, as read_file takes them
		path     string
		text     string
		resolved bool
	}{
		{"exact", tools.ReadArgs{Path: "Notes/Café.md"}, `{"path":"Notes/Café.md"}`, "Notes/Café.md", "one\ntwo\nthree\n", false},
		{"a page", tools.ReadArgs{Path: "Notes/Café.md", LineRange: tools.LineRange{Offset: 1, Limit: &one}}, `{"path":"Notes/Café.md","offset":1,"limit":1}`,
			"Notes/Café.md", "two\n", false},
		{"another case, no .md", tools.ReadArgs{Path: "notes/café"}, `{"path":"notes/café"}`, "Notes/Café.md", "one\ntwo\nthree\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tools.Read(ctx, d, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if res.Path != tt.path || string(res.Page.Text) != tt.text || (res.Resolved != "") != tt.resolved {
				t.Errorf("Read = %q %q, resolved %q", res.Path, res.Page.Text, res.Resolved)
			}
			if got := h.ok("read_file", tt.call); got != res.Text() {
				t.Errorf("read_file says %q, Text %q", got, res.Text())
			}
		})
	}
	if _, err := tools.Read(ctx, d, tools.ReadArgs{Path: "Missing.md"}); !errors.Is(err, vault.ErrNotFound) {
		t.Errorf("missing file: %v", err)
	}
}
