package search

import (
	"errors"
	"log/slog"
	"runtime/debug"
	"sync"
)

// errInternal is what a search that recovered from a panic returns: its
// results would be incomplete.
var errInternal = errors.New("internal error while searching; the server logged the details")

// guard recovers panics in a search's worker goroutines, so a bug that one
// file triggers ends that search with an error instead of the server. Use
// `defer g.catch()` at the top of the work to protect.
type guard struct {
	log *slog.Logger
	mu  sync.Mutex
	err error
}

func (e *Engine) newGuard() *guard { return &guard{log: e.log} }

// catch recovers a panic, logs it with its stack and remembers it.
func (g *guard) catch() {
	p := recover()
	if p == nil {
		return
	}
	g.log.Error("search worker panicked; the search fails, the server goes on", "panic", p, "stack", string(debug.Stack()))
	g.mu.Lock()
	g.err = errInternal
	g.mu.Unlock()
}

// failed returns errInternal if a panic was caught.
func (g *guard) failed() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}
