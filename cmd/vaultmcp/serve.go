package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"vaultmcp/internal/config"
	"vaultmcp/internal/mcpserver"
	"vaultmcp/vault/access"
)

// serverScope names the server's own access rules in refusals.
const serverScope = "this server (access.read_only)"

// serve builds the core once and attaches the configured transport: stdio
// (the default) until the client closes stdin or ctx ends, or HTTP when an
// address is configured.
func serve(ctx context.Context, cfg *config.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	// Server logs also reach the clients that ask (logging/setLevel).
	clientLog := mcpserver.NewClientLog(newLogger(stderr, cfg.Log.Level).Handler())
	logger := slog.New(clientLog)
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
	c, err := openCore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer c.Close()

	s, err := mcpserver.New(c.deps, version, mcpserver.WithClientLog(clientLog))
	if err != nil {
		return err
	}
	if wb != nil {
		return wb.serve(ctx, c, s)
	}
	// Every request on stdio runs under the server's own scope.
	return serveStdio(access.With(ctx, scope), c, s, stdin, stdout, stderr)
}
