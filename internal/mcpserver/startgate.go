package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// WithStartGate holds back every request but initialize, ping and
// tools/list until ready is closed (or the request's context ends). The
// server answers those at once while work that scales with the vault —
// watching its folders, building the index — starts in the background;
// anything that reads the vault waits for that start, so it sees the
// vault as the watcher does from then on.
func WithStartGate(ready <-chan struct{}) Option {
	return func(o *options) { o.startGate = ready }
}

// startGate adds the gate's hook to hooks.
func startGate(hooks *server.Hooks, ready <-chan struct{}) {
	hooks.AddBeforeAny(func(ctx context.Context, _ any, method mcp.MCPMethod, _ any) {
		switch method {
		case mcp.MethodInitialize, mcp.MethodPing, mcp.MethodToolsList:
			return
		}
		select {
		case <-ready:
		case <-ctx.Done():
		}
	})
}
