package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"vaultmcp/gitsync"
	"vaultmcp/internal/config"
	"vaultmcp/internal/mcpserver"
	"vaultmcp/internal/stdio"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/changes"
	"vaultmcp/vault/index"
	"vaultmcp/vault/rank"
	"vaultmcp/vault/watch"
)

// serve runs the MCP server over stdio until the client closes stdin or
// ctx ends (SIGINT, SIGTERM). Either way it stops reading, lets the
// requests already received finish (a write in flight is completed and
// committed), gives pending pushes a bounded last chance, and returns.
func serve(ctx context.Context, cfg *config.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	// Server logs also reach the clients that ask (logging/setLevel).
	clientLog := mcpserver.NewClientLog(newLogger(stderr, cfg.Log.Level).Handler())
	logger := slog.New(clientLog)

	dir := cfg.Vault.Path
	if dir == "" {
		dir = config.DefaultVaultDir()
		created, err := ensureDefaultVault(dir)
		if err != nil {
			return fmt.Errorf("default vault: %w", err)
		}
		if created {
			logger.Info("no vault configured: created a local default vault", "path", dir)
		} else {
			logger.Info("no vault configured: using the local default vault", "path", dir)
		}
	}
	v, err := vault.Open(dir, vault.Options{Hidden: cfg.Vault.Hidden, Skip: cfg.Vault.Skip, MaxWriteBytes: cfg.Limits.MaxWriteBytes})
	if err != nil {
		return err
	}

	// The core (index, sync, watcher, ranked search) lives until serve
	// returns, not until ctx ends: a signal stops the transport, and the
	// requests it lets finish still need the index and git.
	core, stopCore := context.WithCancel(context.WithoutCancel(ctx))
	defer stopCore()

	// One fan-out announces every change — our writes, pulls, outside
	// edits — to the index first, then the caches and subscriptions.
	feed := &changes.Feed{Logger: logger}
	v.Observe(feed.Publish)

	// The index builds in the background: initialize is answered at once,
	// and queries that need the index wait for it.
	ix := index.New(v, logger)
	ix.SetMaxNoteBytes(cfg.Limits.MaxNoteBytes)
	feed.Listen(ix.Refresh)

	repo, err := gitsync.Open(core, gitOptions(cfg, v, feed, logger))
	if err != nil {
		return fmt.Errorf("git: %w", err)
	}
	v.SetRecorder(repo)
	ix.Start(core)
	repo.Start(core)
	defer repo.Close() // last: its final push gets the commits of the drained requests
	w := watch.New(v, feed.Publish, watch.Options{Logger: logger})
	if err := w.Start(core); err != nil {
		return fmt.Errorf("watch vault: %w", err)
	}
	defer w.Close()

	// The ranked search builds in the background once the index is ready.
	ranked := rank.New(ix, logger)
	ranked.Start(core)

	deps := tools.Deps{Vault: v, Index: ix, Ranked: ranked, Git: repo, MaxReadBytes: cfg.Vault.MaxReadBytes, MaxResultBytes: cfg.Limits.MaxResultBytes, Logger: logger, Changes: feed}
	drain := &mcpserver.Drain{}
	s, err := mcpserver.New(deps, version, mcpserver.WithClientLog(clientLog), mcpserver.WithDrain(drain))
	if err != nil {
		return err
	}

	logger.Info("serving over stdio", "vault", v.Root(), "version", version)
	err = stdio.Serve(ctx, s, stdin, stdout, stdio.Options{
		MaxMessageBytes: cfg.Limits.MaxMessageBytes,
		Logger:          logger,
	})
	// The transport answered every request it received; a call it had to
	// abandon (drain timeout) still may not have returned.
	waitCtx, cancel := context.WithTimeout(core, stdio.DefaultDrainTimeout)
	defer cancel()
	if derr := drain.Close(waitCtx); derr != nil {
		logger.Warn("tool calls still running at exit", "count", drain.Active())
	}
	if err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	logger.Info("stopped: every request received was answered")
	return nil
}

// The vault's history is its git repository: every change the vault records
// is a commit.
var _ vault.Recorder = (*gitsync.Repo)(nil)

// gitOptions maps the configuration onto gitsync.
func gitOptions(cfg *config.Config, v *vault.Vault, feed *changes.Feed, logger *slog.Logger) gitsync.Options {
	interval := cfg.Git.SyncInterval
	if interval == 0 {
		interval = -1 // configured as "never"; gitsync reads 0 as its default
	}
	auth := gitsync.Auth{
		SSHKeyFile:       cfg.Git.SSHKey,
		SSHKeyPassphrase: cfg.Git.SSHKeyPassphrase,
		SSHAgent:         cfg.Git.SSHKey == "",
		Token:            cfg.Git.Token,
		Username:         cfg.Git.Username,
	}
	if cfg.Git.KnownHosts != "" {
		auth.KnownHostsFiles = []string{cfg.Git.KnownHosts}
	}
	return gitsync.Options{
		Dir:          v.Root(),
		RemoteURL:    cfg.Git.Remote,
		Branch:       cfg.Git.Branch,
		AuthorName:   cfg.Git.AuthorName,
		AuthorEmail:  cfg.Git.AuthorEmail,
		Auth:         auth,
		SyncInterval: interval,
		NoPush:       !cfg.Git.Push,
		Locker:       v.Locker(),
		Changed:      feed.Publish,
		Logger:       logger,
	}
}

// welcomeNote is the first note of the default vault.
const welcomeNote = `# Welcome

This is the default vault of vaultmcp, created because no vault was configured.
Point vaultmcp at your own Obsidian vault with --vault, VAULTMCP_VAULT_PATH or vault.path in vaultmcp.yaml.

Every change made through the server is a git commit. Try linking notes: [[Ideas]].
`

// ensureDefaultVault creates the default local vault if it is missing,
// reporting whether it did.
func ensureDefaultVault(dir string) (bool, error) {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return false, fmt.Errorf("%s exists and is not a folder", dir)
		}
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	if err := os.WriteFile(filepath.Join(dir, "Welcome.md"), []byte(welcomeNote), 0o644); err != nil {
		return false, err
	}
	return true, nil
}
