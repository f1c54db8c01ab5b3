package mcpserver

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// connectHTTP opens a session over mcp-go's streamable HTTP transport on
// loopback, listening for server notifications on its GET stream.
func (r *rig) connectHTTP(url string) *conn {
	r.t.Helper()
	// The GET stream belongs to the 2025-11-25 protocol these sessions
	// speak; mcp-go marks it deprecated for 2026-07-28.
	//lint:ignore SA1019 the 2025-11-25 GET stream is tested on purpose
	c, err := client.NewStreamableHttpClient(url, transport.WithContinuousListening())
	if err != nil {
		r.t.Fatal(err)
	}
	cn := &conn{t: r.t, c: c, notes: make(chan mcp.JSONRPCNotification, 1000)}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		cn.mu.Lock()
		defer cn.mu.Unlock()
		if !cn.closed {
			cn.notes <- n
		}
	})
	// The GET stream lives as long as Start's context: not a timeout.
	if err := c.Start(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = "2025-11-25"
	req.Params.ClientInfo = mcp.Implementation{Name: "http-test", Version: "0"}
	if cn.init, err = c.Initialize(ctx, req); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(cn.close)
	return cn
}

// Over HTTP several sessions share one server: each hears of the notes it
// subscribed to and gets the logs at the level it set, nothing of the
// others'.
func TestHTTPSessions(t *testing.T) {
	cl := NewClientLog(slog.NewTextHandler(&bytes.Buffer{}, nil))
	logger := slog.New(cl)
	r := newRig(t, map[string]string{"a.md": "a\n", "b.md": "b\n"}, withClientLog(cl))
	hs := httptest.NewServer(server.NewStreamableHTTPServer(r.s))
	// Cleanups run last-in first-out: the sessions (registered later)
	// close their streams before the server waits for its connections.
	t.Cleanup(hs.Close)

	one, two := r.connectHTTP(hs.URL), r.connectHTTP(hs.URL)
	if one.c.GetSessionId() == "" || one.c.GetSessionId() == two.c.GetSessionId() {
		t.Fatalf("session ids %q and %q", one.c.GetSessionId(), two.c.GetSessionId())
	}
	one.subscribe("vault:///a.md")
	two.subscribe("vault:///b.md")
	two.setLevel(mcp.LoggingLevelInfo)

	r.writeThroughVault("a.md", "a2\n")
	r.writeThroughVault("b.md", "b2\n")
	one.expect("notifications/resources/updated vault:///a.md")
	two.expect("notifications/resources/updated vault:///b.md")

	// The log goes to the session that asked; the other, which asked for
	// nothing, hears only the list change that follows.
	logger.Info("pulled", "commits", 1)
	if level, data := two.nextLog(); level != mcp.LoggingLevelInfo || data["message"] != "pulled" {
		t.Errorf("log over HTTP: %s %v", level, data)
	}
	r.writeThroughVault("c.md", "c\n")
	if n := one.next(true); n.Method != "notifications/resources/list_changed" {
		t.Errorf("session one got %s %v, want the list change (and no log it never asked for)", n.Method, n.Params.AdditionalFields)
	}

	// Prompts, completion and reads work per request as over stdio.
	ctx, cancel := two.ctx()
	defer cancel()
	var get mcp.GetPromptRequest
	get.Params.Name = "obsidian-conventions"
	if _, err := two.c.GetPrompt(ctx, get); err != nil {
		t.Errorf("prompt over HTTP: %v", err)
	}
	if res, err := readResource(t, two, "vault:///c.md"); err != nil || res.Contents[0].(mcp.TextResourceContents).Text != "c\n" {
		t.Errorf("read over HTTP: %+v %v", res, err)
	}
}
