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
		want           int64
	}{
		{100 * mib, 10 * mib, 4 * mib, 100 * mib},    // far below: the budget holds
		{100 * mib, 66 * mib, 27 * mib, 100 * mib},   // 1.5 × 66 = 99, 1.1 × 66 + 27 = 99.6: still the budget
		{100 * mib, 80 * mib, 12 * mib, 120 * mib},   // near the limit: 1.5 × the live heap
		{100 * mib, 80 * mib, 42 * mib, 130 * mib},   // much overhead: a tenth of the live heap above both
		{100 * mib, 500 * mib, 120 * mib, 750 * mib}, // a 100,000-note index
		{1, 1 << 62, 1 << 62, math.MaxInt64},         // no overflow
	} {
		if got := Effective(tc.configured, tc.live, tc.overhead); got != tc.want {
			t.Errorf("Effective(%d, %d, %d) = %d, want %d", tc.configured, tc.live, tc.overhead, got, tc.want)
		}
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
