package mcpserver

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Drain lets the server stop without cutting work short, whatever the
// transport. It tracks the tool calls in progress; Close refuses new ones
// and waits for those running. A tool that changes the vault also runs
// detached from its request's cancellation: once begun, a write is
// completed and committed even when the client goes away or the process
// is told to stop, so it is never undone half-way with "context
// canceled". Pass one to New with WithDrain; the zero value is ready.
type Drain struct {
	mu      sync.Mutex
	active  int
	closed  bool
	idle    chan struct{} // closed when closed && active == 0
	writers map[string]bool
}

// WithDrain has the server's tool calls tracked by d.
func WithDrain(d *Drain) Option { return func(o *options) { o.drain = d } }

// init records which tools change the vault (those not annotated
// read-only).
func (d *Drain) init(tools []server.ServerTool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.writers = make(map[string]bool, len(tools))
	for _, t := range tools {
		ro := t.Tool.Annotations.ReadOnlyHint
		d.writers[t.Tool.Name] = ro == nil || !*ro
	}
}

// begin admits one call, or reports false once Close has begun.
func (d *Drain) begin() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false
	}
	d.active++
	return true
}

func (d *Drain) end() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.active--
	if d.closed && d.active == 0 && d.idle != nil {
		close(d.idle)
		d.idle = nil
	}
}

// Active returns the number of tool calls in progress.
func (d *Drain) Active() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.active
}

// Close refuses tool calls from now on and waits until those in progress
// have returned, or ctx ends (its error is returned then).
func (d *Drain) Close(ctx context.Context) error {
	d.mu.Lock()
	d.closed = true
	if d.active == 0 {
		d.mu.Unlock()
		return nil
	}
	if d.idle == nil {
		d.idle = make(chan struct{})
	}
	idle := d.idle
	d.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// middleware tracks each call and detaches writes from cancellation.
func (d *Drain) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !d.begin() {
			return errorText("the server is shutting down and takes no new calls; nothing was done"), nil
		}
		defer d.end()
		d.mu.Lock()
		write := d.writers[req.Params.Name]
		d.mu.Unlock()
		if write {
			ctx = context.WithoutCancel(ctx)
		}
		return next(ctx, req)
	}
}
