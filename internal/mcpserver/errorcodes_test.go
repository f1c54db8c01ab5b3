package mcpserver

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// A resource or prompt the request gets wrong is invalid params (-32602)
// with a message naming the problem, not an internal error (-32603).
func TestParamsErrorCodes(t *testing.T) {
	r := newRig(t, map[string]string{"note.md": "x\n", "folder/a.md": "a\n", ".obsidian/app.json": "{}"})
	cases := []struct {
		method, params string
		code           int
		says           string
	}{
		{"resources/read", `{"uri":"vault:///missing.md"}`, mcp.INVALID_PARAMS, "resource not found: vault:///missing.md"},
		{"resources/read", `{"uri":"vault:///folder"}`, mcp.INVALID_PARAMS, "is a folder"},
		{"resources/read", `{"uri":"vault:///..%2Fescape.md"}`, mcp.INVALID_PARAMS, "outside the vault"},
		{"resources/read", `{"uri":"vault:///.obsidian/app.json"}`, mcp.INVALID_PARAMS, "dot-folders"},
		{"resources/read", `{"uri":"vault:///.git/config"}`, mcp.INVALID_PARAMS, "hidden"},
		{"resources/read", `{"uri":"vault:///a%00b.md"}`, mcp.INVALID_PARAMS, "NUL"},
		{"resources/read", `{"uri":"vault:///"}`, mcp.INVALID_PARAMS, "names no file"},
		// A URI the template does not match is mcp-go's own answer: the
		// not-found code of the session's protocol version.
		{"resources/read", `{"uri":"vault:///a%ZZ.md"}`, mcp.RESOURCE_NOT_FOUND, "a%ZZ.md"},
		{"prompts/get", `{"name":"no-such-prompt"}`, mcp.INVALID_PARAMS, "no-such-prompt"},
		{"prompts/get", `{"name":"obsidian-create-note"}`, mcp.INVALID_PARAMS, `missing required argument "topic"`},
		{"prompts/get", `{"name":"obsidian-create-note","arguments":{"topic":"x","colour":"red"}}`, mcp.INVALID_PARAMS, `unknown argument "colour"`},
		{"prompts/get", `{"name":"obsidian-create-note","arguments":{"topic":"x","note_type":"poem"}}`, mcp.INVALID_PARAMS, `"poem"`},
		{"prompts/get", `{"name":"obsidian-conventions","arguments":{"x":"1"}}`, mcp.INVALID_PARAMS, `unknown argument "x" (it takes no arguments)`},
	}
	for i, c := range cases {
		initialize(t, r.s)
		out := send(t, r.s, 100+i, c.method, c.params)
		e, ok := out["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if !ok || e["code"] != float64(c.code) || !strings.Contains(msg, c.says) {
			t.Errorf("%s %s = %v, want code %d saying %q", c.method, c.params, out, c.code, c.says)
		}
	}
	// What succeeds still does.
	if out := send(t, r.s, 200, "resources/read", `{"uri":"vault:///note.md"}`); out["result"] == nil {
		t.Errorf("note.md: %v", out)
	}
}
