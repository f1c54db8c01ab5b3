package mcpwire

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"vaultmcp/tools"
)

// The checker compiles each tool's schema at its first call; every
// tool's schema (with the index and git, so all of them) must compile.
func TestEveryToolSchemaCompiles(t *testing.T) {
	all := tools.All(fullDeps(t))
	val := NewArgChecker(all, nil)
	if len(val.schemas) != len(all) {
		t.Fatalf("%d schemas for %d tools", len(val.schemas), len(all))
	}
	if err := val.compileAll(); err != nil {
		t.Fatal(err)
	}
}

// callValidated runs the argument validator over one call.
func callValidated(t *testing.T, v *ArgChecker, tool string, args any) (*mcp.CallToolResult, bool) {
	t.Helper()
	reached := false
	next := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		reached = true
		return mcp.NewToolResultText("ok"), nil
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := v.Middleware(next)(context.Background(), req)
	if err != nil {
		t.Fatalf("middleware returned a protocol error: %v", err)
	}
	return res, reached
}

func TestArgValidator(t *testing.T) {
	v := NewArgChecker(tools.All(tools.Deps{}), nil)
	tests := []struct {
		tool string
		args any
		want string // "" = passes to the handler
	}{
		{"read_file", map[string]any{"path": "a.md"}, ""},
		{"list_directory", map[string]any{"path": "", "recursive": true, "max_depth": 3}, ""},
		{"list_directory", map[string]any{"path": "", "max_depth": 3.0}, ""},
		{"read_file", nil, `invalid arguments for read_file: missing required argument "path"`},
		{"read_file", map[string]any{}, `invalid arguments for read_file: missing required argument "path"`},
		{"rename_file", map[string]any{"old_path": "a"}, `missing required argument "new_path"`},
		{"read_file", map[string]any{"path": "a", "extra": 1}, `unknown argument "extra" (read_file takes: column, limit, offset, path)`},
		{"read_file", map[string]any{"path": 7}, `argument "path": got number, want string`},
		{"write_file", map[string]any{"path": "a", "content": []any{"x"}}, `argument "content": got array, want string`},
		{"list_directory", map[string]any{"path": "", "max_depth": 99}, `argument "max_depth": must be at most`},
		{"list_directory", map[string]any{"path": "", "max_depth": 10000000}, `argument "max_depth": must be at most 50, got 10000000`},
		{"read_file", map[string]any{"path": "a", "offset": -1}, `argument "offset": must be at least 0, got -1`},
		{"get_vault_info", map[string]any{"x": 1}, `unknown argument "x" (get_vault_info takes no arguments)`},
		{"list_directory", map[string]any{"path": "", "recursive": "true"}, `argument "recursive": got string, want boolean`},
		{"read_file", "a.md", "arguments must be a JSON object"},
		{"read_file", []any{"a.md"}, "arguments must be a JSON object"},
		{"no_such_tool", map[string]any{"anything": 1}, ""}, // not ours to judge
	}
	for _, tt := range tests {
		res, reached := callValidated(t, v, tt.tool, tt.args)
		if tt.want == "" {
			if !reached || res.IsError {
				t.Errorf("%s %v: refused: %v", tt.tool, tt.args, res.Content)
			}
			continue
		}
		if reached {
			t.Errorf("%s %v: reached the handler", tt.tool, tt.args)
			continue
		}
		if !res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s %v: %+v", tt.tool, tt.args, res)
		}
		var body map[string]string
		text := res.Content[0].(mcp.TextContent).Text
		if err := json.Unmarshal([]byte(text), &body); err != nil {
			t.Fatalf("%s: error text is not JSON: %q", tt.tool, text)
		}
		if !strings.Contains(body["error"], tt.want) {
			t.Errorf("%s %v: %q, want %q", tt.tool, tt.args, body["error"], tt.want)
		}
	}
}
