package mcpwire

// The differential suite, part one: the stdio wrapper's fast paths answer
// as mcp-go's own stdio server does, byte for byte, over a small server
// whose tools exercise every kind of answer (the suite's other part,
// differential_tools_test.go, does the same for vaultmcp's own tools).
// Run the suite with `go test ./internal/mcpwire -run AsMCPGo`.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// A plain tools/list is answered from the bytes ListTools returns, exactly
// as mcp-go answers it (the id echoed as mcp-go echoes it); any other
// tools/list is left to mcp-go, as is every request when ListTools fails.
func TestListToolsAsMCPGo(t *testing.T) {
	ts := newTestServer()
	resp, err := json.Marshal(ts.s.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(resp, &list); err != nil {
		t.Fatal(err)
	}
	encoded := func(context.Context) (json.RawMessage, error) { return list.Result, nil }
	// marked tells the answers it gave from those mcp-go gave (the
	// test server has two tools).
	const mark = `"result":{"tools":[]}`
	marked := func(context.Context) (json.RawMessage, error) { return json.RawMessage(`{"tools":[]}`), nil }
	failing := func(context.Context) (json.RawMessage, error) { return nil, fmt.Errorf("cannot encode") }

	plain := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"method":"tools/list","jsonrpc":"2.0","id":"a\u00e9"}`,
		`{"jsonrpc":"2.0","id":2.0,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":3e0,"method":"tools/list","params":null}`,
	}
	others := []string{
		`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":""}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"1.0","id":6,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":5}`,
		`{"jsonrpc":"2.0","id":8,"method":"ping"}`,
	}
	all := append(slices.Clone(plain), others...)
	for _, tc := range []struct {
		name string
		list func(context.Context) (json.RawMessage, error)
	}{{"encoded", encoded}, {"failing", failing}} {
		t.Run(tc.name, func(t *testing.T) {
			// Answered is called from the goroutines that answer, after
			// the answer is out: Serve may return before the last call.
			answered := make(chan string, len(all)+1)
			want := rawSession(t, newTestServer().s, StdioOptions{}, all...)
			got := rawSession(t, newTestServer().s, StdioOptions{ListTools: tc.list, Answered: func(m string) { answered <- m }}, all...)
			// Requests are served concurrently: compare the answers as sets.
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("answers differ from mcp-go's:\ngot:  %q\nwant: %q", got, want)
			}
			lists := 0
			for range len(all) + 1 {
				select {
				case m := <-answered:
					if m == string(mcp.MethodToolsList) {
						lists++
					}
				case <-time.After(time.Minute):
					t.Fatal("Answered was not called for every request")
				}
			}
			if want := len(all) - 1; lists != want { // all but the ping
				t.Errorf("Answered called for %d tools/list, want %d", lists, want)
			}
		})
	}
	t.Run("routing", func(t *testing.T) {
		got := rawSession(t, newTestServer().s, StdioOptions{ListTools: marked}, all...)
		if len(got) != len(all) {
			t.Fatalf("%d answers to %d requests: %q", len(got), len(all), got)
		}
		n := 0
		for _, a := range got {
			if strings.Contains(a, mark) {
				n++
			}
		}
		if n != len(plain) {
			t.Errorf("%d answers came from ListTools, want the %d plain tools/list: %q", n, len(plain), got)
		}
	})
}

// The newer protocol's tools/list, whose only parameter is a _meta that
// mcp-go accepts, is answered from the bytes ModernListTools returns,
// exactly as mcp-go answers it, when its _meta is the one of the last
// request mcp-go was handed (which mcp-go has recorded on the session);
// any other is left to mcp-go.
func TestModernListToolsAsMCPGo(t *testing.T) {
	meta := func(version, client string, caps bool) string {
		m := `"io.modelcontextprotocol/clientInfo":{"name":"` + client + `","version":"1"},"io.modelcontextprotocol/protocolVersion":"` + version + `"`
		if caps {
			m = `"io.modelcontextprotocol/clientCapabilities":{},` + m
		}
		return `{` + m + `}`
	}
	current := meta("2026-07-28", "t", true)
	list := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":` + params + `}`
	}
	opening := `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":` + current + `}}`

	ts := newTestServer()
	answer := func(request string) json.RawMessage {
		resp, err := json.Marshal(ts.s.HandleMessage(context.Background(), json.RawMessage(request)))
		if err != nil {
			t.Fatal(err)
		}
		var a struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(resp, &a); err != nil || len(a.Result) == 0 {
			t.Fatalf("mcp-go answered %s (%v)", resp, err)
		}
		return a.Result
	}
	plainResult, modernResult := answer(list("1", `{}`)), answer(list("1", `{"_meta":`+current+`}`))
	if !bytes.Contains(modernResult, []byte(`"resultType":"complete"`)) {
		t.Fatalf("mcp-go answered the newer protocol's tools/list with %s", modernResult)
	}
	plain := func(context.Context) (json.RawMessage, error) { return plainResult, nil }
	encoded := func(context.Context) (json.RawMessage, error) { return modernResult, nil }
	const mark = `"result":{"modern":[]}`
	marked := func(context.Context) (json.RawMessage, error) { return json.RawMessage(`{"modern":[]}`), nil }

	other := meta("2026-07-28", "u", true)
	unsupported := meta("2099-01-01", "t", true)
	noCaps := meta("2026-07-28", "t", false)
	legacy := `{"progressToken":1}`
	lines := []string{
		list("1", `{"_meta":`+current+`}`),             // answered here
		list(`"x"`, `{"_meta":`+current+`}`),           // answered here
		list("2", `{"_meta":`+current+`,"cursor":""}`), // a cursor: mcp-go
		list("3", `{"_meta":`+other+`}`),               // another client's _meta: mcp-go records it
		list("4", `{"_meta":`+other+`}`),               // answered here
		list("5", `{"_meta":`+current+`}`),             // changed back: mcp-go
		list("6", `{"_meta":`+unsupported+`}`),         // mcp-go refuses it
		list("7", `{"_meta":`+unsupported+`}`),         // and again
		list("8", `{"_meta":`+noCaps+`}`),              // mcp-go refuses it
		list("9", `{"_meta":`+noCaps+`}`),              // and again
		list("10", `{"_meta":`+legacy+`}`),             // the older protocol's: mcp-go
		list("11", `{"_meta":`+legacy+`}`),             // and again
		`{"jsonrpc":"2.0","id":12,"method":"ping"}`,    // no _meta
		list("13", `{}`),                               // plain: ListTools
		list("14", `{"_meta":`+current+`}`),            // mcp-go (the ping and plain list had none)
		list("15", `{"_meta":`+current+`}`),            // answered here
	}
	const fromModern = 4 // ids 1, "x", 4 and 15

	// Compared as sets: requests are served concurrently. The answers to
	// id 4 differ only in the client's name, which the answer leaves out.
	want := openedSession(t, newTestServer().s, StdioOptions{}, opening, lines...)
	got := openedSession(t, newTestServer().s, StdioOptions{ListTools: plain, ModernListTools: encoded}, opening, lines...)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("answers differ from mcp-go's:\ngot:  %q\nwant: %q", got, want)
	}
	got = openedSession(t, newTestServer().s, StdioOptions{ListTools: plain, ModernListTools: marked}, opening, lines...)
	if len(got) != len(lines) {
		t.Fatalf("%d answers to %d requests: %q", len(got), len(lines), got)
	}
	n := 0
	for _, a := range got {
		if strings.Contains(a, mark) {
			n++
		}
	}
	if n != fromModern {
		t.Errorf("%d answers came from ModernListTools, want %d: %q", n, fromModern, got)
	}
}

// With AnswerToolCalls, every tools/call is answered with the bytes
// mcp-go answers it with: results large and small, with characters
// encoding/json escapes, structured content, tool errors, protocol
// errors (unknown tool, bad arguments), a panic, the ids as mcp-go
// echoes them; a tools/call without an id (a notification) is left to
// mcp-go and not answered.
func TestAnswerToolCallsAsMCPGo(t *testing.T) {
	newServer := func() *server.MCPServer {
		s := server.NewMCPServer("t", "1", server.WithToolCapabilities(false))
		big := strings.Repeat("<a href=\"x\">é & 雪</a>\u2028\t\n", 3000)
		s.AddTool(mcp.NewTool("text"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(big), nil
		})
		s.AddTool(mcp.NewTool("structured"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			raw, _ := json.Marshal(map[string]any{"text": big, "n": 3})
			return mcp.NewToolResultStructured(json.RawMessage(raw), string(raw)), nil
		})
		s.AddTool(mcp.NewTool("failing"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError(`{"error":"no <such> note"}`), nil
		})
		s.AddTool(mcp.NewTool("erring"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("broken")
		})
		s.AddTool(mcp.NewTool("panicking"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("boom")
		})
		s.AddTool(mcp.NewTool("typed", mcp.WithNumber("n", mcp.Required())), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(fmt.Sprint(req.GetArguments()["n"])), nil
		})
		return s
	}
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"text","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"s-2","method":"tools/call","params":{"name":"structured"}}`,
		`{"method":"tools/call","params":{"name":"failing","arguments":{}},"jsonrpc":"2.0","id":3.0}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"erring","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"panicking","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nosuchtool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"typed","arguments":{"n":1.5e3}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":5}`,
		`{"jsonrpc":"2.0","id":9e0,"method":"tools/call","params":{"name":"text","arguments":{},"_meta":{"progressToken":"p"}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"text","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"ping"}`,
	}
	want := rawSession(t, newServer(), StdioOptions{}, lines...)
	got := rawSession(t, newServer(), StdioOptions{AnswerToolCalls: true}, lines...)
	slices.Sort(want)
	slices.Sort(got)
	if len(want) != len(lines)-1 {
		t.Fatalf("mcp-go answered %d of %d requests", len(want), len(lines)-1)
	}
	if !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Errorf("answer differs from mcp-go's:\ngot:  %.300s\nwant: %.300s", got[i], want[i])
			}
		}
		t.Fatalf("%d answers, mcp-go %d", len(got), len(want))
	}
}

// OpenedSession is openedSession for the suite's other part (package
// mcpwire_test, which can assemble vaultmcp's whole server).
var OpenedSession = openedSession
