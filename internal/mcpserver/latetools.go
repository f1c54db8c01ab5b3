package mcpserver

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/mcpwire"
	"vaultmcp/vault/access"
)

// LateTools is the registration of the server's tools with mcp-go, left
// by New (WithLateTools) for the transport to make after the session's
// first answers (stdio makes it as the core's background work begins).
// mcp-go's AddTools encodes and decodes every input schema again to look
// for x-mcp-header annotations: about a third of New, on a process just
// started, and of nothing initialize or server/discover answer with (the
// tools capability is declared, and the instructions are the server's
// own). The zero value is ready for New to fill.
//
// A request that reads the tools (every one but initialize,
// server/discover and ping) registers them first, whoever gets there
// first, so no request mcp-go serves ever sees the server without its
// tools; Register does the same from the transport. A ToolList made with
// t lists the same tools without waiting for their registration.
type LateTools struct {
	register func()
	listed   []mcp.Tool
}

// NewToolList returns the tools/list answers of s, the server New made
// for version, each encoded on first use (mcpwire.ToolList). With late,
// the LateTools New was given (or nil), the tools listed are the ones New
// left to it to register: the list does not wait for mcp-go to have them.
func NewToolList(s *server.MCPServer, version string, late *LateTools) *mcpwire.ToolList {
	return mcpwire.NewToolList(mcp.Implementation{Name: Name, Version: version}, func() []mcp.Tool {
		if late != nil && late.listed != nil {
			return late.listed
		}
		var all []mcp.Tool
		for _, t := range s.ListTools() {
			all = append(all, t.Tool)
		}
		return all
	}, func(ctx context.Context) bool { return access.From(ctx).ReadOnly() })
}

// WithLateTools leaves the registration of the tools to t.Register (or to
// the first request that reads them) instead of making it in New.
func WithLateTools(t *LateTools) Option { return func(o *options) { o.late = t } }

// Register registers the tools with mcp-go, once; any later call returns
// when they are registered. It does nothing before New has filled t.
func (t *LateTools) Register() {
	if t != nil && t.register != nil {
		t.register()
	}
}

// registerTools registers listed with s now, or, with late, on the first
// Register or request that reads them.
func registerTools(s *server.MCPServer, hooks *server.Hooks, listed []server.ServerTool, late *LateTools) {
	register := sync.OnceFunc(func() { s.AddTools(listed...) })
	if late == nil {
		register()
		return
	}
	late.register = register
	late.listed = make([]mcp.Tool, len(listed))
	for i, t := range listed {
		late.listed[i] = t.Tool
	}
	hooks.AddBeforeAny(func(_ context.Context, _ any, method mcp.MCPMethod, _ any) {
		switch method {
		case mcp.MethodInitialize, mcp.MethodServerDiscover, mcp.MethodPing:
			return
		}
		register()
	})
}
