// Command vaultmcp serves an Obsidian vault kept in git to AI clients over
// the Model Context Protocol.
//
// Usage:
//
//	vaultmcp serve [--vault DIR] [--config FILE]   serve over stdio (the default)
//	vaultmcp version                               print the version
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"vaultmcp/internal/config"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

const usage = `vaultmcp serves an Obsidian vault kept in git to AI clients over MCP.

Usage:
  vaultmcp serve [flags]    serve the vault over stdio (default command)
  vaultmcp version          print the version

Flags:
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal starts a graceful stop; a second one kills.
		<-ctx.Done()
		stop()
	}()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "vaultmcp:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	fs := pflag.NewFlagSet("vaultmcp "+cmd, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	switch cmd {
	case "version":
		fmt.Fprintf(stdout, "vaultmcp %s\n", version)
		return nil
	case "serve":
		config.Flags(fs)
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, pflag.ErrHelp) {
				return nil
			}
			return err
		}
		cfg, err := config.Load(fs)
		if err != nil {
			return err
		}
		return serve(ctx, cfg, stdin, stdout, stderr)
	case "help", "-h", "--help":
		config.Flags(fs)
		fs.Usage()
		return nil
	default:
		return fmt.Errorf("unknown command %q (try: serve, version)", cmd)
	}
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	switch strings.ToLower(level) {
	case "debug":
		l = slog.LevelDebug
	case "warn", "warning":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}
