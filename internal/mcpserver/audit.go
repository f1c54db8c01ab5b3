package mcpserver

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
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

// clientTrailer names the MCP client (its name and version from the
// session's client info) in the commits a call makes, when the transport
// set a commit author (HTTP): the history then says which connector or
// app made each change.
func clientTrailer(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if a, ok := gitsync.AuthorFrom(ctx); ok {
			if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
				if info := s.GetClientInfo(); info.Name != "" {
					ctx = gitsync.WithAuthor(ctx, a.WithTrailer(gitsync.ClientTrailer, strings.TrimSpace(info.Name+" "+info.Version)))
				}
			}
		}
		return next(ctx, req)
	}
}
