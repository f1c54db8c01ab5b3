package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/audit"
)

// auditNote tells the request's audit record (when the transport keeps
// one, package audit) which tool ran on which paths and whether it
// answered with an error.
func auditNote(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		audit.Note(ctx, string(mcp.MethodToolsCall), req.Params.Name, req.GetArguments())
		res, err := next(ctx, req)
		if err != nil || res != nil && res.IsError {
			audit.NoteError(ctx)
		}
		return res, err
	}
}
