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
	"vaultmcp/internal/mcpwire"
)

// How long after answering initialize (or server/discover), and after
// answering tools/list, the core's background work starts when the client
// asks nothing else meanwhile; the earlier of the two applies. A request
// that needs the vault starts it at once (the start gate), so these only
// delay the start for a client that is idle: one still reading what it
// was sent. After tools/list that is a 44 KB answer the client parses
// (1–3 ms for mcp-go's client, more for the TypeScript SDK's), on the
// same machine as the server: started at once, the core's first work —
// reading git's index, the collector resumed, the watcher's walk, then
// the index build's workers — took both cores of a 2-core machine while
// the client parsed, and the client saw tools/list take twice as long.
const (
	beginAfterInitialize = 100 * time.Millisecond
	beginAfterToolsList  = 10 * time.Millisecond
)

// serveStdio attaches the stdio transport: one MCP session on stdin and
// stdout until the client closes stdin or ctx ends, then the requests
// already received are answered (package stdio).
//
// A client starting a session asks initialize, then tools/list, on a
// process that has just started: the core's background work (Begin)
// waits until beginAfterToolsList after tools/list is answered, or
// beginAfterInitialize after initialize (or server/discover), so that on
// 2 cores it does not compete with those answers or with the client
// reading them.
// A request that needs the vault starts it at once (the start gate).
// A plain tools/list, and the newer protocol's (mcp-go's client sends
// one with a _meta), is answered from its encoding (mcpwire.ToolList),
// made in the background once initialize (or server/discover) is
// answered; a tools/call is answered encoded once
// (mcpwire.StdioOptions.AnswerToolCalls).
//
// The tools are registered with mcp-go (late) as the core's background
// work begins, not before the first answer: neither of the first two
// answers needs them (the list is encoded from the tools' definitions),
// and mcp-go's registration encodes and decodes every input schema again
// (about 30 page faults and 1.5–3 ms of CPU on a process just started).
// A request mcp-go serves that reads them, should it come sooner,
// registers them first (mcpserver.LateTools).
func serveStdio(ctx context.Context, c *core, s *server.MCPServer, late *mcpserver.LateTools, cfg *config.Config, stdin io.Reader, stdout io.Writer) error {
	c.logger.Info("serving over stdio", "vault", c.vault.Root(), "version", version)
	begin := &deferredBegin{begin: func() {
		c.Begin()
		late.Register()
	}, now: time.Now, afterFunc: time.AfterFunc}
	defer begin.stop()
	list := mcpserver.NewToolList(s, version, late)
	err := mcpwire.ServeStdio(ctx, s, stdin, stdout, mcpwire.StdioOptions{
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
				begin.within(beginAfterInitialize)
			case string(mcp.MethodToolsList):
				begin.within(beginAfterToolsList)
			}
		},
	})
	if err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	return nil
}

// deferredBegin calls begin once a delay has passed, the earliest of the
// delays asked for (within) since it was made; stop cancels it for good.
// begin may be called more than once (a later, earlier deadline after the
// first has fired): the core's Begin does its work only the first time.
type deferredBegin struct {
	begin     func()
	now       func() time.Time
	afterFunc func(time.Duration, func()) *time.Timer // time.AfterFunc

	mu      sync.Mutex
	timer   *time.Timer
	due     time.Time
	stopped bool
}

// within has begin called no later than d from now.
func (b *deferredBegin) within(d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return
	}
	due := b.now().Add(d)
	if b.timer != nil {
		if !due.Before(b.due) {
			return
		}
		b.timer.Stop()
	}
	b.due = due
	b.timer = b.afterFunc(d, b.begin)
}

// stop cancels the pending call, and every later within.
func (b *deferredBegin) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopped = true
	if b.timer != nil {
		b.timer.Stop()
	}
}
