package gitsync

import (
	"errors"
	"testing"
	"time"
)

// A Repo without test hooks (every Repo outside tests) flushes, defers
// its index write and waits as the constants say; each hook changes only
// its own step.
func TestTestHooks(t *testing.T) {
	t.Parallel()
	fault := errors.New("injected")
	tests := []struct {
		name      string
		hooks     *testHooks
		flushErr  error
		indexEach bool
		minWait   time.Duration
	}{
		{"none", nil, nil, false, 0},
		{"empty", &testHooks{}, nil, false, 0},
		{"flush fault", &testHooks{flushFault: func([]string) error { return fault }}, fault, false, 0},
		{"index each commit", &testHooks{writeIndexEach: true}, nil, true, 0},
		{"index delay", &testHooks{indexDelay: time.Hour}, nil, false, time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.hooks.flushErr([]string{"x"}); err != tt.flushErr {
				t.Errorf("flushErr = %v, want %v", err, tt.flushErr)
			}
			if got := tt.hooks.indexEachCommit(); got != tt.indexEach {
				t.Errorf("indexEachCommit = %v, want %v", got, tt.indexEach)
			}
			if got := tt.hooks.minIndexWait(); got != tt.minWait {
				t.Errorf("minIndexWait = %v, want %v", got, tt.minWait)
			}
		})
	}
	var r Repo
	if got := r.indexWait(indexIdle); got != indexIdle {
		t.Errorf("a Repo without hooks waits %v for its index, want %v", got, indexIdle)
	}
}
