package httpserver

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/auth"
)

// TestStreamOutlivesTimeouts keeps a notification stream open past the
// server's read and write timeouts (which are for requests, not for
// streams) and checks a notification still arrives on it.
func TestStreamOutlivesTimeouts(t *testing.T) {
	s := server.NewMCPServer("test", "0")
	authn, err := auth.New(auth.Options{Anonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{MCP: s, Auth: authn, ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
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
	defer func() {
		stop()
		<-served
	}()
	base := "http://" + ln.Addr().String() + "/mcp"
	req, _ := http.NewRequest("POST", base, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")

	get, _ := http.NewRequest("GET", base, nil)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", sid)
	get.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	stream, err := http.DefaultClient.Do(get)
	if err != nil || stream.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", err, stream)
	}
	defer stream.Body.Close()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stream.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// Outlast both timeouts several times over; the stream must not be
	// cut meanwhile.
	idle := time.After(time.Second)
wait:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the stream was closed while idle")
			}
			_ = l
		case <-idle:
			break wait
		}
	}
	s.SendNotificationToAllClients("notifications/message", map[string]any{"level": "info", "data": "still here"})
	for l := range lines {
		if strings.Contains(l, "still here") {
			return
		}
	}
	t.Fatal("the stream ended before the notification arrived")
}
