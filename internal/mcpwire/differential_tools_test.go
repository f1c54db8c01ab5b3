package mcpwire_test

// The differential suite, part two: for vaultmcp's own server, as
// mcpserver.New assembles it, every byte mcpwire writes in mcp-go's place
// is the byte mcp-go writes: the tools/list listings and answers (each
// scope, each protocol), every tool's tools/call answers (a call that
// runs, a call the argument check refuses) and protocol errors, and whole
// stdio sessions in every protocol version mcp-go supports.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
	"vaultmcp/internal/mcpserver"
	"vaultmcp/internal/mcpwire"
	"vaultmcp/internal/mcpwire/answer"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/access"
	"vaultmcp/vault/changes"
	"vaultmcp/vault/guidance"
	"vaultmcp/vault/index"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// worldFiles are the vault the suite's servers serve: text that JSON
// escapes (<, >, &, quotes, U+2028), links, tags and concepts.
var worldFiles = map[string]string{
	"Home.md":      "# Home <b> & \"q\" \\\n\nSee [[Other]] and [x](<Other.md>).\u2028 雪 é #tag\n",
	"Other.md":     "---\ntags: [a]\n---\n# Other\n\nBack to [[Home]] & [[Missing]].\n",
	"c/ml.md":      "---\nprefLabel: Machine <Learning>\ndefinition: From data & more\n---\n# ML\n\nText <x> & y.\n",
	"c/sl.md":      "---\nprefLabel: Supervised\nbroader: [[ml]]\n---\n# SL\n",
	"c/CLAUDE.md":  "Concepts live here.\n",
	"Board.canvas": `{"nodes":[{"id":"a1b2c3d4e5f60718","type":"file","file":"Home.md","x":0,"y":0,"width":400,"height":300},{"id":"b1","type":"text","text":"See [[Other]] <b> & \u2028","x":500,"y":0,"width":200,"height":100}],"edges":[]}`,
}

// newDeps returns the deps of a server over a git-versioned copy of
// worldFiles, with a built index and the change feed, so that tools.All
// offers every tool and every tool can run.
func newDeps(t testing.TB) tools.Deps {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for rel, content := range worldFiles {
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
	repo, err := gitsync.Open(context.Background(), gitsync.Options{Dir: root, Locker: v.Locker(), Logger: quiet, SyncInterval: -1, NoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	v.SetRecorder(repo)
	feed := &changes.Feed{Logger: quiet}
	v.Observe(feed.Publish)
	ix := index.New(v, quiet)
	feed.Listen(ix.Changed)
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := tools.Deps{Vault: v, Index: ix, Git: repo, Logger: quiet, Changes: feed}
	d.Guidance = guidance.New(d.Vault, guidance.Options{Changes: d.Changes})
	return d
}

func newServer(t testing.TB, d tools.Deps, opts ...mcpserver.Option) *server.MCPServer {
	t.Helper()
	s, err := mcpserver.New(d, "1.2.3", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// initialize opens an in-process session of s.
func initialize(s *server.MCPServer) {
	s.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
}

// The server lists every tool exactly as mcp-go lists the same
// definitions itself (strict input schemas included): the input schemas
// and listings encoded ahead of time change nothing a client sees.
func TestToolListAsMCPGo(t *testing.T) {
	d := newDeps(t)
	ours := newServer(t, d)
	plain := server.NewMCPServer(mcpserver.Name, "1.2.3", server.WithStrictInputSchemaDefault())
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

// modernMeta is the _meta mcp-go's client sends with every request of a
// protocol of 2026-07-28 or later.
func modernMeta(version string) string {
	return `{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},` +
		`"io.modelcontextprotocol/protocolVersion":"` + version + `"}`
}

// ToolList answers tools/list with the very bytes mcp-go answers for the
// same server, under a full and under a read-only scope, in the plain
// protocol and in the newer one (2026-07-28, whose requests carry a _meta
// and whose answers an envelope), encoded once; and so does the list of
// the tools New left to LateTools, before they are registered.
func TestToolListAnswersAsMCPGo(t *testing.T) {
	d := newDeps(t)
	s := newServer(t, d)
	l := mcpserver.NewToolList(s, "1.2.3", nil)
	scopes := map[string]context.Context{
		"full":      context.Background(),
		"read-only": access.With(context.Background(), access.MustNew("test", access.Rules{ReadOnly: true})),
	}
	protocols := []struct {
		name, request string
		result        func(*mcpwire.ToolList, context.Context) (json.RawMessage, error)
	}{
		{"plain", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, (*mcpwire.ToolList).Result},
		{"2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":` + modernMeta("2026-07-28") + `}}`, (*mcpwire.ToolList).ModernResult},
	}
	for name, ctx := range scopes {
		for _, p := range protocols {
			t.Run(name+"/"+p.name, func(t *testing.T) {
				// Listed from the definitions New left to LateTools,
				// before mcp-go has them (its answer below registers
				// them).
				late := &mcpserver.LateTools{}
				sl := newServer(t, d, mcpserver.WithLateTools(late))
				early, err := p.result(mcpserver.NewToolList(sl, "1.2.3", late), ctx)
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

// toolCall is a tools/call of one tool with its arguments (JSON).
type toolCall struct{ tool, args string }

// runningCalls are, for every tool, a call that passes the argument check
// and runs, in an order in which each succeeds over worldFiles: the
// reads first, then the writes, each on what the one before left. A tool
// added to the server needs one here.
var runningCalls = []toolCall{
	{"expand_context", `{"concept_id":"ml","max_depth":3}`},
	{"find_files", `{}`},
	{"find_links", `{"path":"Other.md"}`},
	{"get_backlinks", `{"path":"Home.md"}`},
	{"get_broken_links", `{}`},
	{"get_claude_context", `{"path":"c"}`},
	{"get_concept", `{"concept_id":"sl"}`},
	{"get_concept_path", `{"from_concept":"sl","to_concept":"ml"}`},
	{"get_note_history", `{"path":"Home.md"}`},
	{"get_obsidian_guide", `{"topic":"conventions"}`},
	{"get_properties", `{"path":"Other.md"}`},
	{"get_recent_changes", `{}`},
	{"get_statistics", `{}`},
	{"get_tags", `{}`},
	{"get_vault_info", `{}`},
	{"grep", `{"query":"<b>"}`},
	{"list_directory", `{"path":"","recursive":true}`},
	{"read_canvas", `{"path":"Board.canvas"}`},
	{"query_base", `{"base":"filters: file.hasTag(\"x\") || true\nviews:\n  - type: table\n    name: All\n    order: [file.name]\n"}`},
	{"query_notes", `{}`},
	{"read_file", `{"path":"Home.md"}`},
	{"search_concepts", `{"query":"learning"}`},
	{"search_files", `{"pattern":"**/*.md"}`},
	{"search_notes", `{"query":"Home"}`},
	{"create_daily_note", `{"date":"2024-05-01"}`},
	{"get_daily_note", `{"date":"2024-05-01"}`},
	{"create_directory", `{"path":"new"}`},
	{"write_file", `{"path":"new/w.md","content":"# W <w> & x\n"}`},
	{"edit_file", `{"path":"new/w.md","old_text":"x","new_text":"y \u2028"}`},
	{"patch_note", `{"path":"Other.md","target_type":"heading","target":"Other","operation":"append","content":"More <m>."}`},
	{"set_properties", `{"path":"Other.md","properties":{"status":"<done>"}}`},
	{"edit_canvas", `{"path":"Board.canvas","add_nodes":[{"type":"text","text":"<new> & \u2028","x":0,"y":400,"width":100,"height":60}]}`},
	{"rename_file", `{"old_path":"new/w.md","new_path":"new/w2.md"}`},
	{"get_diff", `{"from":"HEAD~1"}`},
	{"delete_file", `{"path":"new/w2.md"}`},
	{"revert_change", `{"commit":"HEAD"}`},
	// Answers with an error of its own: nothing is held back.
	{"confirm_mass_deletion", `{"files":1}`},
}

// toolErrors are the tools whose running call answers with an error of
// the tool's own (not the argument check's).
var toolErrors = []string{"confirm_mass_deletion"}

// Every tool's answer, encoded once by package answer (as the stdio
// transport writes it), is byte for byte what json.Marshal makes of it
// (as mcp-go's stdio transport writes it): for every tool a call that
// runs and one the argument check refuses, calls whose answers hold text
// and structured content with characters JSON escapes, and protocol
// errors (an unknown tool, parameters that are not an object, a call
// without a tool name).
func TestToolAnswersAsMCPGo(t *testing.T) {
	s := newServer(t, newDeps(t))
	initialize(s)
	ctx := context.Background()

	running := map[string]bool{}
	for _, c := range runningCalls {
		running[c.tool] = true
	}
	for _, tool := range s.ListTools() {
		if !running[tool.Tool.Name] {
			t.Errorf("tool %s has no call in runningCalls (differential_tools_test.go): add one that runs", tool.Tool.Name)
		}
	}

	encode := func(t *testing.T, id int, params string) (resp mcp.JSONRPCMessage, marshalled []byte) {
		t.Helper()
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, params)
		resp = s.HandleMessage(ctx, json.RawMessage(msg))
		want, err := json.Marshal(resp)
		if err != nil {
			t.Fatalf("%s: %v", params, err)
		}
		var got bytes.Buffer
		if err := answer.WriteLine(&got, resp); err != nil {
			t.Fatalf("%s: %v", params, err)
		}
		if !bytes.Equal(got.Bytes(), append(want, '\n')) {
			t.Errorf("%s:\n got %.400s\nwant %.400s", params, got.Bytes(), want)
		}
		return resp, want
	}
	call := func(c toolCall) string { return fmt.Sprintf(`{"name":%q,"arguments":%s}`, c.tool, c.args) }

	escaped := 0 // structured answers holding an escaped <
	id := 0
	for _, c := range runningCalls {
		id++
		resp, want := encode(t, id, call(c))
		res, ok := resp.(mcp.JSONRPCResponse)
		if !ok {
			t.Errorf("%s %s: answered %s", c.tool, c.args, want)
			continue
		}
		r, _ := res.Result.(*mcp.CallToolResult)
		if r == nil || r.IsError != slices.Contains(toolErrors, c.tool) || bytes.Contains(want, []byte("invalid arguments")) {
			t.Errorf("%s %s: answered %.400s", c.tool, c.args, want)
		}
		if bytes.Contains(want, []byte(`"structuredContent"`)) && bytes.Contains(want, []byte(`\u003c`)) {
			escaped++
		}
		// The same tool refused by the argument check: an unknown
		// argument (every tool's schema is closed), and no arguments.
		id++
		if _, want := encode(t, id, call(toolCall{c.tool, `{"no_such_argument":1}`})); !bytes.Contains(want, []byte(`"isError":true`)) || !bytes.Contains(want, []byte("invalid arguments")) {
			t.Errorf("%s with an unknown argument: answered %.400s", c.tool, want)
		}
		id++
		encode(t, id, call(toolCall{c.tool, `{}`}))
	}
	if escaped < 3 {
		t.Errorf("only %d structured answers with an escaped <: the calls test too little", escaped)
	}

	for _, params := range []string{
		`{"name":"no_such_tool","arguments":{}}`,
		`{"arguments":{}}`,
		`5`,
		`{"name":"read_file","arguments":"Home.md"}`,
		`{"name":"read_file","arguments":{"path":"Home.md"},"_meta":{"progressToken":"p"}}`,
	} {
		id++
		encode(t, id, params)
	}
}

// A whole stdio session with every fast path on (tools/list answered
// from its encodings, tools/call answers encoded once) writes the lines
// mcp-go's own stdio server writes for the same requests, in every
// protocol version mcp-go supports: tools/list, calls that run (the
// reads, whose answers do not change between the two sessions), calls
// the argument check refuses for every tool, and protocol errors.
func TestStdioSessionAsMCPGo(t *testing.T) {
	d := newDeps(t)
	for _, version := range mcp.ValidProtocolVersions {
		t.Run(version, func(t *testing.T) {
			modern := mcp.IsModernProtocol(version)
			// A request of the newer protocol carries its _meta, as
			// mcp-go's client sends it.
			params := func(p string) string {
				if !modern {
					return p
				}
				if p == `{}` {
					return `{"_meta":` + modernMeta(version) + `}`
				}
				return `{"_meta":` + modernMeta(version) + `,` + strings.TrimPrefix(p, `{`)
			}
			request := func(id int, method, p string) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params(p))
			}
			opening := request(0, "initialize", `{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
			var lines []string
			if modern {
				opening = request(0, "server/discover", `{}`)
			} else {
				lines = append(lines, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			id := 0
			next := func() int { id++; return id }
			lines = append(lines,
				request(next(), "tools/list", `{}`),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, next()),
				request(next(), "tools/list", `{"cursor":""}`),
				request(next(), "ping", `{}`),
				request(next(), "no/such/method", `{}`),
				request(next(), "tools/call", `{"name":"no_such_tool","arguments":{}}`),
				request(next(), "tools/call", `{"arguments":{}}`),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":5}`, next()),
				`{"jsonrpc":"2.0","id":`,
			)
			for _, c := range runningCalls {
				lines = append(lines, request(next(), "tools/call", fmt.Sprintf(`{"name":%q,"arguments":{"no_such_argument":1}}`, c.tool)))
			}
			for _, c := range runningCalls {
				if !slices.Contains([]string{"read_file", "get_backlinks", "grep", "expand_context", "get_tags", "search_notes", "get_properties", "find_links"}, c.tool) {
					continue
				}
				lines = append(lines, request(next(), "tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, c.tool, c.args)))
			}

			// mcp-go's own answers: every line handed to its stdio
			// server.
			want := mcpwire.OpenedSession(t, newServer(t, d), mcpwire.StdioOptions{}, opening, lines...)
			s := newServer(t, d)
			list := mcpserver.NewToolList(s, "1.2.3", nil)
			got := mcpwire.OpenedSession(t, s, mcpwire.StdioOptions{ListTools: list.Result, ModernListTools: list.ModernResult, AnswerToolCalls: true}, opening, lines...)
			if len(want) < id {
				t.Fatalf("mcp-go answered %d of %d requests: %q", len(want), id, want)
			}
			// Compared as sets: requests are served concurrently.
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Errorf("answer differs from mcp-go's:\ngot:  %.400s\nwant: %.400s", got[i], want[i])
					}
				}
				t.Fatalf("%d answers, mcp-go %d", len(got), len(want))
			}
		})
	}
}
