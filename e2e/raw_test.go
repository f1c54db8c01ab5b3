package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawSession speaks newline-delimited JSON-RPC to the server by hand, so
// a test can send bytes no well-behaved client library would produce:
// invalid UTF-8, lone surrogate escapes, exact schemas as sent on the
// wire.
type rawSession struct {
	stdin  io.WriteCloser
	lines  chan []byte // stdout, one message per line; closed at EOF
	mu     sync.Mutex  // one request at a time
	nextID int
	vault  *testVault
	// initResult is the result of the initialize request, as sent.
	initResult json.RawMessage
}

// rawResponse is one JSON-RPC response.
type rawResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// rawInitialize is the initialize request the raw client sends.
const rawInitialize = `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"vaultmcp-e2e-raw","version":"1.0.0"}}`

// startRaw starts the server on v and performs the initialize handshake;
// the server is stopped when the test ends.
func startRaw(t testing.TB, v *testVault, opts ...serverOption) *rawSession {
	t.Helper()
	cfg := newServerConfig(t, v, opts)
	stderr := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := cfg.command(ctx, stderr)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start server: %v", err)
	}
	r := &rawSession{stdin: stdin, lines: make(chan []byte, 16), vault: v}
	go func() {
		defer close(r.lines)
		br := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				r.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() {
			for range r.lines { // drain so the server can finish writing
			}
			cmd.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(callTimeout):
			t.Errorf("server did not exit after stdin closed")
		}
		cancel()
		<-done
		checkServerLog(t, stderr)
	})
	resp := r.request(t, "initialize", []byte(rawInitialize))
	if resp.Error != nil {
		t.Fatalf("initialize: %s", resp.Error.Message)
	}
	r.initResult = resp.Result
	r.send(t, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return r
}

// send writes one line to the server as it is (a newline is added).
func (r *rawSession) send(t testing.TB, line []byte) {
	t.Helper()
	if _, err := r.stdin.Write(append(bytes.Clone(line), '\n')); err != nil {
		t.Fatalf("write to server: %v", err)
	}
}

// request sends a request whose params are the given bytes, verbatim, and
// waits for the response with its id.
func (r *rawSession) request(t testing.TB, method string, params []byte) rawResponse {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextID++
	id := r.nextID
	var line bytes.Buffer
	fmt.Fprintf(&line, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":`, id, method)
	line.Write(params)
	line.WriteString("}")
	r.send(t, line.Bytes())
	timeout := time.After(callTimeout)
	for {
		select {
		case msg, ok := <-r.lines:
			if !ok {
				t.Fatalf("%s: server closed its output", method)
			}
			var resp rawResponse
			if err := json.Unmarshal(msg, &resp); err != nil {
				t.Fatalf("%s: server sent invalid JSON: %q", method, msg)
			}
			if string(resp.ID) == fmt.Sprint(id) {
				return resp
			}
			// A notification or an unrelated message: not ours.
		case <-timeout:
			t.Fatalf("%s: no response within %s", method, callTimeout)
		}
	}
}

// callRaw calls a tool with arguments given as raw JSON bytes and returns
// the text and the isError flag. A protocol error fails the test.
func (r *rawSession) callRaw(t testing.TB, name string, args []byte) (text string, isError bool) {
	t.Helper()
	var params bytes.Buffer
	fmt.Fprintf(&params, `{"name":%q,"arguments":`, name)
	params.Write(args)
	params.WriteString("}")
	resp := r.request(t, "tools/call", params.Bytes())
	if resp.Error != nil {
		t.Fatalf("%s: protocol error %d: %s", name, resp.Error.Code, resp.Error.Message)
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		t.Fatalf("%s: result is not a tool result: %s", name, resp.Result)
	}
	var texts []string
	for _, c := range res.Content {
		if c.Type == "text" {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n"), res.IsError
}

// failRaw calls a tool that must fail and returns its error message.
func (r *rawSession) failRaw(t testing.TB, name string, args []byte) string {
	t.Helper()
	text, isErr := r.callRaw(t, name, args)
	if !isErr {
		t.Fatalf("%s %s: want an error result, got success: %s", name, args, text)
	}
	return errorMessage(t, r.vault, text, nil)
}
