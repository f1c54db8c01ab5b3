// Package watch reports changes made to a vault from outside the server —
// Obsidian on the same disk, a sync tool, a person with an editor — as
// debounced batches of vault-relative paths. It uses fsnotify with a watch
// on every folder and falls back to polling when the system runs out of
// watches.
package watch

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
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
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		w.opts.Logger.Warn("file events unavailable; polling the vault instead", "err", err)
		w.startPolling(ctx)
		return nil
	}
	root, err := w.v.Resolve("")
	if err != nil {
		fw.Close()
		return err
	}
	if err := w.addTree(fw, root.Abs); err != nil {
		fw.Close()
		if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
			w.opts.Logger.Warn("out of file watches (raise fs.inotify.max_user_watches); polling the vault instead", "err", err)
			w.startPolling(ctx)
			return nil
		}
		return err
	}
	w.done.Add(1)
	go w.loop(ctx, fw)
	return nil
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
func (w *Watcher) addTree(fw *fsnotify.Watcher, dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && w.v.Skipped(d.Name()) {
			return fs.SkipDir
		}
		return fw.Add(p)
	})
}

func (w *Watcher) loop(ctx context.Context, fw *fsnotify.Watcher) {
	defer w.done.Done()
	defer fw.Close()
	b := newBatcher(w.opts.Debounce, w.opts.MaxDelay)
	root := w.v.Root()
	for {
		select {
		case <-ctx.Done():
			if paths := b.flush(); len(paths) > 0 {
				w.fn(paths)
			}
			return
		case ev, ok := <-fw.Events:
			if !ok {
				return
			}
			rel, ok := w.relevant(root, ev.Name)
			if !ok {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
					if err := w.addTree(fw, ev.Name); err != nil {
						w.opts.Logger.Warn("cannot watch new folder", "path", rel, "err", err)
					}
				}
			}
			b.add(rel)
		case err, ok := <-fw.Errors:
			if !ok {
				return
			}
			w.opts.Logger.Warn("file watch error", "err", err)
		case <-b.timer():
			if paths := b.flush(); len(paths) > 0 {
				w.fn(paths)
			}
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
	if len(b.paths) == 0 {
		return nil
	}
	out := make([]string, 0, len(b.paths))
	for p := range b.paths {
		out = append(out, p)
	}
	clear(b.paths)
	return out
}
