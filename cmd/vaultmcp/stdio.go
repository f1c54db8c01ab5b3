package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/config"
	"vaultmcp/internal/mcpserver"
	"vaultmcp/internal/stdio"
)

// beginAfterInitialize is how long after answering initialize the core's
// background work starts when the client asks nothing else meanwhile.
const beginAfterInitialize = 100 * time.Millisecond

// serveStdio attaches the stdio transport: one MCP session on stdin and
// stdout until the client closes stdin or ctx ends, then the requests
// already received are answered (package stdio).
//
// A client starting a session asks initialize, then tools/list, on a
// process that has just started: the core's background work (Begin)
// waits until tools/list is answered, or beginAfterInitialize after
// initialize (or server/discover), so that on 2 cores it does not
// compete with those answers.
// A request that needs the vault starts it at once (the start gate).
// A plain tools/list, and the newer protocol's (mcp-go's client sends
// one with a _meta), is answered from its encoding (mcpserver.ToolList),
// made in the background once initialize (or server/discover) is
// answered; a tools/call is answered encoded once
// (stdio.Options.AnswerToolCalls).
func serveStdio(ctx context.Context, c *core, s *server.MCPServer, cfg *config.Config, stdin io.Reader, stdout io.Writer) error {
	c.logger.Info("serving over stdio", "vault", c.vault.Root(), "version", version)
	var timer *time.Timer
	var once sync.Once
	defer func() {
		once.Do(func() {}) // no timer after this returns
		if timer != nil {
			timer.Stop()
		}
	}()
	list := mcpserver.NewToolList(s, version)
	err := stdio.Serve(ctx, s, stdin, stdout, stdio.Options{
		MaxMessageBytes: cfg.Limits.MaxMessageBytes,
		Logger:          c.logger,
		ListTools:       list.Result,
		ModernListTools: list.ModernResult,
		AnswerToolCalls: true,
		Answered: func(method string) {
			switch method {
			// server/discover is the newer protocol's initialize (mcp-go's
			// client sends it instead): without it a client that then
			// waits would leave the core unstarted.
			case string(mcp.MethodInitialize), string(mcp.MethodServerDiscover):
				once.Do(func() { timer = time.AfterFunc(beginAfterInitialize, c.Begin) })
			case string(mcp.MethodToolsList):
				c.Begin()
			}
		},
	})
	if err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	return nil
}
