package httpserver

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/auth"
)

// TestGracefulShutdown ends Serve while a call is running: the call
// finishes and is answered, a notification stream is closed, and Serve
// returns without error.
func TestGracefulShutdown(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	s := server.NewMCPServer("test", "0")
	s.AddTool(mcp.NewTool("slow"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(entered)
		<-release
		return mcp.NewToolResultText("finished"), nil
	})
	authn, err := auth.New(auth.Options{Anonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{MCP: s, Auth: authn, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()

	post := func(body string, headers ...string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("POST: %v", err)
			return nil, ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, _ := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	session := []string{"Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-06-18"}

	// A notification stream, open until the shutdown ends it.
	streamReq, _ := http.NewRequest("GET", base+"/mcp", nil)
	streamReq.Header.Set("Accept", "text/event-stream")
	streamReq.Header.Set(session[0], session[1])
	streamReq.Header.Set(session[2], session[3])
	stream, err := http.DefaultClient.Do(streamReq)
	if err != nil || stream.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", err, stream)
	}
	streamDone := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, stream.Body)
		stream.Body.Close()
		close(streamDone)
	}()

	answered := make(chan string, 1)
	go func() {
		_, body := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`, session...)
		answered <- body
	}()
	<-entered
	stop() // the shutdown starts while the call runs
	// New connections are refused once the listener is closed.
	for {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			break
		}
		c.Close()
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	if body := <-answered; !strings.Contains(body, "finished") {
		t.Errorf("the call in flight was not answered: %q", body)
	}
	<-streamDone
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
