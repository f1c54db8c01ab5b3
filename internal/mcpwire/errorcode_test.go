package mcpwire

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// SetErrorCode changes the code of the error response mcp-go's OnError
// hook is handed, and only its code; any other error it leaves alone.
func TestSetErrorCode(t *testing.T) {
	for _, err := range []error{errors.New("x"), struct{ error }{errors.New("x")}, (*struct{ error })(nil), &mcp.UnsupportedProtocolVersionError{}} {
		if SetErrorCode(err, mcp.INVALID_PARAMS) {
			t.Errorf("%T: changed", err)
		}
	}

	hooks := &server.Hooks{}
	set := false
	hooks.AddOnError(func(_ context.Context, _ any, method mcp.MCPMethod, _ any, err error) {
		if method == mcp.MethodResourcesRead {
			set = SetErrorCode(err, mcp.INVALID_PARAMS)
		}
	})
	s := server.NewMCPServer("t", "1", server.WithResourceCapabilities(false, false), server.WithHooks(hooks))
	s.AddResource(mcp.NewResource("test://r", "r"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, errors.New("no such thing")
	})
	s.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
	resp, err := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://r"}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if !set || !strings.Contains(string(resp), `"code":-32602`) || !strings.Contains(string(resp), "no such thing") {
		t.Errorf("mcp-go's error response was not changed (set %t): %s", set, resp)
	}
}
