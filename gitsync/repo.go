package gitsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"vaultmcp/gitsync/history"
	"vaultmcp/gitsync/internal/store"
)

// Repo is a vault's git repository. Create it with Open, start the
// background sync with Start, and stop it with Close. All methods are safe
// for concurrent use.
type Repo struct {
	opts      Options
	dir       string // absolute worktree root
	gitDir    string // absolute .git folder
	log       *slog.Logger
	branch    plumbing.ReferenceName // refs/heads/<branch>
	remoteURL string                 // effective remote; "" = local only
	auth      transport.AuthMethod
	authURL   string // the URL auth was made for
	// testHooks holds nil outside tests (see type testHooks). Atomic: a
	// test sets it while the index timer may read it.
	testHooks atomic.Pointer[testHooks]

	// mu guards the main go-git storage and everything derived from it.
	mu    sync.Mutex
	st    *filesystem.Storage
	obj   *store.Objects
	index *store.IndexFile
	// tip is the last commit this Repo made and its tree, under mu: the
	// next commit on top of it takes its base tree from here instead of
	// reading the commit back (a commit's tree never changes, so a tip
	// that is no longer the head is simply not used).
	tip struct{ commit, tree plumbing.Hash }

	// netMu guards the network storage: fetch and push use their own go-git
	// storage on the same .git folder, so they run without holding mu.
	netMu sync.Mutex
	netSt *filesystem.Storage
	net   *gogit.Repository
	// packs counts the packs our commits wrote (see
	// store.ObjectsOptions.Packed); netPacks is the count the network
	// storage last saw, under netMu.
	packs    atomic.Uint64
	netPacks uint64

	statMu sync.Mutex
	state  syncState

	pushWake chan struct{} // cap 1: a commit is waiting to be pushed
	syncWake chan struct{} // cap 1: pull now
	stop     chan struct{}
	done     chan struct{}
	started  bool
	closed   bool
	lifeMu   sync.Mutex

	clonedTip plumbing.Hash  // the head of a clone Open made, checked out by Open
	gcRuns    sync.WaitGroup // a background gc

	// hist reviews the history, with its own storage and lock.
	hist *history.History
	// onCommit is handed each commit this Repo makes, with its changes
	// against its parent, just after the branch moved to it; r.mu is
	// held. Open sets it to the history's hand-off, so that following
	// the branch reads neither our commits nor their trees back.
	onCommit func(hash plumbing.Hash, c *object.Commit, changes []store.FileDiff)

	// mark is this process's unflushed-index mark, open and flocked
	// once it left an unflushed index (indexmark.go); under mu.
	mark *os.File
	// indexTimerArmed says the index write is scheduled; under mu.
	indexTimerArmed bool
}

// Object cache sizes of the two go-git storages; go-git's default (96 MB
// each) would blow the server's memory budget.
const (
	mainCacheSize = 16 * cache.MiByte
	netCacheSize  = 8 * cache.MiByte
)

// Open opens the vault's repository at opts.Dir. A folder that is not a
// repository is initialised (branch opts.Branch, "main" by default); a
// missing or empty folder is cloned from opts.RemoteURL when one is set.
// Open does no network traffic otherwise: the first pull happens in Start.
func Open(ctx context.Context, opts Options) (*Repo, error) {
	o, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	// Checked before anything uses it: an empty folder is cloned from
	// it, and a typo would otherwise reach .git/config, or show the
	// token it holds in the clone's error.
	if o.RemoteURL != "" {
		if err := usableRemoteURL(o.RemoteURL); err != nil {
			return nil, fmt.Errorf("gitsync: git.remote cannot be used: %w", err)
		}
	}
	r := &Repo{
		opts:     o,
		dir:      o.Dir,
		log:      o.Logger.With("component", "gitsync"),
		pushWake: make(chan struct{}, 1),
		syncWake: make(chan struct{}, 1),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	if err := r.openOrCreate(ctx); err != nil {
		return nil, err
	}
	r.recoverLocks()
	r.obj = store.NewObjects(r.st, r.gitDir, store.ObjectsOptions{Packed: func() { r.packs.Add(1) }})
	r.index = &store.IndexFile{Path: filepath.Join(r.gitDir, "index")}
	r.hist = history.New(r.gitDir, historySource{r}, r.log)
	r.onCommit = r.hist.HandCommit
	r.netSt = filesystem.NewStorageWithOptions(store.NewPlainFS(r.gitDir), cache.NewObjectLRU(netCacheSize), filesystem.Options{})
	r.net, err = gogit.Open(r.netSt, nil)
	if err != nil {
		return nil, fmt.Errorf("gitsync: open repository: %w", err)
	}
	if _, err := os.Stat(filepath.Join(r.gitDir, "commondir")); err == nil {
		return nil, errors.New("gitsync: the vault is a linked git worktree (git worktree add); use a regular clone")
	}
	if !o.LoadIndexLater {
		if err := r.CheckIndex(); err != nil {
			return nil, err
		}
	}
	if err := r.setupBranch(); err != nil {
		return nil, err
	}
	if err := r.setupRemote(); err != nil {
		return nil, err
	}
	r.state.conflicts = r.loadConflicts()
	if !r.clonedTip.IsZero() {
		// Check the clone's files out now, through the same check and
		// checkout as every pull, so the vault is there when serving
		// starts. A refused tree leaves an empty vault and says why.
		err := r.withLocks(func() error {
			_, _, err := r.integrateLocked(r.clonedTip)
			return err
		})
		if err != nil {
			r.state.lastPullErr = r.scrub(err).Error()
			r.log.Error("pull refused", "err", r.scrub(err))
		}
	}
	r.refreshCounts()
	return r, nil
}

// CheckIndex reads .git/index unless it is read already and unchanged,
// returning why it cannot be used; an index a power loss tore while a
// vaultmcp process had left it unflushed is rebuilt from HEAD instead
// (see indexmark.go). Open calls it unless Options.LoadIndexLater.
func (r *Repo) CheckIndex() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.index.Load(); err != nil {
		if err := r.repairIndex(err); err != nil {
			return err
		}
	} else if err := r.rebuildLeftIndex(); err != nil {
		return err
	}
	r.settleIndexMarks()
	return nil
}

// openOrCreate opens, clones or initialises the repository and sets r.st.
func (r *Repo) openOrCreate(ctx context.Context) error {
	fi, err := os.Stat(r.dir)
	switch {
	case err == nil && !fi.IsDir():
		return fmt.Errorf("gitsync: vault %s is not a folder", r.dir)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("gitsync: vault folder: %w", err)
	}
	if gitDir, ok := findGitDir(r.dir); ok {
		r.gitDir = gitDir
		r.st = newStorage(gitDir, mainCacheSize)
		if _, err := gogit.Open(r.st, osfs.New(r.dir)); err != nil {
			return fmt.Errorf("gitsync: open repository in %s: %w", r.dir, err)
		}
		return nil
	}
	empty := true
	if err == nil {
		entries, err := os.ReadDir(r.dir)
		if err != nil {
			return fmt.Errorf("gitsync: vault folder: %w", err)
		}
		empty = len(entries) == 0
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return fmt.Errorf("gitsync: create vault folder: %w", err)
	}
	r.gitDir = filepath.Join(r.dir, gogit.GitDirName)
	if r.opts.RemoteURL != "" && empty {
		return r.clone(ctx)
	}
	return r.initRepo()
}

// findGitDir returns the repository folder of the worktree dir: dir/.git,
// or the folder a .git file points to (linked worktrees, submodules).
func findGitDir(dir string) (string, bool) {
	p := filepath.Join(dir, gogit.GitDirName)
	fi, err := os.Stat(p)
	if err != nil {
		return "", false
	}
	if fi.IsDir() {
		return p, true
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	line, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return "", false
	}
	target := strings.TrimSpace(line)
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return target, true
}

func newStorage(gitDir string, cacheSize cache.FileSize) *filesystem.Storage {
	return filesystem.NewStorageWithOptions(store.NewPlainFS(gitDir), cache.NewObjectLRU(cacheSize), filesystem.Options{})
}

// initRepo runs the equivalent of `git init`: on the configured branch,
// else git's init.defaultBranch setting, else DefaultBranch.
func (r *Repo) initRepo() error {
	branch := r.opts.Branch
	if branch == "" {
		branch = initDefaultBranch()
	}
	r.st = newStorage(r.gitDir, mainCacheSize)
	_, err := gogit.InitWithOptions(r.st, osfs.New(r.dir), gogit.InitOptions{
		DefaultBranch: plumbing.NewBranchReferenceName(branch),
	})
	if err != nil {
		return fmt.Errorf("gitsync: git init %s: %w", r.dir, err)
	}
	r.opts.Branch = branch
	r.log.Info("initialised a git repository in the vault", "branch", branch)
	return nil
}

// clone clones the remote into the empty vault folder. An empty remote, or
// one without the configured branch, gives a new local repository with the
// remote configured; the first push creates the branch there.
func (r *Repo) clone(ctx context.Context) error {
	auth, err := r.opts.Auth.method(r.opts.RemoteURL)
	if err != nil {
		return fmt.Errorf("gitsync: remote auth: %w", err)
	}
	r.auth, r.authURL = auth, r.opts.RemoteURL
	r.st = newStorage(r.gitDir, mainCacheSize)
	co := &gogit.CloneOptions{
		URL:          r.opts.RemoteURL,
		Auth:         auth,
		RemoteName:   r.opts.RemoteName,
		SingleBranch: true,
		Tags:         gogit.NoTags,
	}
	if r.opts.Branch != "" {
		co.ReferenceName = plumbing.NewBranchReferenceName(r.opts.Branch)
	}
	// No checkout by go-git: the first sync checks the tree (verifyTree)
	// and writes it like any pull.
	co.NoCheckout = true
	cctx, cancel := context.WithTimeout(ctx, 5*r.opts.NetworkTimeout)
	defer cancel()
	_, err = gogit.CloneContext(cctx, r.st, osfs.New(r.dir), co)
	if err == nil {
		r.log.Info("cloned the vault's history; the first sync checks its files out", "remote", redactURL(r.opts.RemoteURL))
		return r.unbornAfterClone()
	}
	var noRef gogit.NoMatchingRefSpecError
	empty := errors.Is(err, transport.ErrEmptyRemoteRepository) || errors.Is(err, plumbing.ErrReferenceNotFound) || errors.As(err, &noRef)
	if !empty && !unreachable(err) {
		// Refused credentials, a host key that does not match, a broken
		// remote: the configuration needs fixing.
		os.RemoveAll(r.gitDir)
		return fmt.Errorf("gitsync: clone %s: %w", redactURL(r.opts.RemoteURL), r.scrub(err))
	}
	if err := os.RemoveAll(r.gitDir); err != nil {
		return fmt.Errorf("gitsync: clean up failed clone: %w", err)
	}
	if empty {
		r.log.Info("the remote has no commits on the branch yet: starting a new history", "remote", redactURL(r.opts.RemoteURL))
	} else {
		// The server starts anyway; the first sync that reaches the remote
		// brings its history in.
		r.log.Warn("could not clone the remote; starting with an empty repository, the next sync that reaches the remote pulls its history",
			"remote", redactURL(r.opts.RemoteURL), "err", r.scrub(err))
	}
	if err := r.initRepo(); err != nil {
		return err
	}
	return nil
}

// unbornAfterClone turns a clone made without checkout into an empty
// worktree on an unborn branch, with the clone's head kept as the
// remote-tracking branch: the first sync then fast-forwards to it through
// verifyTree and checkout, like any pull.
func (r *Repo) unbornAfterClone() error {
	head, err := r.st.Reference(plumbing.HEAD)
	if err != nil {
		return fmt.Errorf("gitsync: read HEAD after clone: %w", err)
	}
	branch := head.Target()
	if head.Type() != plumbing.SymbolicReference {
		return errors.New("gitsync: the clone has a detached HEAD")
	}
	tip, err := r.st.Reference(branch)
	if err != nil {
		return fmt.Errorf("gitsync: read %s after clone: %w", branch, err)
	}
	if err := r.st.RemoveReference(branch); err != nil {
		return fmt.Errorf("gitsync: prepare clone: %w", err)
	}
	os.Remove(filepath.Join(r.gitDir, "index"))
	remoteName := r.opts.RemoteName
	track := plumbing.NewRemoteReferenceName(remoteName, branch.Short())
	if err := r.st.SetReference(plumbing.NewHashReference(track, tip.Hash())); err != nil {
		return fmt.Errorf("gitsync: prepare clone: %w", err)
	}
	r.opts.Branch = branch.Short()
	r.clonedTip = tip.Hash()
	return nil
}

// initDefaultBranch is git's init.defaultBranch setting (asked of the git
// CLI when installed, which honours every config file and GIT_CONFIG_*
// variable; else read from the global and system config files), or
// DefaultBranch.
func initDefaultBranch() string {
	if gitBin, err := exec.LookPath("git"); err == nil {
		out, err := exec.Command(gitBin, "config", "--get", "init.defaultBranch").Output()
		if b := strings.TrimSpace(string(out)); err == nil && b != "" && plumbing.NewBranchReferenceName(b).Validate() == nil {
			return b
		}
		return DefaultBranch
	}
	for _, scope := range []config.Scope{config.GlobalScope, config.SystemScope} {
		if c, err := config.LoadConfig(scope); err == nil && c.Init.DefaultBranch != "" {
			return c.Init.DefaultBranch
		}
	}
	return DefaultBranch
}

// setupBranch settles which branch the server commits to: the configured
// one, which HEAD must point at (an unborn HEAD is moved to it).
func (r *Repo) setupBranch() error {
	head, err := r.st.Reference(plumbing.HEAD)
	if err != nil {
		return fmt.Errorf("gitsync: read HEAD: %w", err)
	}
	if head.Type() != plumbing.SymbolicReference {
		return errors.New("gitsync: the vault repository has a detached HEAD; check out a branch")
	}
	current := head.Target()
	if r.opts.Branch == "" {
		r.branch = current
		r.opts.Branch = current.Short()
		return nil
	}
	want := plumbing.NewBranchReferenceName(r.opts.Branch)
	r.branch = want
	if current == want {
		return nil
	}
	if _, err := r.st.Reference(current); err == nil {
		return fmt.Errorf("gitsync: the vault repository is on branch %q, not the configured %q (check out %q, or set git.branch to %q, or leave it empty to serve the branch checked out)",
			current.Short(), r.opts.Branch, r.opts.Branch, current.Short())
	}
	// HEAD is unborn: point it at the configured branch.
	if err := r.st.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, want)); err != nil {
		return fmt.Errorf("gitsync: set HEAD: %w", err)
	}
	return nil
}

// setupRemote makes sure the configured remote exists in .git/config, or
// adopts the one the repository already has.
func (r *Repo) setupRemote() error {
	cfg, err := r.st.Config()
	if err != nil {
		return fmt.Errorf("gitsync: read git config: %w", err)
	}
	name := r.opts.RemoteName
	rc, exists := cfg.Remotes[name]
	dirty := false
	switch {
	case r.opts.RemoteURL == "" && !exists:
		return nil
	case r.opts.RemoteURL == "":
		if len(rc.URLs) == 0 {
			return nil
		}
		r.remoteURL = resolveLocalURL(rc.URLs[0], r.dir)
		// Said, not refused: the repository's own remote may be served by
		// a git remote helper go-git does not have (keybase://, s3://),
		// and the vault is still served locally, each failed push shown
		// in the status as before.
		if err := usableRemoteURL(r.remoteURL); err != nil {
			r.log.Warn("the repository's remote cannot be used, so the vault will not sync until it is fixed (git remote set-url "+name+" URL)", "remote", name, "err", err)
		}
	case exists && len(rc.URLs) > 0 && rc.URLs[0] != r.opts.RemoteURL:
		return fmt.Errorf("gitsync: the repository's remote %q is %s, the configured remote is %s (set git.remote to the same URL, or leave it empty to use the repository's own)",
			name, redactURL(rc.URLs[0]), redactURL(r.opts.RemoteURL))
	default:
		// Open has checked it: a typo never reaches .git/config.
		r.remoteURL = r.opts.RemoteURL
		if !exists {
			cfg.Remotes[name] = &config.RemoteConfig{
				Name:  name,
				URLs:  []string{r.opts.RemoteURL},
				Fetch: []config.RefSpec{config.RefSpec("+refs/heads/*:refs/remotes/" + name + "/*")},
			}
			dirty = true
		}
	}
	branch := r.opts.Branch
	if _, ok := cfg.Branches[branch]; !ok {
		// Upstream tracking, so `git status` on the command line shows
		// ahead/behind like ours.
		cfg.Branches[branch] = &config.Branch{Name: branch, Remote: name, Merge: r.branch}
		dirty = true
	}
	if dirty {
		// Written only when something changed, and atomically: a crash
		// while rewriting .git/config in place would lose the remote.
		data, err := cfg.Marshal()
		if err == nil {
			err = r.writeFileAtomic(filepath.Join(r.gitDir, "config"), data)
		}
		if err != nil {
			return fmt.Errorf("gitsync: write git config: %w", err)
		}
	}
	if r.authURL != r.remoteURL || r.auth == nil {
		r.auth, err = r.opts.Auth.method(r.remoteURL)
		if err != nil {
			return fmt.Errorf("gitsync: remote auth: %w", err)
		}
	}
	return nil
}

// trackingRef is the remote-tracking ref of our branch.
func (r *Repo) trackingRef() plumbing.ReferenceName {
	return plumbing.NewRemoteReferenceName(r.opts.RemoteName, r.opts.Branch)
}

// Dir returns the worktree root.
func (r *Repo) Dir() string { return r.dir }

// GitDir returns the repository's absolute .git folder, where the
// server may keep state that belongs to the history (never committed).
func (r *Repo) GitDir() string { return r.gitDir }

// Branch returns the branch the server commits to.
func (r *Repo) Branch() string { return r.opts.Branch }

// scrub removes the server's absolute vault path from an error's text, since
// sync errors are shown to clients.
func (r *Repo) scrub(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if !strings.Contains(msg, r.dir) {
		return err
	}
	return errors.New(strings.ReplaceAll(msg, r.dir, "<vault>"))
}

// Start runs the background sync: a pull right away and every SyncInterval,
// and a push after commits (coalesced, retried with backoff). It returns at
// once; Close stops it. ctx bounds the loop's lifetime too.
func (r *Repo) Start(ctx context.Context) {
	r.lifeMu.Lock()
	defer r.lifeMu.Unlock()
	if r.started || r.closed {
		return
	}
	r.started = true
	go r.loop(ctx)
}

// Close stops the background sync and makes a last push attempt so that
// commits made just before shutdown reach the remote; it returns within
// about twice closePushTimeout whatever the network does. Do not call it
// with the vault lock held: a running sync may be waiting for that lock.
func (r *Repo) Close() error {
	r.lifeMu.Lock()
	if r.closed {
		r.lifeMu.Unlock()
		return nil
	}
	r.closed = true
	started := r.started
	r.lifeMu.Unlock()
	close(r.stop)
	deadline := time.NewTimer(closePushTimeout)
	defer deadline.Stop()
	if started {
		// The loop's fetch, push or gc is cancelled at once; only a sync
		// waiting for the vault lock (a write in flight) takes longer.
		select {
		case <-r.done:
		case <-deadline.C:
			r.log.Warn("the sync loop did not stop in time; closing without it")
			return nil
		}
	}
	if r.remoteURL != "" && !r.opts.NoPush && r.Status().Ahead > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), closePushTimeout)
		defer cancel()
		if err := r.Push(ctx); err != nil {
			r.log.Warn("final push failed; the commits stay local", "err", err)
		}
	}
	r.dropIndexMark()
	return r.hist.Close()
}

// closePushTimeout bounds the final push in Close.
const closePushTimeout = 10 * time.Second

// unreachable reports whether a network error means the remote could not
// be reached at all (no route, refused connection, name not resolved, no
// answer in time, a local path not there): the server starts anyway and
// tries again later. Anything else (credentials, host keys) is not
// retried blindly.
func unreachable(err error) bool {
	var opErr *net.OpError
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case errors.As(err, &opErr), errors.As(err, &dnsErr), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, transport.ErrRepositoryNotFound), errors.Is(err, os.ErrNotExist):
		return true
	case errors.As(err, &netErr) && netErr.Timeout():
		return true
	}
	return false
}
