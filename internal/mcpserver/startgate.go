package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// WithStartGate holds back every request but initialize (and
// server/discover), ping and tools/list until ready is closed (or the request's context ends). The
// server answers those at once while work that scales with the vault —
// watching its folders, building the index — starts in the background;
// anything that reads the vault waits for that start, so it sees the
// vault as the watcher does from then on. begin, when not nil, starts
// that work: a request held back calls it first (the transport may defer
// the start until the client has its first answers; a request that needs
// the vault does not wait for that).
func WithStartGate(ready <-chan struct{}, begin func()) Option {
	return func(o *options) { o.startGate, o.begin = ready, begin }
}

// startGate adds the gate's hook to hooks.
func startGate(hooks *server.Hooks, ready <-chan struct{}, begin func()) {
	hooks.AddBeforeAny(func(ctx context.Context, _ any, method mcp.MCPMethod, _ any) {
		switch method {
		// server/discover is the newer protocol's initialize: mcp-go's
		// client sends it first and falls back to initialize when it is
		// refused, so holding it would hold the first answer too.
		case mcp.MethodInitialize, mcp.MethodServerDiscover, mcp.MethodPing, mcp.MethodToolsList:
			return
		}
		if begin != nil {
			begin()
		}
		select {
		case <-ready:
		case <-ctx.Done():
		}
	})
}
