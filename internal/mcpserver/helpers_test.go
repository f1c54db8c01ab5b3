package mcpserver

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/changes"
	"vaultmcp/vault/index"
)

// waitTimeout only guards against a hang; nothing measures speed.
const waitTimeout = 30 * time.Second

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// rig is a whole server over a temporary vault with a built index and a
// change feed, as serve assembles it (without git).
type rig struct {
	t    testing.TB
	root string
	v    *vault.Vault
	ix   *index.Index
	feed *changes.Feed
	s    *server.MCPServer
	res  *resources
}

type rigOption func(*tools.Deps, *[]Option)

func withClientLog(l *ClientLog) rigOption {
	return func(_ *tools.Deps, o *[]Option) { *o = append(*o, WithClientLog(l)) }
}

func withMaxResult(n int) rigOption {
	return func(d *tools.Deps, _ *[]Option) { d.MaxResultBytes = n }
}

func newRig(t testing.TB, files map[string]string, opts ...rigOption) *rig {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, root: root}
	for rel, content := range files {
		r.write(rel, content)
	}
	r.v, err = vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.feed = &changes.Feed{Logger: quiet}
	r.v.Observe(r.feed.Publish)
	r.ix = index.New(r.v, quiet)
	r.feed.Listen(r.ix.Changed)
	if err := r.ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := tools.Deps{Vault: r.v, Index: r.ix, Logger: quiet, Changes: r.feed}
	var o []Option
	for _, opt := range opts {
		opt(&d, &o)
	}
	r.s, r.res, err = assemble(d, "1.2.3", o...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// write changes a file behind the server's back; publish tells the feed,
// as the watcher would.
func (r *rig) write(rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) remove(rel string) {
	r.t.Helper()
	if err := os.RemoveAll(filepath.Join(r.root, filepath.FromSlash(rel))); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) publish(paths ...string) { r.feed.PublishPaths(paths) }

// conn is one client session over the in-process transport, with the
// notifications it received in order.
type conn struct {
	t      testing.TB
	c      *client.Client
	init   *mcp.InitializeResult
	notes  chan mcp.JSONRPCNotification
	mu     sync.Mutex
	closed bool
}

// connect opens a session; version "" lets mcp-go's client pick (the
// stateless 2026-07-28 protocol), else it is pinned.
func (r *rig) connect(version string) *conn {
	r.t.Helper()
	c, err := client.NewInProcessClient(r.s)
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
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		r.t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	cn.init, err = c.Initialize(ctx, req)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(cn.close)
	return cn
}

func (cn *conn) close() {
	cn.mu.Lock()
	cn.closed = true
	cn.mu.Unlock()
	cn.c.Close()
}

func (cn *conn) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), waitTimeout)
}

// next returns the next notification other than progress and log
// messages (unless logs is set).
func (cn *conn) next(logs bool) mcp.JSONRPCNotification {
	cn.t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case n := <-cn.notes:
			if n.Method == "notifications/message" && !logs || n.Method == "notifications/subscriptions/acknowledged" {
				continue
			}
			return n
		case <-deadline:
			cn.t.Fatal("no notification")
		}
	}
}

// expect fails unless the next notifications are exactly want, each
// written "method" or "method uri".
func (cn *conn) expect(want ...string) {
	cn.t.Helper()
	for _, w := range want {
		n := cn.next(false)
		got := n.Method
		if uri, ok := n.Params.AdditionalFields["uri"].(string); ok {
			got += " " + uri
		}
		if got != w {
			cn.t.Fatalf("notification %q, want %q", got, w)
		}
	}
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
