package mcpwire

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func TestLineReader(t *testing.T) {
	big := strings.Repeat("x", 100)
	input := "one\r\ntwo\n\n" + `{"id":7,"params":"` + big + "\"}\n" + `{"params":"` + big + `","id":"a\"b"}` + "\n" + big + "\nlast"
	r := newLineReader(strings.NewReader(input), 50)
	type got struct {
		line string
		size int64
		id   string
		err  error
	}
	want := []got{
		{line: "one"}, {line: "two"}, {line: ""},
		{size: int64(len(big) + 20), id: "7"},
		{size: int64(len(big) + 25), id: `"a\"b"`},
		{size: int64(len(big)), id: "null"},
		{line: "last", err: io.EOF},
	}
	for i, w := range want {
		line, over, err := r.next()
		g := got{line: string(line), err: err}
		if over != nil {
			g.size = over.size
			g.id = "null"
			if id := over.id(); id != nil {
				g.id = string(id)
			}
		}
		if g != w {
			t.Errorf("line %d: got %+v, want %+v", i, g, w)
		}
	}
}

// testServer is an MCP server with a tool that blocks until released and
// reports whether its context was cancelled.
type testServer struct {
	s       *server.MCPServer
	entered chan struct{}
	release chan struct{}
}

func newTestServer() *testServer {
	ts := &testServer{entered: make(chan struct{}, 10), release: make(chan struct{})}
	ts.s = server.NewMCPServer("t", "1", server.WithToolCapabilities(false))
	ts.s.AddTool(mcp.NewTool("slow"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ts.entered <- struct{}{}
		select {
		case <-ts.release:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			return mcp.NewToolResultText("cancelled"), nil
		}
		return mcp.NewToolResultText("done"), nil
	})
	ts.s.AddTool(mcp.NewTool("fast"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("fast"), nil
	})
	return ts
}

// bothPaths runs test with tool calls answered through mcp-go and through
// StdioOptions.AnswerToolCalls: with adds the option.
func bothPaths(t *testing.T, test func(t *testing.T, with func(StdioOptions) StdioOptions)) {
	for _, answer := range []bool{false, true} {
		t.Run(fmt.Sprintf("AnswerToolCalls=%v", answer), func(t *testing.T) {
			test(t, func(o StdioOptions) StdioOptions { o.AnswerToolCalls = answer; return o })
		})
	}
}

// client drives Serve through pipes.
type client struct {
	in    *io.PipeWriter
	lines chan map[string]any
	done  chan error
}

func startServe(t *testing.T, ctx context.Context, ts *testServer, opts StdioOptions) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{in: inW, lines: make(chan map[string]any, 100), done: make(chan error, 1)}
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	go func() {
		err := ServeStdio(ctx, ts.s, inR, outW, opts)
		outW.Close()
		c.done <- err
	}()
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("server wrote invalid JSON: %q", sc.Text())
				continue
			}
			c.lines <- m
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		for range c.lines {
		}
	})
	c.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	c.wait(t, 0)
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *client) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		t.Fatalf("send: %v", err)
	}
}

func (c *client) call(t *testing.T, id int, tool string) {
	c.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, id, tool))
}

// wait returns the response with the given id.
func (c *client) wait(t *testing.T, id float64) map[string]any {
	t.Helper()
	for m := range c.lines {
		if m["id"] == id {
			return m
		}
	}
	t.Fatalf("no response with id %v before the output ended", id)
	return nil
}

func resultText(m map[string]any) string {
	res, _ := m["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return fmt.Sprint(m)
	}
	c, _ := content[0].(map[string]any)
	return fmt.Sprint(c["text"])
}

// Input closed while a request runs: the request finishes undisturbed and
// is answered before Serve returns.
func TestEOFDrainsRequests(t *testing.T) {
	bothPaths(t, func(t *testing.T, with func(StdioOptions) StdioOptions) {
		ts := newTestServer()
		c := startServe(t, context.Background(), ts, with(StdioOptions{}))
		c.call(t, 1, "slow")
		c.call(t, 2, "slow")
		<-ts.entered
		<-ts.entered
		c.in.Close()
		select {
		case err := <-c.done:
			t.Fatalf("Serve returned (%v) with requests in progress", err)
		default:
		}
		close(ts.release)
		got := map[float64]string{}
		for m := range c.lines {
			if id, ok := m["id"].(float64); ok {
				got[id] = resultText(m)
			}
		}
		if got[1] != "done" || got[2] != "done" {
			t.Errorf("answers = %v, want both done (not cancelled)", got)
		}
		if err := <-c.done; err != nil {
			t.Errorf("Serve = %v", err)
		}
	})
}

// A signal (ctx done) stops the reading; requests already received are
// answered, uncancelled.
func TestContextDoneDrainsRequests(t *testing.T) {
	bothPaths(t, func(t *testing.T, with func(StdioOptions) StdioOptions) {
		ts := newTestServer()
		ctx, cancel := context.WithCancel(context.Background())
		c := startServe(t, ctx, ts, with(StdioOptions{}))
		c.call(t, 1, "slow")
		<-ts.entered
		cancel()
		close(ts.release)
		if got := resultText(c.wait(t, 1)); got != "done" {
			t.Errorf("answer = %q", got)
		}
		if err := <-c.done; err != nil {
			t.Errorf("Serve = %v", err)
		}
	})
}

// A request still running when the drain times out is cancelled, and
// Serve returns.
func TestDrainTimeout(t *testing.T) {
	bothPaths(t, func(t *testing.T, with func(StdioOptions) StdioOptions) {
		ts := newTestServer()
		c := startServe(t, context.Background(), ts, with(StdioOptions{DrainTimeout: 50 * time.Millisecond}))
		c.call(t, 1, "slow")
		<-ts.entered
		c.in.Close()
		if err := <-c.done; err != nil {
			t.Errorf("Serve = %v", err)
		}
	})
}

// An oversized message gets an error with its id and the session goes on.
func TestOversizedMessage(t *testing.T) {
	bothPaths(t, func(t *testing.T, with func(StdioOptions) StdioOptions) {
		ts := newTestServer()
		c := startServe(t, context.Background(), ts, with(StdioOptions{MaxMessageBytes: 1000}))
		pad := strings.Repeat("y", 5000)
		c.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fast","arguments":{"x":"`+pad+`"}}}`)
		m := c.wait(t, 3)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(mcp.INVALID_REQUEST) || !strings.Contains(fmt.Sprint(e["message"]), "limits.max_message_bytes") {
			t.Errorf("oversized: %v", m)
		}
		// The id written last, as the TypeScript SDK does.
		c.send(t, `{"method":"tools/call","params":{"name":"fast","arguments":{"x":"`+pad+`"}},"jsonrpc":"2.0","id":"ts-4"}`)
		for m := range c.lines {
			if m["id"] == "ts-4" {
				if m["error"] == nil {
					t.Errorf("id last: %v", m)
				}
				break
			}
		}
		c.call(t, 5, "fast")
		if got := resultText(c.wait(t, 5)); got != "fast" {
			t.Errorf("after an oversized message: %q", got)
		}
	})
}

// Many concurrent requests and the end of input: every one answered.
func TestManyRequestsThenEOF(t *testing.T) {
	bothPaths(t, func(t *testing.T, with func(StdioOptions) StdioOptions) {
		ts := newTestServer()
		c := startServe(t, context.Background(), ts, with(StdioOptions{}))
		seen := make(chan map[float64]bool)
		go func() {
			ids := map[float64]bool{}
			for m := range c.lines {
				if id, ok := m["id"].(float64); ok {
					ids[id] = true
				}
			}
			seen <- ids
		}()
		for i := 1; i <= 300; i++ {
			c.call(t, i, "fast")
		}
		c.in.Close()
		ids := <-seen
		for i := 1; i <= 300; i++ {
			if !ids[float64(i)] {
				t.Errorf("request %d not answered", i)
			}
		}
	})
}

// Answered names each request's method once its answer is out, and only
// then; notifications are not answered.
func TestAnswered(t *testing.T) {
	bothPaths(t, func(t *testing.T, with func(StdioOptions) StdioOptions) {
		ts := newTestServer()
		answered := make(chan string, 10)
		c := startServe(t, context.Background(), ts, with(StdioOptions{Answered: func(m string) { answered <- m }}))
		if got := <-answered; got != "initialize" {
			t.Fatalf("first answered = %q, want initialize", got)
		}
		c.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		c.wait(t, 1)
		if got := <-answered; got != "tools/list" {
			t.Fatalf("answered = %q, want tools/list", got)
		}
		c.call(t, 2, "slow")
		<-ts.entered
		select {
		case got := <-answered:
			t.Fatalf("%q answered while the call still runs", got)
		default:
		}
		close(ts.release)
		c.wait(t, 2)
		if got := <-answered; got != "tools/call" {
			t.Fatalf("answered = %q, want tools/call", got)
		}
	})
}

// rawSession sends lines to a Serve of s with opts, then ends the input,
// and returns every line the server wrote but the initialize answer.
func rawSession(t *testing.T, s *server.MCPServer, opts StdioOptions, lines ...string) []string {
	t.Helper()
	return openedSession(t, s, opts, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`, lines...)
}

// openedSession is rawSession with the given opening request (id 0).
func openedSession(t *testing.T, s *server.MCPServer, opts StdioOptions, opening string, lines ...string) []string {
	t.Helper()
	in := opening + "\n"
	for _, l := range lines {
		in += l + "\n"
	}
	var out strings.Builder
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := ServeStdio(context.Background(), s, strings.NewReader(in), &out, opts); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":0,`) {
			got = append(got, l)
		}
	}
	return got
}

// The tools/list answer is encoded as a session opens, with either
// opening request, before the client asks for it: a client's tools/list
// right after its first answer then finds it made.
func TestListToolsEncodedAtOpening(t *testing.T) {
	for _, opening := range []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"}}}}`,
	} {
		var m struct{ Method string }
		if err := json.Unmarshal([]byte(opening), &m); err != nil {
			t.Fatal(err)
		}
		t.Run(m.Method, func(t *testing.T) {
			encoded := make(chan struct{}, 1)
			list := func(context.Context) (json.RawMessage, error) {
				select {
				case encoded <- struct{}{}:
				default:
				}
				return json.RawMessage(`{"tools":[]}`), nil
			}
			inR, inW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- ServeStdio(context.Background(), newTestServer().s, inR, io.Discard, StdioOptions{
					ListTools: list, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				})
			}()
			if _, err := io.WriteString(inW, opening+"\n"); err != nil {
				t.Fatal(err)
			}
			select {
			case <-encoded:
			case <-time.After(time.Minute):
				t.Errorf("no tools/list encoded after %s alone", m.Method)
			}
			inW.Close()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The caller serves a call in the session's context and writes its
// answer once, as package answer encodes it.
func TestCallerWritesOnce(t *testing.T) {
	s := newTestServer().s
	var w countingWriter
	o := &output{w: &w, pending: newPending()}
	c := newCaller(s, o, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	c.contextFunc(ctx)
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fast","arguments":{}}}`)
	want, err := json.Marshal(s.HandleMessage(ctx, line))
	if err != nil {
		t.Fatal(err)
	}
	c.call(ctx, line)
	c.wait()
	if w.writes != 1 || w.String() != string(want)+"\n" {
		t.Fatalf("%d writes: %q, want %q", w.writes, w.String(), want)
	}
}

// A call still waiting for the session when the requests are cancelled
// is dropped, and wait returns.
func TestCallerCancelled(t *testing.T) {
	var w countingWriter
	c := newCaller(newTestServer().s, &output{w: &w, pending: newPending()}, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	c.call(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fast","arguments":{}}}`))
	cancel()
	c.wait()
	if w.writes != 0 {
		t.Fatalf("answered a cancelled call: %q", w.String())
	}
}

// Once callQueue calls are unanswered, the next waits before it is
// taken (the reading waits with it); cancelled while it waits, it is
// dropped, and the calls queued before it are still served.
func TestCallerQueueBounded(t *testing.T) {
	var w countingWriter
	c := newCaller(newTestServer().s, &output{w: &w, pending: newPending()}, slog.New(slog.DiscardHandler))
	line := func(id int) []byte {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"fast","arguments":{}}}`, id))
	}
	ctx := context.Background()
	for i := range callQueue {
		c.call(ctx, line(i)) // the session is not ready: none is answered yet
	}
	waiting, cancel := context.WithCancel(ctx)
	returned := make(chan struct{})
	go func() {
		c.call(waiting, line(callQueue))
		close(returned)
	}()
	cancel()
	<-returned
	c.contextFunc(ctx)
	c.wait()
	if w.writes != callQueue {
		t.Fatalf("%d answers, want the %d calls queued before the queue was full", w.writes, callQueue)
	}
	if strings.Contains(w.String(), fmt.Sprintf(`"id":%d,`, callQueue)) {
		t.Fatalf("answered the call dropped while it waited")
	}
}

type countingWriter struct {
	strings.Builder
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Builder.Write(p)
}
