package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// holdGC turns collection off until resume, which restores the setting
// it found, once.
func TestHoldGC(t *testing.T) {
	before := debug.SetGCPercent(73)
	defer debug.SetGCPercent(before)
	resume := holdGC()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("GC percent while held = %d, want -1 (off)", got)
	}
	resume()
	if got := debug.SetGCPercent(73); got != 73 {
		t.Errorf("GC percent after resume = %d, want 73", got)
	}
	debug.SetGCPercent(55)
	resume() // a second call changes nothing
	if got := debug.SetGCPercent(73); got != 55 {
		t.Errorf("a second resume set the GC percent to %d, want it left at 55", got)
	}
}

// With no memory limit in effect the collector is not held: nothing else
// would bound the heap.
func TestResumeUnlessBounded(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	for _, tc := range []struct {
		limit int64
		want  bool
	}{
		{math.MaxInt64, true},
		{100 << 20, false},
	} {
		debug.SetMemoryLimit(tc.limit)
		called := false
		if got := resumeUnlessBounded(func() { called = true }); got != tc.want || called != tc.want {
			t.Errorf("limit %d: resumed %v (called %v), want %v", tc.limit, got, called, tc.want)
		}
	}
	if resumeUnlessBounded(nil) {
		t.Error("a nil resume reported as called")
	}
}
