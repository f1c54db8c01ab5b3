// Package changes is the one announcement of changed vault paths. Three
// sources publish to it — the server's own writes (the vault's observer),
// pulls (gitsync) and edits made outside the server (the watcher) — and
// everything that keeps derived state listens to it: the index, the
// CLAUDE.md and instructions caches, resource subscriptions.
//
// # Lifecycle
//
//	feed := new(changes.Feed)
//	v.Observe(feed.Publish)            // our writes, under the write lock
//	feed.Listen(ix.Refresh)            // the index first: read-your-writes
//	feed.Bracket(tracker.before)       // compare state around the listeners
//	... gitsync.Options{Changed: feed.Publish}, watch.New(v, feed.Publish, ...)
//
// Register listeners before the first Publish; a Feed has nothing to start
// or stop.
//
// # Ordering and concurrency
//
// Publish is synchronous and serialised: one batch is delivered to every
// listener before the next batch starts, so a listener never sees two
// batches at once and the index has taken a change in before any later
// listener looks at it. Listeners run in the order they were added.
// Brackets wrap them: each bracket's before-half runs before the first
// listener and its after-half after the last. A write publishes with the
// vault's write lock held, so a listener must be quick, must not publish,
// and must not take the vault's write lock.
package changes

import (
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
)

// Feed fans each batch of changed paths out to its listeners. The zero
// value is ready to use; a nil *Feed ignores everything.
type Feed struct {
	// Logger receives listeners' panics; nil means slog.Default().
	Logger *slog.Logger

	// deliver serialises Publish, so listeners see one batch at a time.
	deliver sync.Mutex

	mu        sync.RWMutex // guards the registrations
	listeners []func(paths []string)
	brackets  []func(paths []string) (after func())
}

// Listen adds fn, which is called with every batch of vault-relative,
// '/'-separated paths (files or folders, existing or gone).
func (f *Feed) Listen(fn func(paths []string)) {
	if f == nil || fn == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listeners = append(f.listeners, fn)
}

// Bracket adds fn, which is called with every batch before any listener
// runs; the function it returns (nil for none) is called after all of
// them. A listener that must compare the index before and after a change
// (which notes appeared or vanished) uses it.
func (f *Feed) Bracket(fn func(paths []string) (after func())) {
	if f == nil || fn == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.brackets = append(f.brackets, fn)
}

// Publish announces that paths changed. Empty batches are dropped. The
// slice is not retained; listeners get their own copy, which they must not
// modify either.
func (f *Feed) Publish(paths []string) {
	if f == nil || len(paths) == 0 {
		return
	}
	paths = slices.Clone(paths)
	f.mu.RLock()
	listeners, brackets := f.listeners, f.brackets
	f.mu.RUnlock()

	f.deliver.Lock()
	defer f.deliver.Unlock()
	afters := make([]func(), 0, len(brackets))
	for _, b := range brackets {
		f.guard(func() {
			if after := b(paths); after != nil {
				afters = append(afters, after)
			}
		})
	}
	for _, fn := range listeners {
		f.guard(func() { fn(paths) })
	}
	// Innermost last in, first out, as deferred calls would be.
	for i := len(afters) - 1; i >= 0; i-- {
		f.guard(afters[i])
	}
}

// guard runs one listener, turning a panic into a log line: a broken cache
// must neither keep the index from taking the change in nor take down the
// write that published it.
func (f *Feed) guard(fn func()) {
	defer func() {
		if p := recover(); p != nil {
			logger := f.Logger
			if logger == nil {
				logger = slog.Default()
			}
			logger.Error("change listener panicked", "panic", p, "stack", string(debug.Stack()))
		}
	}()
	fn()
}
