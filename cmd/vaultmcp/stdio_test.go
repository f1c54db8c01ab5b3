package main

import (
	"slices"
	"testing"
	"time"
)

// TestDeferredBegin checks which delays deferredBegin asks timers for: the
// earliest deadline wins, a later one changes nothing, and nothing is
// scheduled once stopped. The clock and the timers are fakes, so nothing
// here depends on the machine's speed.
func TestDeferredBegin(t *testing.T) {
	const ms = time.Millisecond
	type ask struct {
		at, within time.Duration // at: time since the start; within: the delay asked
		stop       bool          // stop instead of asking
	}
	tests := []struct {
		name string
		asks []ask
		want []time.Duration // the delays timers were started with
		live int             // timers left running (not stopped)
	}{
		{"nothing asked", nil, nil, 0},
		{"initialize only", []ask{{within: 100 * ms}}, []time.Duration{100 * ms}, 1},
		{"initialize then tools/list: the sooner wins",
			[]ask{{within: 100 * ms}, {at: 3 * ms, within: 10 * ms}},
			[]time.Duration{100 * ms, 10 * ms}, 1},
		{"tools/list then initialize: the later changes nothing",
			[]ask{{within: 10 * ms}, {at: 1 * ms, within: 100 * ms}},
			[]time.Duration{10 * ms}, 1},
		{"tools/list asked close to the first deadline: that deadline stays",
			[]ask{{within: 100 * ms}, {at: 95 * ms, within: 10 * ms}},
			[]time.Duration{100 * ms}, 1},
		{"a second initialize does not postpone",
			[]ask{{within: 100 * ms}, {at: 50 * ms, within: 100 * ms}},
			[]time.Duration{100 * ms}, 1},
		{"stopped: the pending timer is stopped, later asks ignored",
			[]ask{{within: 100 * ms}, {stop: true}, {at: 5 * ms, within: 10 * ms}},
			[]time.Duration{100 * ms}, 0},
		{"stopped before anything", []ask{{stop: true}, {within: 10 * ms}}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			now := start
			var delays []time.Duration
			var timers []*time.Timer
			b := &deferredBegin{
				begin: func() { t.Error("begin called: the fake timers never fire") },
				now:   func() time.Time { return now },
				afterFunc: func(d time.Duration, f func()) *time.Timer {
					delays = append(delays, d)
					// A real timer that cannot fire during the test, so
					// that Stop reports whether it was still pending.
					tm := time.AfterFunc(time.Hour, f)
					timers = append(timers, tm)
					return tm
				},
			}
			for _, a := range tt.asks {
				now = start.Add(a.at)
				if a.stop {
					b.stop()
					continue
				}
				b.within(a.within)
			}
			if !slices.Equal(delays, tt.want) {
				t.Errorf("timers started with %v, want %v", delays, tt.want)
			}
			live := 0
			for _, tm := range timers {
				if tm.Stop() {
					live++
				}
			}
			if live != tt.live {
				t.Errorf("%d timers left pending, want %d", live, tt.live)
			}
		})
	}
}
