package main

import (
	"context"
	"fmt"
	"io"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/config"
	"vaultmcp/internal/stdio"
)

// serveStdio attaches the stdio transport: one MCP session on stdin and
// stdout until the client closes stdin or ctx ends, then the requests
// already received are answered (package stdio).
func serveStdio(ctx context.Context, c *core, s *server.MCPServer, cfg *config.Config, stdin io.Reader, stdout io.Writer) error {
	c.logger.Info("serving over stdio", "vault", c.vault.Root(), "version", version)
	err := stdio.Serve(ctx, s, stdin, stdout, stdio.Options{
		MaxMessageBytes: cfg.Limits.MaxMessageBytes,
		Logger:          c.logger,
	})
	if err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	return nil
}
