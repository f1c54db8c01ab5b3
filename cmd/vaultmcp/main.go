// Command vaultmcp serves an Obsidian vault kept in git to AI clients over
// the Model Context Protocol.
//
// Usage:
//
//	vaultmcp serve [--vault DIR] [--config FILE]   serve over stdio (the default)
//	vaultmcp serve --http [ADDR]                   serve over HTTP (default 127.0.0.1:8000)
//	vaultmcp init [flags]                          set up a vault, a config and a first credential
//	vaultmcp doctor [flags]                        check the configuration as serve would use it
//	vaultmcp version                               print the version, commit and build date
//	vaultmcp hash-password                         bcrypt hash of a password read on stdin
//	vaultmcp token create NAME                     a new API token and its config entry
//	vaultmcp oauth list|revoke                     the OAuth clients signed in, and signing them out
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

// version, commit and buildDate are set at build time with -ldflags
// "-X main.version=… -X main.commit=… -X main.buildDate=…" (make release:
// git describe, the commit's hash and the commit's time, so that one
// commit always gives the same bytes).
var (
	version   = "0.1.0-dev"
	commit    = ""
	buildDate = ""
)

// versionLine is what `vaultmcp version` prints: the version, then the
// commit and build date when the build recorded them.
func versionLine() string {
	line := "vaultmcp " + version
	var parts []string
	if commit != "" {
		parts = append(parts, "commit "+commit)
	}
	if buildDate != "" {
		parts = append(parts, "built "+buildDate)
	}
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	return line
}

const usage = `vaultmcp serves an Obsidian vault kept in git to AI clients over MCP.

Usage:
  vaultmcp serve [flags]    serve the vault over stdio (default command), or over HTTP with --http ADDR
  vaultmcp init [flags]     set up a vault, a config file and a first user or token
  vaultmcp doctor [flags]   check the configuration serve would use, one line per check
  vaultmcp version          print the version, commit and build date
  vaultmcp hash-password    read a password on stdin, print its bcrypt hash (for http.users)
  vaultmcp token create N   print a new API token named N and its http.tokens entry
  vaultmcp oauth list       list the OAuth clients (connectors) and their grants
  vaultmcp oauth revoke ID  sign a client out (or --user NAME: every client of a user)

Flags:
`

func main() {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	// Handing signals to Go costs a thread and a round trip with it
	// (~2 ms here, a tenth of the way to the first answer), so it is done
	// beside reading the configuration; serve waits for it before it
	// opens the vault, the first thing a signal must not cut short.
	handled := make(chan struct{})
	go func() {
		// A client that closes our stderr (mcp-go's stdio client does when
		// it ends a session) would otherwise have the next log line kill
		// the process with SIGPIPE, before the last commits are pushed.
		// Ignored, the write fails with EPIPE and the log line is lost,
		// nothing else.
		signal.Ignore(syscall.SIGPIPE)
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		close(handled)
		// The first signal starts a graceful stop; a second one kills:
		// the signals go back to their default before the stop starts,
		// so that none is caught in between and left unread.
		<-sigs
		signal.Stop(sigs)
		stop()
	}()
	// The process's own settings, so held here rather than in run, which
	// tests call side by side; every other command is short-lived.
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, startHooks{begin: holdGC(), signalsHandled: handled})
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "vaultmcp:", err)
		os.Exit(1)
	}
}

// startHooks are the process's own start-up settings that run hands to a
// server. The zero value (tests) holds nothing back.
type startHooks struct {
	// begin, when not nil, is called as a server's core begins its
	// background work (holdGC's resume).
	begin func()
	// signalsHandled, when not nil, is closed once SIGINT and SIGTERM
	// start a graceful stop; serve waits for it before opening the vault.
	signalsHandled <-chan struct{}
}

// run runs the command in args.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, hooks startHooks) error {
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
		fmt.Fprintln(stdout, versionLine())
		return nil
	case "hash-password":
		return hashPassword(stdin, stdout, stderr)
	case "token":
		return tokenCommand(args, stdout)
	case "oauth":
		return oauthCommand(args, stdout, stderr)
	case "doctor":
		return doctorCommand(ctx, fs, args, stdout)
	case "init":
		return initCommand(ctx, fs, args, stdin, stdout, stderr)
	case "serve":
		config.Flags(fs)
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, pflag.ErrHelp) {
				return nil
			}
			return err
		}
		if err := httpAddrArg(fs); err != nil {
			return err
		}
		cfg, err := config.Load(fs)
		if err != nil {
			return err
		}
		return serve(ctx, cfg, stdin, stdout, stderr, hooks)
	case "help", "-h", "--help":
		config.Flags(fs)
		fs.Usage()
		return nil
	default:
		return fmt.Errorf("unknown command %q (try: serve, init, doctor, version, hash-password, token, oauth)", cmd)
	}
}

// httpAddrArg lets `serve --http ADDR` work as written: a bare --http
// takes its default, so pflag leaves the address as an argument.
func httpAddrArg(fs *pflag.FlagSet) error {
	rest := fs.Args()
	if len(rest) == 0 {
		return nil
	}
	if f := fs.Lookup("http"); f != nil && f.Changed && f.Value.String() == config.DefaultHTTPAddr && len(rest) == 1 {
		return f.Value.Set(rest[0])
	}
	return fmt.Errorf("unexpected argument %q (serve takes flags only; see vaultmcp help)", rest[0])
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
