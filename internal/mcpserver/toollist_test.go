package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
	"vaultmcp/tools"
	"vaultmcp/vault/guidance"
)

// The server lists every tool exactly as mcp-go lists the same
// definitions itself (strict input schemas included): encoding the input
// schemas once changes nothing a client sees.
func TestToolListAsMCPGo(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n"})
	d := tools.Deps{Vault: r.v, Index: r.ix, Git: &gitsync.Repo{}, Logger: quiet, Changes: r.feed}
	d.Guidance = guidance.New(d.Vault, guidance.Options{Changes: d.Changes})
	ours, err := New(d, "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	plain := server.NewMCPServer(Name, "1.2.3", server.WithStrictInputSchemaDefault())
	plain.AddTools(tools.All(d)...)

	got, want := listTools(t, ours), listTools(t, plain)
	if len(got) != len(want) || len(got) < 30 {
		t.Fatalf("listed %d tools, mcp-go lists %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("tool %d differs from mcp-go's listing:\ngot:  %s\nwant: %s", i, got[i], want[i])
		}
	}
}

// listTools asks s for tools/list as a transport does (the answer
// encoded) and returns each tool's encoding.
func listTools(t *testing.T, s *server.MCPServer) []json.RawMessage {
	t.Helper()
	resp, err := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(resp, &list); err != nil {
		t.Fatalf("%v: %s", err, resp)
	}
	return list.Result.Tools
}
