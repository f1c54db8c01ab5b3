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
// follows the live heap, re-checked after every collection: it is the
// largest of the configured limit, Headroom times the live heap, and
// MinHeadroom times the live heap plus what the runtime holds beside the
// heap's objects and free pages (free slots in part-used spans, metadata,
// stacks), which the limit counts too. The configured limit still bounds
// memory while the live heap is well below it; above that the collector
// runs at most once per tenth of the live heap allocated, typically once
// per quarter, never on every allocation.
//
// While a live heap already larger than the configured limit is growing
// (most of what was allocated since the last collection survived it, as
// while a large vault's index is built), the limit leaves the heap room to
// double, as the collector's own pacing (GOGC=100) would: a collection
// then frees little, so collecting sooner does not lower the peak, it only
// repeats the marking of a heap that has grown by a quarter each time: at
// 100,000 notes the build collected 17 to 19 times instead of 12 to 14,
// with twice the collector's CPU time. The price is memory: the heap may
// reach twice its live part once more, in the cycle after it stops
// growing, before the next collection brings the limit back to Headroom
// times the live heap.
package memlimit

import (
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Headroom is the room the effective limit leaves above the live heap,
// counted in all the memory the limit counts: with 1.5, a heap whose
// overhead is the usual quarter of its live part is collected once per
// quarter of the live heap allocated (GOGC's default paces it at once per
// live heap).
const Headroom = 1.5

// MinHeadroom is the least room left above the live heap in the heap
// itself, whatever the overhead: the collector runs at most once per
// tenth of the live heap allocated. Neither is more generous than it must
// be: a 10,000-note vault, whose live heap comes within a few megabytes
// of both while its search index builds, keeps the default limit and with
// it its 120 MB resident-memory budget.
const MinHeadroom = 1.1

// GrowingHeadroom is the room left above a live heap that is larger than
// the configured limit and growing: the room the collector's own pacing
// (GOGC=100) gives it, plus the runtime's overhead, so that the limit
// does not make the collector run sooner than it would without one.
const GrowingHeadroom = 2

// growing reports whether a heap is growing: at least half of the
// allocated bytes allocated since the previous collection survived this
// one, live bytes against prevLive before it.
func growing(live, prevLive, allocated uint64) bool {
	return allocated > 0 && live > prevLive && (live-prevLive)*2 >= allocated
}

// The metrics read after each collection: the heap that survived it, and
// what the limit counts (all the runtime's memory but what it returned to
// the system) beside the heap's objects and its free pages (which the
// runtime returns to the system when it nears the limit).
var metricNames = []string{
	"/gc/heap/live:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/free:bytes",
	"/gc/heap/allocs:bytes",
}

// Governor keeps the runtime's soft memory limit at the larger of the
// configured limit and Headroom times the live heap. The zero value does
// nothing; use Start.
type Governor struct {
	configured int64
	log        *slog.Logger

	mu      sync.Mutex
	limit   int64 // the limit last set; 0 for none
	logged  int64 // the limit last logged
	stopped bool
	sample  []metrics.Sample
	// What the previous collection left live, and the bytes allocated
	// until then (cumulative), to tell a growing heap (see growing).
	prevLive, prevAllocs uint64
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
	g.sample = make([]metrics.Sample, len(metricNames))
	for i, name := range metricNames {
		g.sample[i].Name = name
	}
	g.limit, g.logged = configured, configured
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
	var v [6]uint64
	for i, s := range g.sample {
		if s.Value.Kind() != metrics.KindUint64 {
			g.stopped = true // not this runtime: leave the configured limit
			return false
		}
		v[i] = s.Value.Uint64()
	}
	live, total, released, objects, free, allocs := v[0], v[1], v[2], v[3], v[4], v[5]
	var overhead uint64
	if total > released+objects+free {
		overhead = total - released - objects - free
	}
	grew := allocs > g.prevAllocs && growing(live, g.prevLive, allocs-g.prevAllocs)
	g.prevLive, g.prevAllocs = live, allocs
	want := Effective(g.configured, live, overhead, grew)
	// Small changes are not worth a call into the runtime, nor a log
	// line; a return to the configured limit always is.
	if diff := want - g.limit; want == g.limit || want != g.configured && max(diff, -diff) < g.limit/16 {
		return true
	}
	debug.SetMemoryLimit(want)
	g.limit = want
	// A log line when the limit leaves or comes back to the configured
	// one, or has moved by half since the last line: not one per
	// collection while an index builds.
	if d := want - g.logged; want == g.configured || g.logged == g.configured || max(d, -d) >= g.logged/2 {
		g.logged = want
		g.log.Info("soft memory limit follows the live heap", "limit_bytes", want, "live_heap_bytes", live,
			"overhead_bytes", overhead, "configured_bytes", g.configured)
	}
	return true
}

// Effective is the soft limit for a live heap of live bytes, with
// overhead bytes of runtime memory beside the heap's objects and free
// pages, under a configured limit: the largest of the configured one,
// Headroom times the live heap, and MinHeadroom times the live heap plus
// the overhead. When the heap is growing (see growing) and its live part
// alone is larger than the configured limit, which then no longer bounds
// memory, it is at least GrowingHeadroom times the live heap plus the
// overhead. Below the configured limit a growing heap changes nothing:
// the limit keeps bounding memory there.
func Effective(configured int64, live, overhead uint64, growing bool) int64 {
	need := max(float64(live)*Headroom, float64(live)*MinHeadroom+float64(overhead))
	if growing && configured > 0 && live > uint64(configured) {
		need = max(need, float64(live)*GrowingHeadroom+float64(overhead))
	}
	if need >= math.MaxInt64 {
		return math.MaxInt64
	}
	return max(configured, int64(need))
}
