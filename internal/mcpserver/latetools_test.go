package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
	"vaultmcp/tools"
)

// With WithLateTools, New leaves the tools unregistered, and the server
// answers every request as one that registered them in New does: the
// opening requests without them, and the first request that reads them
// (or Register, whichever comes first, from any goroutine) registers
// them.
func TestLateTools(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n"})
	deps := tools.Deps{Vault: r.v, Index: r.ix, Git: &gitsync.Repo{}, Logger: quiet, Changes: r.feed}
	eager, err := New(deps, "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	answer := func(s *server.MCPServer, request string) []byte {
		t.Helper()
		b, err := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(request)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const (
		initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
		discover   = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},` +
			`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
		ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
		call = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.md"}}}`
	)

	for _, first := range []string{"tools/list", "tools/call", "Register"} {
		t.Run(first, func(t *testing.T) {
			late := &LateTools{}
			s, err := New(deps, "1.2.3", WithLateTools(late))
			if err != nil {
				t.Fatal(err)
			}
			for _, req := range []string{initialize, discover, ping} {
				if got, want := answer(s, req), answer(eager, req); !bytes.Equal(got, want) {
					t.Errorf("%s answered\n%s\nwant\n%s", req, got, want)
				}
			}
			if n := len(s.ListTools()); n != 0 {
				t.Fatalf("%d tools registered before any request read them", n)
			}
			// Readers at once, from several goroutines (-race).
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(func() {
					switch first {
					case "tools/list":
						answer(s, list)
					case "tools/call":
						answer(s, call)
					default:
						late.Register()
					}
				})
			}
			wg.Wait()
			if got, want := len(s.ListTools()), len(eager.ListTools()); got != want {
				t.Fatalf("%d tools registered, want %d", got, want)
			}
			for _, req := range []string{list, call} {
				if got, want := answer(s, req), answer(eager, req); !bytes.Equal(got, want) {
					t.Errorf("%s answered\n%.300s\nwant\n%.300s", req, got, want)
				}
			}
			late.Register() // again: nothing more
		})
	}
	var unused LateTools
	unused.Register() // not filled by New: does nothing
}
