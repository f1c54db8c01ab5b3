package mcpserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/mcpwire"
	"vaultmcp/vault"
	"vaultmcp/vault/access"
)

// The request's access scope (package access) reaches the tools in its
// context, put there by the transport. Paths and answers are narrowed
// below, where they are resolved and listed; what the MCP layer adds is
// the read-only view of the tool list: under a read-only scope, tools not
// marked read-only (their ReadOnlyHint annotation) are left out of
// tools/list, and a call to one anyway is refused with the reason. A tool
// added later is covered by its annotation, with no list to update; a
// tool without the annotation counts as one that writes.

// accessHooks leaves the writing tools out of tools/list under a
// read-only scope.
func accessHooks(h *server.Hooks) {
	h.AddAfterListTools(func(ctx context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		if res == nil || !access.From(ctx).ReadOnly() {
			return
		}
		kept := res.Tools[:0:0]
		for _, t := range res.Tools {
			if !mcpwire.Writes(t) {
				kept = append(kept, t)
			}
		}
		res.Tools = kept
	})
}

// readOnlyGuard refuses a call of a writing tool under a read-only scope,
// saying why, before the tool runs. (The vault refuses the change itself
// too; this answers before any argument is looked at.)
func readOnlyGuard(tools []server.ServerTool) server.ToolHandlerMiddleware {
	writing := map[string]bool{}
	for _, t := range tools {
		writing[t.Tool.Name] = mcpwire.Writes(t.Tool)
	}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			scope := access.From(ctx)
			if w, known := writing[req.Params.Name]; scope.ReadOnly() && (w || !known) {
				msg := req.Params.Name + " is not available: " + scope.CheckWrite("", "").Error()
				text, _ := json.Marshal(map[string]string{"error": msg})
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(text))}, IsError: true}, nil
			}
			return next(ctx, req)
		}
	}
}

// hiddenURI reports whether a resource URI names a vault file the scope in
// ctx hides (subscriptions to it are not recorded), at either end of a
// symbolic link on its way.
func hiddenURI(ctx context.Context, v *vault.Vault, uri string) bool {
	rel, err := NotePath(uri)
	if err != nil {
		return false
	}
	_, err = v.ResolveFor(ctx, rel)
	return errors.Is(err, vault.ErrDenied)
}
