// Package memlimit applies the server's soft memory limit
// (limits.memory_bytes) without letting it turn into continuous garbage
// collection.
//
// A soft limit makes the collector run whenever the heap reaches it. That
// is what keeps a 10,000-note vault under its resident-memory budget, but
// when the live heap itself (what survives a collection: mostly the index)
// comes near the limit, every few megabytes allocated start a full
// collection: a 100,000-note vault took five times as long to index, and
// every tool call paid for a collection. So the limit the runtime is given
// follows the live heap: it is the configured limit, or Headroom times the
// live heap when that is more, re-checked after every collection. The
// configured limit still bounds memory while the live heap is well below
// it; above that the collector runs as GOGC paces it, not on every
// allocation.
package memlimit

import (
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Headroom is how much room the effective limit leaves above the live
// heap: with a limit of 1.5 times the live heap, the collector runs at
// most once per half a live heap allocated.
const Headroom = 1.5

// liveMetric is the heap that survived the last collection.
const liveMetric = "/gc/heap/live:bytes"

// Governor keeps the runtime's soft memory limit at the larger of the
// configured limit and Headroom times the live heap. The zero value does
// nothing; use Start.
type Governor struct {
	configured int64
	log        *slog.Logger

	mu      sync.Mutex
	limit   int64 // the limit last set; 0 for none
	stopped bool
	sample  []metrics.Sample
}

// Start sets the soft memory limit to configured bytes and keeps it above
// the live heap from then on (see the package doc). It does nothing, and
// returns a Governor that does nothing, when configured is 0 (no limit)
// or when the GOMEMLIMIT environment variable is set (the runtime already
// applied it, and an explicit setting wins): pass gomemlimit as
// os.Getenv("GOMEMLIMIT").
func Start(configured int64, gomemlimit string, log *slog.Logger) *Governor {
	g := &Governor{configured: configured, log: log}
	if configured <= 0 || gomemlimit != "" {
		g.stopped = true
		return g
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	g.sample = []metrics.Sample{{Name: liveMetric}}
	g.limit = configured
	debug.SetMemoryLimit(configured)
	g.arm()
	return g
}

// Limit returns the soft limit the governor last set; 0 when it sets none.
func (g *Governor) Limit() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.limit
}

// Stop ends the adjustments; the limit last set stays.
func (g *Governor) Stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped = true
}

// sentinel is garbage by design: its cleanup runs after the collection
// that finds it unreachable, which is how the governor hears of every
// collection without polling.
type sentinel struct{ _ [16]byte }

func (g *Governor) arm() {
	runtime.AddCleanup(&sentinel{}, func(g *Governor) {
		if g.adjust() {
			g.arm()
		}
	}, g)
}

// adjust sets the limit for the live heap the last collection measured,
// and reports whether to go on.
func (g *Governor) adjust() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return false
	}
	metrics.Read(g.sample)
	if g.sample[0].Value.Kind() != metrics.KindUint64 {
		g.stopped = true // not this runtime: leave the configured limit
		return false
	}
	live := g.sample[0].Value.Uint64()
	want := Effective(g.configured, live)
	// Small changes are not worth a call into the runtime, nor a log
	// line; a return to the configured limit always is.
	if diff := want - g.limit; want == g.limit || want != g.configured && max(diff, -diff) < g.limit/16 {
		return true
	}
	debug.SetMemoryLimit(want)
	if want > g.configured || g.limit > g.configured {
		g.log.Info("soft memory limit follows the live heap", "limit_bytes", want, "live_heap_bytes", live, "configured_bytes", g.configured)
	}
	g.limit = want
	return true
}

// Effective is the soft limit for a live heap of live bytes under a
// configured limit: the configured one, or Headroom times the live heap
// when that is more.
func Effective(configured int64, live uint64) int64 {
	need := float64(live) * Headroom
	if need >= math.MaxInt64 {
		return math.MaxInt64
	}
	return max(configured, int64(need))
}
