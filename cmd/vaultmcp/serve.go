package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"vaultmcp/internal/config"
	"vaultmcp/internal/mcpserver"
	"vaultmcp/internal/mcpwire"
	"vaultmcp/internal/memlimit"
	"vaultmcp/vault/access"
)

// serverScope names the server's own access rules in refusals.
const serverScope = "this server (access.read_only)"

// serve builds the core once and attaches the configured transport: stdio
// (the default) until the client closes stdin or ctx ends (SIGINT,
// SIGTERM), or HTTP when an address is configured, until ctx ends. Either
// way it then stops taking requests, lets the ones already received
// finish (a write in flight is completed and committed), gives pending
// pushes a bounded last chance, and returns.
//
// hooks.begin, when not nil, is called as the core begins its background
// work (core.Begin): holdGC's resume.
func serve(ctx context.Context, cfg *config.Config, stdin io.Reader, stdout, stderr io.Writer, hooks startHooks) error {
	onBegin := hooks.begin
	// Server logs also reach the clients that ask (logging/setLevel).
	clientLog := mcpserver.NewClientLog(newLogger(stderr, cfg.Log.Level).Handler())
	logger := slog.New(clientLog)
	// The configured soft limit, raised above the live heap when the index
	// needs more, so the collector never runs on every allocation.
	defer memlimit.Start(cfg.Limits.MemoryBytes, os.Getenv("GOMEMLIMIT"), logger).Stop()
	resumeUnlessBounded(onBegin)
	scope, err := access.New(serverScope, access.Rules{ReadOnly: cfg.Access.ReadOnly, Allow: cfg.Access.Allow, Deny: cfg.Access.Deny})
	if err != nil {
		return fmt.Errorf("access: %w", err)
	}
	var wb *web
	if cfg.HTTP.Addr != "" {
		if wb, err = newWeb(cfg, scope, stderr); err != nil {
			return err
		}
	}

	// The core (index, sync, watcher, ranked search) lives until serve
	// returns, not until ctx ends: a signal stops the transport, and the
	// requests it lets finish still need the index and git.
	coreCtx, stopCore := context.WithCancel(context.WithoutCancel(ctx))
	defer stopCore()
	if hooks.signalsHandled != nil {
		<-hooks.signalsHandled
	}
	c, err := openCore(coreCtx, cfg, logger)
	if err != nil {
		return err
	}
	c.onBegin = onBegin
	defer c.Close() // last: the final push gets the commits of the drained requests

	drain := &mcpserver.Drain{}
	opts := []mcpserver.Option{mcpserver.WithClientLog(clientLog), mcpserver.WithDrain(drain), mcpserver.WithStartGate(c.Started(), c.Begin)}
	// On stdio the tools are registered with mcp-go after the session's
	// first answers (serveStdio): neither needs them registered.
	var late *mcpserver.LateTools
	if wb == nil {
		late = &mcpserver.LateTools{}
		opts = append(opts, mcpserver.WithLateTools(late))
	}
	s, err := mcpserver.New(c.deps, version, opts...)
	if err != nil {
		return err
	}
	// A core that fails to start (Failed) stops the transport as a signal
	// does, and the server then ends with the core's error.
	tctx, stopTransport := context.WithCancel(ctx)
	defer stopTransport()
	go func() {
		select {
		case <-c.Failed():
			stopTransport()
		case <-tctx.Done():
		}
	}()
	if wb != nil {
		// The REST API reads the vault without the start gate, and an
		// HTTP server is not started for one quick session.
		c.Begin()
		err = wb.serve(tctx, c, s)
	} else {
		// Every request on stdio runs under the server's own scope.
		err = serveStdio(access.With(tctx, scope), c, s, late, cfg, stdin, stdout)
	}
	select {
	case <-c.Failed():
		err = errors.Join(err, c.Err())
	default:
	}
	// The transport answered every request it received; a call it had to
	// abandon (drain timeout) still may not have returned.
	waitCtx, cancel := context.WithTimeout(coreCtx, mcpwire.DefaultDrainTimeout)
	defer cancel()
	if derr := drain.Close(waitCtx); derr != nil {
		logger.Warn("tool calls still running at exit", "count", drain.Active())
	}
	if err != nil {
		return err
	}
	logger.Info("stopped: every request received was answered")
	return nil
}
