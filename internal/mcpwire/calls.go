package mcpwire

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/mcpwire/answer"
)

// callWorkers is how many tool calls run at once, as many as mcp-go's
// stdio server runs by default.
const callWorkers = 5

// callQueue is how many tool calls may be read and not yet answered
// before the reading waits, as mcp-go's stdio server queues 100 beside
// its workers: a client that sends calls faster than they are served
// (each up to the message limit) is slowed down instead of held in
// memory whole. Other messages (a sampling answer a call waits for)
// are still read while fewer are queued.
const callQueue = 100 + callWorkers

// caller serves tools/call requests beside mcp-go's stdio server, in the
// session that server registers, and writes each answer encoded once
// (package answer) instead of mcp-go's three encodings of it.
//
// As in mcp-go, calls run on their own goroutines, a bounded number at a
// time, so the reading goes on while a tool waits (for the client's
// answer to a sampling request, say); a panic is answered as an internal
// error carrying the request's id.
type caller struct {
	s      *server.MCPServer
	out    *output
	log    *slog.Logger
	slots  chan struct{}
	queued chan struct{}
	wg     sync.WaitGroup

	once    sync.Once
	ready   chan struct{} // closed once session holds the session's context
	session context.Context
}

func newCaller(s *server.MCPServer, out *output, log *slog.Logger) *caller {
	return &caller{s: s, out: out, log: log, slots: make(chan struct{}, callWorkers), queued: make(chan struct{}, callQueue), ready: make(chan struct{})}
}

// contextFunc is mcp-go's StdioContextFunc: it is handed the context
// mcp-go serves requests with (the session in it), which the calls are
// served with too.
func (c *caller) contextFunc(ctx context.Context) context.Context {
	c.once.Do(func() {
		c.session = ctx
		close(c.ready)
	})
	return ctx
}

// call serves one tools/call request (line is its own copy) once the
// session is registered and a worker is free; it waits while callQueue
// calls are still unanswered. ctx ends the wait: a
// request still waiting when the requests are cancelled is not served,
// as mcp-go drops the calls still queued when its input ends.
func (c *caller) call(ctx context.Context, line []byte) {
	select {
	case c.queued <- struct{}{}:
	case <-ctx.Done():
		return
	}
	c.wg.Go(func() {
		defer func() { <-c.queued }()
		select {
		case <-c.ready:
		case <-ctx.Done():
			return
		}
		select {
		case c.slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-c.slots }()
		resp := c.handle(line)
		if resp == nil {
			return
		}
		if err := answer.WriteLine(c.out, resp); err != nil {
			c.log.Warn("cannot write a tool's answer to the client", "err", err)
		}
	})
}

func (c *caller) handle(line []byte) (resp mcp.JSONRPCMessage) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("panic recovered in a tool call", "panic", p)
			var m struct {
				ID any `json:"id"`
			}
			_ = json.Unmarshal(line, &m)
			resp = mcp.JSONRPCError{
				JSONRPC: mcp.JSONRPC_VERSION,
				ID:      mcp.NewRequestId(m.ID),
				Error:   mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", p), nil),
			}
		}
	}()
	return c.s.HandleMessage(c.session, line)
}

// wait waits for the calls started.
func (c *caller) wait() { c.wg.Wait() }
