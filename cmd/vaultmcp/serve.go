package main

import (
	"context"
	"io"

	"vaultmcp/internal/config"
	"vaultmcp/internal/mcpserver"
)

// serve builds the core once and attaches the configured transport: stdio
// (the default) until the client closes stdin or ctx ends.
func serve(ctx context.Context, cfg *config.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	logger := newLogger(stderr, cfg.Log.Level)
	c, err := openCore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer c.Close()

	s, err := mcpserver.New(c.deps, version)
	if err != nil {
		return err
	}
	return serveStdio(ctx, c, s, stdin, stdout, stderr)
}
