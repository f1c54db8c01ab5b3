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

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/tools"
	"vaultmcp/vault"
)

func newServer(t *testing.T, root string) *server.MCPServer {
	t.Helper()
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(tools.Deps{Vault: v, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func send(t *testing.T, s *server.MCPServer, id int, method, params string) map[string]any {
	t.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
	raw, err := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(msg)))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func initialize(t *testing.T, s *server.MCPServer) map[string]any {
	t.Helper()
	resp := send(t, s, 1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
	res, ok := resp["result"].(map[string]any)
	if !ok {
		t.Fatalf("initialize: %v", resp)
	}
	return res
}

func TestInstructions(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(base, "secret.txt")
	if err := os.WriteFile(secret, []byte("server secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		setup func(root string) error
		want  string // "" = the default orientation
	}{
		{"root CLAUDE.md", func(root string) error {
			return os.WriteFile(filepath.Join(root, "CLAUDE.md"), []byte("# My vault\nUse kebab-case.\n"), 0o644)
		}, "# My vault\nUse kebab-case.\n"},
		{"none", func(string) error { return nil }, ""},
		{"blank", func(root string) error {
			return os.WriteFile(filepath.Join(root, "CLAUDE.md"), []byte(" \n\t\n"), 0o644)
		}, ""},
		{"folder named CLAUDE.md", func(root string) error {
			return os.Mkdir(filepath.Join(root, "CLAUDE.md"), 0o755)
		}, ""},
		{"symlink out of the vault", func(root string) error {
			return os.Symlink(secret, filepath.Join(root, "CLAUDE.md"))
		}, ""},
		{"symlink inside the vault", func(root string) error {
			if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("linked"), 0o644); err != nil {
				return err
			}
			return os.Symlink("README.md", filepath.Join(root, "CLAUDE.md"))
		}, "linked"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(base, fmt.Sprint("vault", i))
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tt.setup(root); err != nil {
				t.Fatal(err)
			}
			res := initialize(t, newServer(t, root))
			got, _ := res["instructions"].(string)
			if tt.want != "" && got != tt.want {
				t.Errorf("initialize instructions = %q, want %q", got, tt.want)
			}
			if tt.want == "" && !contains(got, "Obsidian vault", "get_obsidian_guide", "get_claude_context", "Tools: ", "read_file, rename_file") {
				t.Errorf("default instructions = %q", got)
			}
			info, _ := res["serverInfo"].(map[string]any)
			if info["name"] != Name || info["version"] != "1.2.3" {
				t.Errorf("serverInfo = %v", info)
			}
		})
	}
}

// A long-running server gives each new session the root CLAUDE.md as it
// is now: the change feed drops the cached copy, over both the initialize
// handshake and server/discover.
func TestInstructionsFollowChanges(t *testing.T) {
	r := newRig(t, map[string]string{"CLAUDE.md": "v1\n"})
	for _, version := range []string{"2025-11-25", ""} {
		r.write("CLAUDE.md", "v1\n")
		r.publish("CLAUDE.md")
		if got := r.connect(version).init.Instructions; got != "v1\n" {
			t.Fatalf("%q: first session: %q", version, got)
		}
		r.write("CLAUDE.md", "v2\n")
		if got := r.connect(version).init.Instructions; got != "v1\n" {
			t.Errorf("%q: cached copy not used before a change notice: %q", version, got)
		}
		r.publish("CLAUDE.md")
		if got := r.connect(version).init.Instructions; got != "v2\n" {
			t.Errorf("%q: after the change: %q", version, got)
		}
		r.remove("CLAUDE.md")
		r.publish("CLAUDE.md")
		if got := r.connect(version).init.Instructions; !strings.HasPrefix(got, "This server gives you an Obsidian vault") {
			t.Errorf("%q: after deleting CLAUDE.md: %q", version, got)
		}
	}
}

// The instructions are read with the vault's configured hidden folders: a
// root CLAUDE.md that is a link into one is refused like any path there.
func TestInstructionsHiddenFolders(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "private"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "private", "rules.md"), []byte("private rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("private/rules.md", filepath.Join(root, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		hidden []string
		want   bool
	}{{nil, true}, {[]string{".git", "private"}, false}} {
		v, err := vault.Open(root, vault.Options{Hidden: tt.hidden})
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(tools.Deps{Vault: v, Logger: quiet}, "1")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := initialize(t, s)["instructions"].(string)
		if (got == "private rules\n") != tt.want {
			t.Errorf("hidden %v: instructions %q", tt.hidden, got)
		}
	}
}

// Through the whole server, a bad call is a tool error (isError), not a
// protocol error, and the server keeps serving.
func TestValidationThroughServer(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, root)
	initialize(t, s)
	resp := send(t, s, 2, "tools/call", `{"name":"write_file","arguments":{"path":"x.md"}}`)
	res, _ := resp["result"].(map[string]any)
	if res["isError"] != true {
		t.Fatalf("missing content: %v", resp)
	}
	if _, err := os.Stat(filepath.Join(root, "x.md")); !os.IsNotExist(err) {
		t.Errorf("write_file without content created the file")
	}
	resp = send(t, s, 3, "tools/call", `{"name":"write_file","arguments":{"path":"x.md","content":""}}`)
	if res, _ := resp["result"].(map[string]any); res["isError"] == true {
		t.Errorf("empty content refused: %v", resp)
	}
}
