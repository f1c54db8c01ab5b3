package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"vaultmcp/gitsync"
	"vaultmcp/tools"
	"vaultmcp/vault/access"
)

// ToolList answers tools/list with the very bytes mcp-go answers for the
// same server, under a full and under a read-only scope, in the plain
// protocol and in the newer one (2026-07-28, whose requests carry a _meta
// and whose answers an envelope), encoded once; and so does the list of
// the tools New left to LateTools, before they are registered.
func TestToolListAnswersAsMCPGo(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n"})
	s, err := New(tools.Deps{Vault: r.v, Index: r.ix, Git: &gitsync.Repo{}, Logger: quiet, Changes: r.feed}, "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	l := NewToolList(s, "1.2.3", nil)
	scopes := map[string]context.Context{
		"full":      context.Background(),
		"read-only": access.With(context.Background(), access.MustNew("test", access.Rules{ReadOnly: true})),
	}
	protocols := []struct {
		name, request string
		result        func(*ToolList, context.Context) (json.RawMessage, error)
	}{
		{"plain", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, (*ToolList).Result},
		{"2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{` +
			`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},` +
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, (*ToolList).ModernResult},
	}
	for name, ctx := range scopes {
		for _, p := range protocols {
			t.Run(name+"/"+p.name, func(t *testing.T) {
				// Listed from the definitions New left to LateTools,
				// before mcp-go has them (its answer below registers
				// them).
				late := &LateTools{}
				sl, err := New(tools.Deps{Vault: r.v, Index: r.ix, Git: &gitsync.Repo{}, Logger: quiet, Changes: r.feed}, "1.2.3", WithLateTools(late))
				if err != nil {
					t.Fatal(err)
				}
				early, err := p.result(NewToolList(sl, "1.2.3", late), ctx)
				if err != nil {
					t.Fatal(err)
				}
				if n := len(sl.ListTools()); n != 0 {
					t.Fatalf("listing registered %d tools", n)
				}
				resp, err := json.Marshal(s.HandleMessage(ctx, json.RawMessage(p.request)))
				if err != nil {
					t.Fatal(err)
				}
				var want struct {
					Result json.RawMessage `json:"result"`
				}
				if err := json.Unmarshal(resp, &want); err != nil || len(want.Result) == 0 {
					t.Fatalf("mcp-go answered %s (%v)", resp, err)
				}
				for range 2 {
					got, err := p.result(l, ctx)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want.Result) {
						t.Fatalf("tools/list result differs from mcp-go's:\ngot:  %.300s\nwant: %.300s", got, want.Result)
					}
				}
				if !bytes.Equal(early, want.Result) {
					t.Fatalf("tools/list result of late tools differs from mcp-go's:\ngot:  %.300s\nwant: %.300s", early, want.Result)
				}
				lateResp, err := json.Marshal(sl.HandleMessage(ctx, json.RawMessage(p.request)))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(lateResp, resp) {
					t.Fatalf("mcp-go answers the server with late tools differently:\ngot:  %.300s\nwant: %.300s", lateResp, resp)
				}
			})
		}
	}
	if modern, _ := l.ModernResult(scopes["full"]); !bytes.HasPrefix(modern, []byte(`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"vaultmcp","version":"1.2.3"}},"resultType":"complete",`)) {
		t.Errorf("the newer protocol's answer has no envelope: %.200s", modern)
	}
	full, _ := l.Result(scopes["full"])
	ro, _ := l.Result(scopes["read-only"])
	if len(ro) >= len(full) || !bytes.Contains(full, []byte(`"name":"write_file"`)) || bytes.Contains(ro, []byte(`"name":"write_file"`)) {
		t.Errorf("the read-only view (%d bytes) should leave out the writing tools of the full one (%d bytes)", len(ro), len(full))
	}
}
