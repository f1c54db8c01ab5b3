package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"vaultmcp/gitsync"
	"vaultmcp/internal/config"
	"vaultmcp/internal/idempotency"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/bases/indexsource"
	"vaultmcp/vault/changes"
	"vaultmcp/vault/guidance"
	"vaultmcp/vault/index"
	"vaultmcp/vault/rank"
	"vaultmcp/vault/watch"
)

// core is what every transport serves, built once per process: the vault,
// its live index, its ranked search, its git history and the watcher that
// follows edits made outside the server. A transport (stdio, HTTP) only attaches to it.
type core struct {
	vault  *vault.Vault
	index  *index.Index
	repo   *gitsync.Repo
	keys   *idempotency.Store
	watch  *watch.Watcher
	deps   tools.Deps
	logger *slog.Logger
	// start starts the background work (Begin); mu guards begun and
	// closed, so a Close racing a Begin never leaves work running.
	start func()
	// onBegin, when not nil, is called by the first Begin before start.
	onBegin       func()
	mu            sync.Mutex
	begun, closed bool
	// started is closed once the watcher is up and the index build
	// has started, or the start failed.
	started chan struct{}
	// failed is closed when the start failed, err saying why.
	failed chan struct{}
	err    error
}

// Failed is closed when the core cannot serve the vault after all: its git
// index, read after the first answers (gitsync.Options.LoadIndexLater),
// is unreadable. Err then says why; the server stops with it.
func (c *core) Failed() <-chan struct{} { return c.failed }

// Err is why the core failed, once Failed is closed.
func (c *core) Err() error { return c.err }

// Begin starts the work that scales with the vault, in the background:
// git sync (its first step commits the edits made outside the server
// while it was not running), the history cache warm-up, watching every
// folder, the index build and then the ranked search. Only the first
// call does anything. openCore leaves it to the transport, so that on 2
// cores none of it competes with answering initialize and tools/list;
// anything that reads the vault waits for Started, which follows Begin.
func (c *core) Begin() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.begun || c.closed {
		return
	}
	c.begun = true
	if c.onBegin != nil {
		c.onBegin()
	}
	c.start()
}

// Started is closed once the core watches the vault and builds its index
// (some time after Begin).
func (c *core) Started() <-chan struct{} { return c.started }

// openCore opens the configured vault (creating the local default vault
// when none is configured) and its git repository, recovering what a
// killed server left there; Begin starts the index build, git sync and
// the watcher, and Close stops them again. ctx is the core's own lifetime,
// longer than any transport's: requests still being answered after a
// signal need the index and git.
func openCore(ctx context.Context, cfg *config.Config, logger *slog.Logger) (c *core, err error) {
	dir := cfg.Vault.Path
	if dir == "" {
		dir = config.DefaultVaultDir()
		created, err := ensureDefaultVault(dir)
		if err != nil {
			return nil, fmt.Errorf("default vault: %w", err)
		}
		if created {
			logger.Info("no vault configured: created a local default vault", "path", dir)
		} else {
			logger.Info("no vault configured: using the local default vault", "path", dir)
		}
	}
	v, err := vault.Open(dir, cfg.VaultOptions())
	if err != nil {
		return nil, err
	}

	// One fan-out announces every change — our writes, pulls, outside
	// edits — to the index first, then the caches and subscriptions.
	feed := &changes.Feed{Logger: logger}
	v.Observe(feed.Publish)

	// The index builds in the background: initialize is answered at once,
	// and queries that need the index wait for it.
	ix := index.New(v, logger)
	ix.SetMaxNoteBytes(cfg.Limits.MaxNoteBytes)
	feed.Listen(ix.Changed)

	repo, err := gitsync.Open(ctx, gitOptions(cfg, v, feed, logger))
	if err != nil {
		return nil, fmt.Errorf("git: %w", err)
	}
	c = &core{vault: v, index: ix, repo: repo, logger: logger}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	v.SetRecorder(repo)
	// Watching every folder walks the whole vault (about 25 ms of CPU at
	// 10,000 notes), so the index build comes after it: a file the build
	// reads has been watched since before, so no outside edit falls
	// between the two.
	c.watch = watch.New(v, feed.PublishPaths, watch.Options{Logger: logger})
	c.started = make(chan struct{})
	c.failed = make(chan struct{})
	ranked := rank.New(ix, logger)
	// The search index's build gives way to a change under way (it
	// waits for the write lock between slices of notes), so a large
	// rename is not slowed by a build started just before it.
	ranked.SetYield(func() {
		l := v.Locker()
		l.Lock()
		//lint:ignore SA2001 a gate: wait for the change under way, hold nothing
		l.Unlock()
	})
	c.start = func() {
		go func() {
			defer close(c.started)
			// Open left the git index to now; an unreadable one stops
			// the server before any request is let through.
			if err := repo.CheckIndex(); err != nil {
				c.err = fmt.Errorf("git: %w", err)
				close(c.failed)
				return
			}
			repo.Start(ctx)
			if err := c.watch.Start(ctx); err != nil {
				logger.Error("cannot watch the vault for outside edits", "err", err)
			}
			// initialize may have read the root CLAUDE.md (the
			// instructions) before the watcher was up: announce it, so
			// no edit in between is missed by the cache that holds it.
			feed.PublishPaths([]string{guidance.FileName})
			ix.Start(ctx)
		}()
		// The ranked search builds once the index is ready.
		ranked.Start(ctx)
	}

	// Idempotency keys live beside the history they protect, so a retry
	// after a restart is still answered once.
	keys, err := idempotency.Open(filepath.Join(repo.GitDir(), "vaultmcp", "idempotency.jsonl"), nil)
	if err != nil {
		return nil, err
	}
	c.keys = keys
	// One Bases source for MCP and REST alike: it keeps the notes it
	// converted for the engine between queries.
	c.deps = tools.Deps{Vault: v, Index: ix, Ranked: ranked, Bases: indexsource.New(ix, v.Root(), nil), Git: repo, MaxReadBytes: cfg.Vault.MaxReadBytes, MaxResultBytes: cfg.Limits.MaxResultBytes, ServerVersion: version, Logger: logger, Changes: feed, Idempotency: keys}
	return c, nil
}

// Close stops the watcher and git sync; closing the repository pushes
// what is still unpushed (bounded in time), so it runs after the
// transport has finished its in-flight requests.
func (c *core) Close() error {
	var errs []error
	c.mu.Lock()
	begun := c.begun
	c.closed = true
	c.mu.Unlock()
	if begun {
		<-c.started // the watcher is not closed before it started
		errs = append(errs, c.watch.Close())
	} else if c.started != nil {
		close(c.started) // nothing to wait for: nothing was started
	}
	if c.repo != nil {
		errs = append(errs, c.repo.Close())
	}
	if c.vault != nil {
		errs = append(errs, c.vault.Close())
	}
	if c.keys != nil {
		errs = append(errs, c.keys.Close())
	}
	return errors.Join(errs...)
}

// gitOptions maps the configuration onto gitsync.
func gitOptions(cfg *config.Config, v *vault.Vault, feed *changes.Feed, logger *slog.Logger) gitsync.Options {
	interval := cfg.Git.SyncInterval
	if interval == 0 {
		interval = -1 // configured as "never"; gitsync reads 0 as its default
	}
	return gitsync.Options{
		Dir:          v.Root(),
		RemoteURL:    cfg.Git.Remote,
		Branch:       cfg.Git.Branch,
		AuthorName:   cfg.Git.AuthorName,
		AuthorEmail:  cfg.Git.AuthorEmail,
		Auth:         gitAuth(cfg),
		SyncInterval: interval,
		NoPush:       !cfg.Git.Push,
		NoFsync:      !cfg.Git.Fsync,

		NetworkTimeout:      cfg.Git.NetworkTimeout,
		MassDeletionFiles:   cfg.Git.MassDeletionFiles,
		MassDeletionPercent: cfg.Git.MassDeletionPercent,
		AllowMassDeletion:   cfg.Git.AllowMassDeletion,
		GCInterval:          gcInterval(cfg.Git.GCInterval),
		MaxFileBytes:        cfg.Limits.MaxNoteBytes,
		// Read by Begin, after the first answers (CheckIndex).
		LoadIndexLater: true,
		Locker:         v.Locker(),
		Changed:        feed.PublishPaths,
		Logger:         logger,
	}
}

// gitAuth is the credential for the remote: an SSH key file (else the SSH
// agent) and known_hosts for ssh, a token for https.
func gitAuth(cfg *config.Config) gitsync.Auth {
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
	return auth
}

// gcInterval maps git.gc_interval (0 = off) onto gitsync (negative = off).
func gcInterval(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
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
