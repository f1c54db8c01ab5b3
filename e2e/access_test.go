package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestAccessScopeOverStdio runs the binary over stdio with the server's
// own scope from the environment: read-only and a denied folder. Writing
// tools are gone from tools/list, a write is refused with the reason and
// changes nothing, and the denied folder shows up nowhere.
func TestAccessScopeOverStdio(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{
		"Home.md":          "# Home\nSee [[diary]].\n",
		"Private/diary.md": "# Diary\nSECRETWORD #private\n[[Home]]\n",
		"Journal/2025.md":  "# 2025\n#journal\n",
		"Private/sub/x.md": "x\n",
	})
	s := startSession(t, v, withEnv("VAULTMCP_ACCESS_READ_ONLY=true", "VAULTMCP_ACCESS_DENY=Private"))
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	list, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if ro := tool.Annotations.ReadOnlyHint; ro == nil || !*ro {
			t.Errorf("tools/list under access.read_only lists %s", tool.Name)
		}
	}
	before := v.snapshot(t)
	if msg := s.fail(t, "write_file", map[string]any{"path": "Journal/new.md", "content": "x"}); !strings.Contains(msg, "read-only") {
		t.Errorf("write_file under read-only: %q", msg)
	}
	v.unchanged(t, before)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"list_directory", map[string]any{"path": "", "recursive": true}},
		{"search_files", map[string]any{"pattern": "**/*"}},
		{"grep", map[string]any{"query": "SECRET"}},
		{"get_tags", map[string]any{}},
		{"get_backlinks", map[string]any{"note_name": "Home"}},
		{"get_vault_info", map[string]any{}},
		{"get_recent_changes", map[string]any{}},
	} {
		out := s.ok(t, c.tool, c.args)
		if strings.Contains(out, "Private") || strings.Contains(out, "SECRETWORD") || strings.Contains(out, "#private") {
			t.Errorf("%s shows the denied folder:\n%s", c.tool, out)
		}
	}
	if msg := s.fail(t, "read_file", map[string]any{"path": "Private/diary.md"}); !strings.Contains(msg, "Access denied") {
		t.Errorf("read_file of a denied note: %q", msg)
	}
}
