// Package watch reports changes made to a vault from outside the server —
// Obsidian on the same disk, a sync tool, a person with an editor — as
// debounced batches of vault-relative paths. It uses fsnotify with a watch
// on every folder and falls back to polling when the system runs out of
// watches.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"vaultmcp/vault"
)

// Options tune a Watcher. The zero value is usable.
type Options struct {
	// Debounce is the quiet time before a batch is reported; editors save
	// in bursts (temp file, rename, chmod). 0 means 100 ms.
	Debounce time.Duration
	// MaxDelay bounds how long a steady stream of events can hold a batch
	// back. 0 means 1 s.
	MaxDelay time.Duration
	// PollInterval is the scan period in polling mode. 0 means 2 s.
	PollInterval time.Duration
	// ForcePolling skips fsnotify (for file systems without events, e.g.
	// network mounts).
	ForcePolling bool
	Logger       *slog.Logger
}

// Watcher watches one vault. Start it, and Close it when done.
type Watcher struct {
	v    *vault.Vault
	fn   func(paths []string)
	opts Options

	cancel context.CancelFunc
	done   sync.WaitGroup

	// read, when set, is told of each relevant event as it is read (tests
	// see that reading goes on while a batch waits to be delivered).
	read func(rel string)
}

// New returns a watcher that calls fn with each batch of changed paths
// (files or folders, existing or gone).
func New(v *vault.Vault, fn func(paths []string), opts Options) *Watcher {
	if opts.Debounce <= 0 {
		opts.Debounce = 100 * time.Millisecond
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = time.Second
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 2 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Watcher{v: v, fn: fn, opts: opts}
}

// Start begins watching in the background.
func (w *Watcher) Start(ctx context.Context) error {
	ctx, w.cancel = context.WithCancel(ctx)
	if w.opts.ForcePolling {
		w.startPolling(ctx)
		return nil
	}
	fw, rootInfo, err := w.watchTree()
	if err != nil {
		if errors.Is(err, errNoEvents) {
			w.opts.Logger.Warn("file events unavailable; polling the vault instead", "err", err)
			w.startPolling(ctx)
			return nil
		}
		return err
	}
	w.done.Add(1)
	go w.loop(ctx, fw, rootInfo)
	return nil
}

// errNoEvents wraps failures that polling works around: no inotify, or
// no watches left.
var errNoEvents = errors.New("file events unavailable")

// watchTree starts an fsnotify watcher on every folder of the vault and
// returns it with the root folder's identity, to tell when the root is
// replaced.
func (w *Watcher) watchTree() (*fsnotify.Watcher, fs.FileInfo, error) {
	root, err := w.v.Resolve("")
	if err != nil {
		return nil, nil, err
	}
	rootInfo, err := os.Stat(root.Abs)
	if err != nil {
		return nil, nil, err
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errNoEvents, err)
	}
	if err := w.addTree(fw, root.Abs, nil); err != nil {
		fw.Close()
		if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
			return nil, nil, fmt.Errorf("%w: out of file watches (raise fs.inotify.max_user_watches): %w", errNoEvents, err)
		}
		return nil, nil, err
	}
	return fw, rootInfo, nil
}

// Close stops watching and waits for the last batch to be delivered.
func (w *Watcher) Close() error {
	if w.cancel != nil {
		w.cancel()
	}
	w.done.Wait()
	return nil
}

// addTree watches dir and every folder below it that scans do not skip.
// found, if not nil, is given every path below dir: for a folder that
// was just created, what was put in it before its watch was added made
// no event of its own (a copied or checked-out folder arrives whole).
func (w *Watcher) addTree(fw *fsnotify.Watcher, dir string, found func(abs string)) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil
		}
		if p != dir && w.v.Skipped(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p != dir && found != nil {
			found(p)
		}
		if !d.IsDir() {
			return nil
		}
		return fw.Add(p)
	})
}

// deliver hands a batch to the callback. A panic there (a bug the changed
// file triggers in the index, say) is logged and survived: the watcher
// goes on with the next batch.
//
// The batch is handled with the vault's write lock held. The server's own
// changes make events too, and a large one (a rename relinking 1,800
// notes) is seen here while it is still being committed: waiting for it
// lets the index take the change in from the write first, under the same
// lock, so the watcher's report of those files finds their text already
// indexed and nothing is parsed twice (see index.Changed).
func (w *Watcher) deliver(paths []string) {
	lock := w.v.Locker()
	lock.Lock()
	defer lock.Unlock()
	defer func() {
		if p := recover(); p != nil {
			w.opts.Logger.Error("handling changed files panicked; the watcher goes on", "paths", len(paths), "panic", p, "stack", string(debug.Stack()))
		}
	}()
	w.fn(paths)
}

// loop watches until ctx ends. When the vault folder itself goes away
// (deleted, or moved and perhaps replaced), every path is reported gone
// (""), the folder is waited for, watched anew, and reported whole again.
func (w *Watcher) loop(ctx context.Context, fw *fsnotify.Watcher, rootInfo fs.FileInfo) {
	defer w.done.Done()
	defer func() {
		if p := recover(); p != nil {
			w.opts.Logger.Error("file watcher panicked; polling the vault instead", "panic", p, "stack", string(debug.Stack()))
			w.startPolling(ctx)
		}
	}()
	for {
		lost := w.watch(ctx, fw, rootInfo)
		fw.Close()
		if !lost {
			return
		}
		w.deliver([]string{""})
		if !w.waitForRoot(ctx) {
			return
		}
		var err error
		fw, rootInfo, err = w.watchTree()
		if err != nil {
			w.opts.Logger.Warn("cannot watch the vault folder again; polling it instead", "err", err)
			w.startPolling(ctx)
			return
		}
		w.opts.Logger.Info("the vault folder is back; watching it again")
		w.deliver([]string{""})
	}
}

// watch delivers batches of events until ctx ends (false) or the root
// folder is gone or replaced (true). Every batch delivered is handled
// before it returns.
//
// Events are read on while a batch is delivered: a delivery waits for the
// vault lock, and a large change of the server's own (a rename relinking
// 1,800 notes makes some 13,000 events) would otherwise fill the kernel's
// queue meanwhile, which then drops events and costs a walk of the whole
// vault. What arrives during a delivery is delivered after it, merged
// into one batch.
func (w *Watcher) watch(ctx context.Context, fw *fsnotify.Watcher, rootInfo fs.FileInfo) (lost bool) {
	b := newBatcher(w.opts.Debounce, w.opts.MaxDelay)
	out := newOutbox(w.deliver)
	defer out.close()
	root := w.v.Root()
	for {
		select {
		case <-ctx.Done():
			out.post(b.flush())
			return false
		case ev, ok := <-fw.Events:
			if !ok {
				return false
			}
			if ev.Name == root {
				if w.rootGone(rootInfo) {
					w.opts.Logger.Warn("the vault folder was deleted, moved or replaced; waiting for it", "event", ev.Op.String())
					return true
				}
				continue
			}
			rel, ok := w.relevant(root, ev.Name)
			if !ok {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
					found := func(abs string) {
						if rel, ok := w.relevant(root, abs); ok {
							b.add(rel)
						}
					}
					if err := w.addTree(fw, ev.Name, found); err != nil {
						w.opts.Logger.Warn("cannot watch new folder", "path", rel, "err", err)
					}
				}
			}
			b.add(rel)
			if w.read != nil {
				w.read(rel)
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return false
			}
			w.opts.Logger.Warn("file watch error", "err", err)
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// The kernel dropped events: look at the whole vault
				// again rather than miss an edit.
				b.add("")
			}
			if w.rootGone(rootInfo) {
				return true
			}
		case <-b.timer():
			out.post(b.flush())
		}
	}
}

// outbox delivers batches on a goroutine of its own, one at a time, so
// that the events go on being read while a delivery waits. Batches posted
// while one is being delivered are merged and delivered next. close
// delivers what is left and waits for it.
type outbox struct {
	deliver func(paths []string)
	mu      sync.Mutex
	waiting map[string]struct{} // posted, not yet taken for a delivery
	wake    chan struct{}       // holds one token while waiting is not empty
	closed  chan struct{}
	done    chan struct{}
}

func newOutbox(deliver func(paths []string)) *outbox {
	o := &outbox{
		deliver: deliver,
		waiting: map[string]struct{}{},
		wake:    make(chan struct{}, 1),
		closed:  make(chan struct{}),
		done:    make(chan struct{}),
	}
	go o.run()
	return o
}

// post queues paths for delivery; it never waits for one.
func (o *outbox) post(paths []string) {
	if len(paths) == 0 {
		return
	}
	o.mu.Lock()
	for _, p := range paths {
		o.waiting[p] = struct{}{}
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default: // a token is already there
	}
}

// take returns the paths waiting, and none are left waiting.
func (o *outbox) take() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return drain(o.waiting)
}

func (o *outbox) run() {
	defer close(o.done)
	for {
		select {
		case <-o.wake:
			if paths := o.take(); len(paths) > 0 {
				o.deliver(paths)
			}
		case <-o.closed:
			if paths := o.take(); len(paths) > 0 {
				o.deliver(paths)
			}
			return
		}
	}
}

// close delivers the paths still waiting and returns when every delivery
// is over.
func (o *outbox) close() {
	close(o.closed)
	<-o.done
}

// rootGone reports whether the vault folder is missing or is no longer
// the folder that was watched.
func (w *Watcher) rootGone(was fs.FileInfo) bool {
	fi, err := os.Stat(w.v.Root())
	return err != nil || !fi.IsDir() || !os.SameFile(fi, was)
}

// waitForRoot polls until the vault folder exists again (true) or ctx
// ends (false).
func (w *Watcher) waitForRoot(ctx context.Context) bool {
	t := time.NewTicker(w.opts.PollInterval)
	defer t.Stop()
	for {
		if fi, err := os.Stat(w.v.Root()); err == nil && fi.IsDir() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
}

// relevant maps an event's absolute path into the vault, dropping our own
// temporary files and anything in hidden or skipped folders.
func (w *Watcher) relevant(root, abs string) (string, bool) {
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == "." || rel == ".." || len(rel) > 2 && rel[:3] == "../" {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	for p := rel; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		if w.v.Skipped(path.Base(p)) {
			return "", false
		}
	}
	return rel, true
}

// batcher coalesces paths until events pause for debounce, or maxDelay
// after the first one.
type batcher struct {
	debounce, maxDelay time.Duration
	paths              map[string]struct{}
	first, last        time.Time
	t                  *time.Timer
}

func newBatcher(debounce, maxDelay time.Duration) *batcher {
	return &batcher{debounce: debounce, maxDelay: maxDelay, paths: map[string]struct{}{}}
}

func (b *batcher) add(rel string) {
	now := time.Now()
	if len(b.paths) == 0 {
		b.first = now
	}
	b.last = now
	b.paths[rel] = struct{}{}
	wait := b.debounce
	if deadline := b.first.Add(b.maxDelay); now.Add(wait).After(deadline) {
		wait = max(deadline.Sub(now), 0)
	}
	if b.t == nil {
		b.t = time.NewTimer(wait)
	} else {
		b.t.Reset(wait)
	}
}

func (b *batcher) timer() <-chan time.Time {
	if b.t == nil || len(b.paths) == 0 {
		return nil
	}
	return b.t.C
}

func (b *batcher) flush() []string {
	return drain(b.paths)
}

// drain returns the paths in set (nil when none) and empties it.
func drain(set map[string]struct{}) []string {
	if len(set) == 0 {
		return nil
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	clear(set)
	return out
}
