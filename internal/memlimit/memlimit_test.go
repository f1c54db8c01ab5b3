package memlimit

import (
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestEffective(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		configured     int64
		live, overhead uint64
		growing        bool
		want           int64
	}{
		{100 * mib, 10 * mib, 4 * mib, false, 100 * mib},    // far below: the budget holds
		{100 * mib, 66 * mib, 27 * mib, false, 100 * mib},   // 1.5 × 66 = 99, 1.1 × 66 + 27 = 99.6: still the budget
		{100 * mib, 80 * mib, 12 * mib, false, 120 * mib},   // near the limit: 1.5 × the live heap
		{100 * mib, 80 * mib, 42 * mib, false, 130 * mib},   // much overhead: a tenth of the live heap above both
		{100 * mib, 500 * mib, 120 * mib, false, 750 * mib}, // a 100,000-note index
		{1, 1 << 62, 1 << 62, false, math.MaxInt64},         // no overflow
		// Growing, but below the configured limit: the limit still
		// bounds memory (a 10,000-note vault's search index being built).
		{100 * mib, 64 * mib, 10 * mib, true, 100 * mib},
		{100 * mib, 80 * mib, 12 * mib, true, 120 * mib},
		// Growing past it: room to double, as without a limit.
		{100 * mib, 300 * mib, 40 * mib, true, 640 * mib},
		{100 * mib, 300 * mib, 40 * mib, false, 450 * mib},
		{0, 300 * mib, 40 * mib, true, 450 * mib}, // no configured limit to be past (Start sets none then)
		{1, 1 << 62, 1 << 62, true, math.MaxInt64},
	} {
		if got := Effective(tc.configured, tc.live, tc.overhead, tc.growing); got != tc.want {
			t.Errorf("Effective(%d, %d, %d, %v) = %d, want %d", tc.configured, tc.live, tc.overhead, tc.growing, got, tc.want)
		}
	}
}

func TestGrowing(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		live, prevLive, allocated uint64
		want                      bool
	}{
		{395 * mib, 308 * mib, 118 * mib, true},  // an index being built: three quarters survived
		{308 * mib, 241 * mib, 134 * mib, true},  // exactly half survived
		{308 * mib, 241 * mib, 135 * mib, false}, // less than half
		{420 * mib, 421 * mib, 300 * mib, false}, // a server answering calls: all garbage
		{420 * mib, 420 * mib, 0, false},         // nothing allocated (a forced collection)
		{10 * mib, 0, 12 * mib, true},            // the first collection of a process filling its heap
	} {
		if got := growing(tc.live, tc.prevLive, tc.allocated); got != tc.want {
			t.Errorf("growing(%d, %d, %d) = %v, want %v", tc.live, tc.prevLive, tc.allocated, got, tc.want)
		}
	}
}

// TestGovernorLetsGrowingHeapDouble grows a live heap past the configured
// limit, collection after collection, and waits for the governor to leave
// it room to double; then lets it go and waits for the configured limit
// to come back.
func TestGovernorLetsGrowingHeapDouble(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const configured = 8 << 20
	g := Start(configured, "", slog.New(slog.DiscardHandler))
	defer g.Stop()
	// Judged from 24 MiB held up, against what was held one step before
	// (the governor hears of a collection after it, maybe after the
	// check): there the other rules give at most 1.5 times the live
	// heap, or a tenth above it plus the runtime's few megabytes of
	// overhead, both short of twice that.
	const step, judged, most = 2 << 20, 24 << 20, 80 << 20
	doubled := false
	for heldBytes := step; heldBytes <= most && !doubled; heldBytes += step {
		held = append(held, make([]byte, step))
		runtime.GC()
		runtime.Gosched()
		doubled = heldBytes >= judged && g.Limit() >= GrowingHeadroom*int64(heldBytes-step)
	}
	if !doubled {
		t.Errorf("limit %d with %d MiB held and growing, want at least twice that", g.Limit(), most>>20)
	}
	held = nil
	for g.Limit() != configured { // the test's deadline bounds the wait
		runtime.GC()
		runtime.Gosched()
	}
}

var held [][]byte

// TestGovernorFollowsLiveHeap holds a live heap above the configured
// limit and waits, collection after collection, for the governor to raise
// the limit above it; then lets it go and waits for the configured limit
// to come back.
func TestGovernorFollowsLiveHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const configured = 8 << 20
	g := Start(configured, "", slog.New(slog.DiscardHandler))
	defer g.Stop()
	if got := g.Limit(); got != configured {
		t.Fatalf("Limit() = %d at start, want %d", got, configured)
	}
	for range 16 {
		held = append(held, make([]byte, 1<<20))
	}
	for g.Limit() <= 16<<20 { // the test's deadline bounds the wait
		runtime.GC()
		runtime.Gosched()
	}
	if got := debug.SetMemoryLimit(-1); got != g.Limit() {
		t.Errorf("runtime limit %d, governor says %d", got, g.Limit())
	}
	held = nil
	for g.Limit() != configured {
		runtime.GC()
		runtime.Gosched()
	}
}

func TestStartOff(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	for _, g := range []*Governor{Start(0, "", nil), Start(100<<20, "200MiB", nil)} {
		if g.Limit() != 0 {
			t.Errorf("Limit() = %d, want 0 (off)", g.Limit())
		}
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("runtime limit changed to %d", got)
	}
}
