package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"

	"github.com/mark3labs/mcp-go/server"
)

// serveStdio attaches the stdio transport: one MCP session on stdin and
// stdout until the client closes stdin or ctx ends.
func serveStdio(ctx context.Context, c *core, s *server.MCPServer, stdin io.Reader, stdout, stderr io.Writer) error {
	c.logger.Info("serving over stdio", "vault", c.vault.Root(), "version", version)
	stdio := server.NewStdioServer(s)
	stdio.SetErrorLogger(log.New(stderr, "mcp: ", log.LstdFlags))
	if err := stdio.Listen(ctx, stdin, stdout); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("stdio: %w", err)
	}
	return nil
}
