package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"vaultmcp/internal/testutil"
)

// On a large vault with an edit made while the server was not running,
// initialize and tools/list are answered first, before any work that
// scales with the vault; that work (watching, the index build, the sync
// that commits the outside edit) then starts without any other request,
// and every later answer sees its result.
func TestStartAnswersFirst(t *testing.T) {
	t.Parallel()
	template, linking := hubVault(t, 2000)
	v := copyVault(t, template)
	v.write(t, "Outside.md", "written while the server was down, links [[Hub]]\n")
	p := startProc(t, v, withDirtyVault(), withEnv("VAULTMCP_LOG_LEVEL=info"))
	p.sendLines(t, lineInitialize, lineInitialized, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if resp, ok := p.response(t, "0"); !ok || resp.Error != nil {
		t.Fatalf("initialize: %+v", resp)
	}
	resp, ok := p.response(t, "1")
	if !ok || resp.Error != nil {
		t.Fatalf("tools/list: %+v", resp)
	}
	var list struct {
		Tools []struct {
			Name        string
			InputSchema struct {
				Type                 string `json:"type"`
				AdditionalProperties *bool  `json:"additionalProperties"`
			} `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(resp.Result, &list); err != nil || len(list.Tools) < 20 {
		t.Fatalf("tools/list listed %d tools (%v)", len(list.Tools), err)
	}
	// The definitions are encoded ahead (input schemas once, output
	// schemas at build time): still strict objects, still with the
	// output schemas of structured answers.
	for _, tool := range list.Tools {
		if in := tool.InputSchema; in.Type != "object" || in.AdditionalProperties == nil || *in.AdditionalProperties {
			t.Errorf("%s: input schema is not a strict object: %+v", tool.Name, in)
		}
		if tool.Name == "get_backlinks" && !strings.Contains(string(tool.OutputSchema), `"backlink_count"`) {
			t.Errorf("get_backlinks: output schema %s lacks backlink_count", tool.OutputSchema)
		}
	}

	// No request needs the vault yet: the start still happens, and the
	// outside edit is committed.
	testutil.WaitFor(t, "the outside edit committed", func() bool {
		return strings.Contains(v.gitRun(t, "log", "--format=%s", "-n", "5"), "vault: sync external changes")
	})
	testutil.WaitFor(t, "the index built", func() bool { return strings.Contains(p.stderr.String(), "index built") })

	p.sendLines(t, toolCall(2, "get_backlinks", map[string]any{"path": "Hub.md", "limit": 10000}))
	text, isErr := toolText(t, mustResponse(t, p, "2"))
	var bl struct {
		BacklinkCount int `json:"backlink_count"`
	}
	if isErr || json.Unmarshal([]byte(text), &bl) != nil || bl.BacklinkCount != linking+1 {
		t.Errorf("get_backlinks = %.300s, want %d backlinks (the outside note's among them)", text, linking+1)
	}
}

// A write sent with initialize, before anything started, waits for the
// start and for nothing less: it is committed, and so is the edit made
// while the server was down; nothing is left uncommitted.
func TestWriteAtStart(t *testing.T) {
	t.Parallel()
	template, _ := hubVault(t, 1000)
	for run := range 2 {
		v := copyVault(t, template)
		v.write(t, "Outside.md", "written while the server was down\n")
		p := startProc(t, v, withDirtyVault())
		p.sendLines(t, lineInitialize, lineInitialized, toolCall(1, "write_file", map[string]any{"path": "First.md", "content": "first"}))
		if text, isErr := toolText(t, mustResponse(t, p, "1")); isErr {
			t.Fatalf("run %d: write_file: %s", run, text)
		}
		testutil.WaitFor(t, "the outside edit committed", func() bool {
			return strings.Contains(v.gitRun(t, "log", "--format=%s", "-n", "5"), "vault: sync external changes")
		})
		log := v.gitRun(t, "log", "--format=%s", "-n", "5")
		if !strings.Contains(log, "MCP: write First.md") {
			t.Errorf("run %d: the write is not committed:\n%s", run, log)
		}
		if st := v.gitStatus(t); st != "" {
			t.Errorf("run %d: git status not clean:\n%s", run, st)
		}
	}
}

// mustResponse is p.response that fails the test when the output ended.
func mustResponse(t *testing.T, p *proc, id string) rawResponse {
	t.Helper()
	resp, ok := p.response(t, id)
	if !ok {
		t.Fatalf("no response %s\nlog:\n%s", id, p.stderr.String())
	}
	return resp
}

// A git index the server cannot read, read only after the first answers,
// still stops the server before any request touches the vault, saying
// how to fix it.
func TestUnreadableIndexStops(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"a.md": "a\n"})
	v.commitAll(t, "a")
	v.gitRun(t, "update-index", "--split-index")
	p := startProc(t, v, withDirtyVault())
	p.sendLines(t, lineInitialize, lineInitialized, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		toolCall(2, "write_file", map[string]any{"path": "b.md", "content": "b"}))
	err := p.waitExit(t)
	if err == nil {
		if resp, ok := p.response(t, "2"); ok {
			if _, isErr := toolText(t, resp); !isErr {
				t.Skip("go-git reads split indexes now") // then nothing to refuse
			}
		}
		t.Fatalf("server exited cleanly\n%s", p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "split-index") {
		t.Errorf("the log does not say how to fix it:\n%s", p.stderr.String())
	}
	if v.exists("b.md") {
		t.Error("the write went through")
	}
}

// TestPlainToolsListAsMCPGo checks, on the binary over stdio, that a plain
// tools/list (as the TypeScript SDK and clients of the initialize
// handshake send it), answered from the list encoded once, gets the very
// bytes mcp-go answers a tools/list it handles itself (one with a
// cursor), for the full scope and for a read-only one; and so does the
// newer protocol's (2026-07-28: server/discover, then a tools/list with a
// _meta, as mcp-go's client asks), in that protocol's envelope.
func TestPlainToolsListAsMCPGo(t *testing.T) {
	t.Parallel()
	const meta = `"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"e2e","version":"1"},` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	for _, tc := range []struct {
		name     string
		env      []string
		modern   bool
		envelope string // how the result starts
	}{
		{"full", nil, false, `{"tools":[`},
		{"read-only", []string{"VAULTMCP_ACCESS_READ_ONLY=true"}, false, `{"tools":[`},
		{"full-2026-07-28", nil, true, `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"vaultmcp",`},
		{"read-only-2026-07-28", []string{"VAULTMCP_ACCESS_READ_ONLY=true"}, true, `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"vaultmcp",`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := newVault(t, map[string]string{"Home.md": "# Home\n"})
			cfg := newServerConfig(t, v, []serverOption{withEnv(tc.env...)})
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			var stderr lockedBuffer
			cmd := cfg.command(ctx, &stderr)
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			outPipe, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			out := bufio.NewReader(outPipe)
			ask := func(line string) json.RawMessage {
				t.Helper()
				if _, err := io.WriteString(in, line+"\n"); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(line, `"notifications/`) {
					return nil
				}
				answer, err := out.ReadBytes('\n')
				if err != nil {
					t.Fatalf("no answer to %s: %v\n%s", line, err, stderr.String())
				}
				var resp struct {
					Result json.RawMessage `json:"result"`
				}
				if err := json.Unmarshal(answer, &resp); err != nil || len(resp.Result) == 0 {
					t.Fatalf("answer to %s: %s (%v)", line, answer, err)
				}
				return resp.Result
			}
			var plain, viaMCPGo, again json.RawMessage
			if tc.modern {
				ask(`{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{` + meta + `}}`)
				plain = ask(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`)
				viaMCPGo = ask(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `,"cursor":""}}`)
				again = ask(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + meta + `}}`)
			} else {
				ask(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
				ask(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				plain = ask(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
				viaMCPGo = ask(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":""}}`)
				again = ask(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`)
			}
			in.Close()
			if err := cmd.Wait(); err != nil {
				t.Errorf("server exit: %v\n%s", err, stderr.String())
			}
			if strings.Contains(stderr.String(), "DATA RACE") {
				t.Errorf("race in the server:\n%s", stderr.String())
			}
			if !bytes.Equal(plain, viaMCPGo) || !bytes.Equal(again, viaMCPGo) {
				t.Fatalf("plain tools/list differs from mcp-go's answer:\nplain:  %.400s\nmcp-go: %.400s", plain, viaMCPGo)
			}
			if !bytes.HasPrefix(plain, []byte(tc.envelope)) {
				t.Errorf("tools/list answered %.200s, want it to start with %s", plain, tc.envelope)
			}
			writes := bytes.Contains(plain, []byte(`"name":"write_file"`))
			if writes != strings.HasPrefix(tc.name, "full") {
				t.Errorf("%s scope: write_file listed = %v", tc.name, writes)
			}
		})
	}
}

// mcp-go's client starts a session with server/discover (the newer
// protocol's initialize), not initialize: a client that then asks nothing
// still has the server start its work, as after initialize, so an edit
// made while the server was down is committed without any request.
func TestStartAfterDiscoverAlone(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"a.md": "a\n"})
	v.commitAll(t, "a")
	v.write(t, "Outside.md", "written while the server was down\n")
	startSession(t, v, withDirtyVault())
	testutil.WaitFor(t, "the outside edit committed", func() bool {
		return strings.Contains(v.gitRun(t, "log", "--format=%s", "-n", "5"), "vault: sync external changes")
	})
}
