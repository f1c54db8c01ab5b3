// Package changes is the vocabulary of a change to the vault, and the one
// announcement of changed vault paths.
//
// A change of the server's own is made durable in two phases (see
// Pending): the vault hands its recorder (gitsync) a Change, the recorder
// prepares the commit and returns holding its locks, the vault puts its
// last written file into place, and the recorder publishes the commit or
// aborts it. Neither side calls back into the other.
//
// The Feed announces every change as a Batch. Three sources publish to it
// — the server's own writes (the vault's observer, with the bytes it
// wrote), pulls (gitsync) and edits made outside the server (the watcher)
// — and everything that keeps derived state listens to it: the index, the
// CLAUDE.md and instructions caches, resource subscriptions.
//
// # Lock order
//
// A change of the server's own takes these locks, outermost first; none is
// taken while holding one below it:
//
//  1. the idempotency key's lock (internal/idempotency), around a whole
//     tool call that carries a key;
//  2. the vault's write lock (vault.Vault's Update; gitsync's sync loop
//     takes it through its Options.Locker to commit outside edits and to
//     integrate a pull);
//  3. gitsync's repository lock, from Prepare until Publish or Abort
//     (and around the sync's own commits);
//  4. .git/index.lock, then the branch's <ref>.lock, taken by Prepare and
//     released by Publish or Abort (the index lock stays held until the
//     deferred index write);
//  5. the feed's delivery (Feed.Publish), after Publish, still under the
//     vault's write lock;
//  6. the index's refresh lock, then its map lock (vault/index).
//
// gitsync's history has its own storage and lock and takes none of these;
// a commit hands it the new commit under a small lock of its own.
// Listeners of the feed run under the vault's write lock (our writes) or
// with it held by the sync loop (pulls), and take neither it nor gitsync's
// locks.
//
// # Lifecycle
//
//	feed := new(changes.Feed)
//	v.Observe(feed.Publish)            // our writes, under the write lock
//	feed.Listen(ix.Changed)            // the index first: read-your-writes
//	feed.Bracket(tracker.before)       // compare state around the listeners
//	... gitsync.Options{Changed: feed.PublishPaths}, watch.New(v, feed.PublishPaths, ...)
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
	listeners []func(Batch)
	brackets  []func(Batch) (after func())
}

// Listen adds fn, which is called with every batch.
func (f *Feed) Listen(fn func(Batch)) {
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
func (f *Feed) Bracket(fn func(Batch) (after func())) {
	if f == nil || fn == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.brackets = append(f.brackets, fn)
}

// PublishPaths announces that paths changed, for a source that did not
// write them itself (a pull, the watcher): Publish(Batch{Paths: paths}).
func (f *Feed) PublishPaths(paths []string) { f.Publish(Batch{Paths: paths}) }

// Publish announces the batch b. A batch without paths is dropped. The
// paths slice is not retained; listeners get their own copy, which they
// must not modify either. Written is passed on as it is, for the length
// of the call: listeners must neither modify nor keep it.
func (f *Feed) Publish(b Batch) {
	if f == nil || len(b.Paths) == 0 {
		return
	}
	b.Paths = slices.Clone(b.Paths)
	f.mu.RLock()
	listeners, brackets := f.listeners, f.brackets
	f.mu.RUnlock()

	f.deliver.Lock()
	defer f.deliver.Unlock()
	afters := make([]func(), 0, len(brackets))
	for _, br := range brackets {
		f.guard(func() {
			if after := br(b); after != nil {
				afters = append(afters, after)
			}
		})
	}
	for _, fn := range listeners {
		f.guard(func() { fn(b) })
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
