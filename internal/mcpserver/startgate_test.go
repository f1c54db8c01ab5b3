package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"vaultmcp/tools"
	"vaultmcp/vault"
)

// While the start gate is closed, initialize, ping and tools/list are
// answered and a tool call waits; once it opens, the call is answered.
func TestStartGate(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	s, err := New(tools.Deps{Vault: v, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, "1", WithStartGate(gate, nil))
	if err != nil {
		t.Fatal(err)
	}
	initialize(t, s)
	for id, method := range map[int]string{2: "ping", 3: "tools/list"} {
		if resp := send(t, s, id, method, `{}`); resp["result"] == nil {
			t.Fatalf("%s behind the closed gate: %v", method, resp)
		}
	}

	done := make(chan map[string]any, 1)
	go func() {
		// Not send: t.Fatal belongs to the test's goroutine.
		raw, _ := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.md"}}}`)))
		var resp map[string]any
		_ = json.Unmarshal(raw, &resp)
		done <- resp
	}()
	select {
	case resp := <-done:
		t.Fatalf("tool call answered before the gate opened: %v", resp)
	default:
	}
	close(gate)
	resp := <-done
	raw, _ := json.Marshal(resp["result"])
	if res, _ := resp["result"].(map[string]any); res == nil || res["isError"] == true {
		t.Fatalf("tool call after the gate opened: %s", raw)
	}

	// A request whose context ends stops waiting.
	s, err = New(tools.Deps{Vault: v, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, "1", WithStartGate(make(chan struct{}), nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":5,"method":"resources/templates/list","params":{}}`))
}

// A request held back by the gate starts the work it waits for;
// initialize, ping and tools/list do not, nor server/discover, which
// mcp-go's client sends before initialize (begin here opens the gate, so
// a held request would still be answered, but too late).
func TestStartGateBegins(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	begun := 0
	begin := func() {
		if begun++; begun == 1 {
			close(gate)
		}
	}
	s, err := New(tools.Deps{Vault: v, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, "1", WithStartGate(gate, begin))
	if err != nil {
		t.Fatal(err)
	}
	initialize(t, s)
	send(t, s, 2, "ping", `{}`)
	send(t, s, 3, "tools/list", `{}`)
	send(t, s, 5, "server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
		`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}`)
	if begun != 0 {
		t.Fatalf("initialize, ping, tools/list or server/discover started the work (%d calls)", begun)
	}
	resp := send(t, s, 4, "tools/call", `{"name":"read_file","arguments":{"path":"a.md"}}`)
	if res, _ := resp["result"].(map[string]any); res == nil || res["isError"] == true {
		t.Fatalf("tool call: %v", resp)
	}
	if begun == 0 {
		t.Fatal("the held-back tool call did not start the work")
	}
}
