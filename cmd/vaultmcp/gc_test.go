package main

import (
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
