package mcpserver

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/mcpwire"
)

// ParamsError is an error a resource or prompt handler returns when the
// request itself is wrong: a resource that does not exist, a URI that
// names no file, a prompt argument missing, unknown or not understood.
// The client gets it as -32602 (invalid params) with the error's message,
// not as -32603 (internal error), which says the server failed. Packages
// that cannot import this one (prompts) give their errors the same method.
type ParamsError interface {
	error
	InvalidParams() bool
}

// invalidParams marks a resource error as the client's (ParamsError).
type invalidParams struct{ error }

var _ ParamsError = invalidParams{}

// InvalidParams reports that the error is the request's.
func (invalidParams) InvalidParams() bool { return true }

func (e invalidParams) Unwrap() error { return e.error }

// paramsErrorCodes makes resources/read and prompts/get answer a
// ParamsError with -32602.
//
// mcp-go sends every error a resource or prompt handler returns as
// -32603 (its own "prompt not found" is -32602). Its OnError hook is
// called with the error response it is about to send, just before
// encoding it; the hook changes its code (mcpwire.SetErrorCode).
// TestParamsErrorCodes fails should a new mcp-go stop that.
func paramsErrorCodes(hooks *server.Hooks) {
	hooks.AddOnError(func(_ context.Context, _ any, method mcp.MCPMethod, _ any, err error) {
		if method != mcp.MethodResourcesRead && method != mcp.MethodPromptsGet {
			return
		}
		var p ParamsError
		if errors.As(err, &p) && p.InvalidParams() {
			mcpwire.SetErrorCode(err, mcp.INVALID_PARAMS)
		}
	})
}
