package tools_test

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

	"vaultmcp/internal/mcpserver"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// rename_file sent before the index is built waits for it, so the links
// to the moved note are rewritten; the answer always gives the count.
func TestRenameWaitsForIndex(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"Target.md": "t", "Other.md": "o"}
	for i := range 20 {
		files[fmt.Sprintf("src/n%02d.md", i)] = "see [[Target]] and [[Target#h|alias]]"
	}
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ix := index.New(v, logger)
	v.Observe(ix.Changed)
	s, err := mcpserver.New(tools.Deps{Vault: v, Index: ix, Logger: logger}, "test")
	if err != nil {
		t.Fatal(err)
	}
	call := func(id int, args string) string {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"rename_file","arguments":%s}}`, id, args)
		raw, _ := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(msg)))
		return string(raw)
	}
	// The rename is sent first; the build runs after it was received.
	answer := make(chan string, 1)
	go func() { answer <- call(1, `{"old_path":"Target.md","new_path":"moved/Renamed.md"}`) }()
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := <-answer; !strings.Contains(got, "updated 40 link(s) in 20 note(s)") {
		t.Errorf("rename before the build: %s", got)
	}
	for i := range 20 {
		data, _ := os.ReadFile(filepath.Join(root, "src", fmt.Sprintf("n%02d.md", i)))
		if string(data) != "see [[Renamed]] and [[Renamed#h|alias]]" {
			t.Errorf("n%02d.md = %q", i, data)
		}
	}
	if got := call(2, `{"old_path":"Other.md","new_path":"Other2.md"}`); !strings.Contains(got, "updated 0 link(s) in 0 note(s)") {
		t.Errorf("rename without backlinks does not say 0: %s", got)
	}
	if got := call(3, `{"old_path":"Other2.md","new_path":"Other3.md","update_links":false}`); !strings.Contains(got, "not updated") {
		t.Errorf("rename with update_links false: %s", got)
	}
}
