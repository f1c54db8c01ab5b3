package gitsync

import "time"

// testHooks change a Repo's behaviour for this package's tests and
// benchmarks. Outside them a Repo has none (Repo.testHooks holds nil),
// and every method here answers for nil as if no hook were set.
type testHooks struct {
	// flushFault fails flush with its error (nil lets the flush run): a
	// disk fault at a chosen step.
	flushFault func(paths []string) error
	// writeIndexEach writes the index with each commit, as before
	// indexwrite.go, for the benchmarks to compare.
	writeIndexEach bool
	// indexDelay holds the index write back at least that long, so a
	// test can look at the state in between.
	indexDelay time.Duration
}

// flushErr is the error flushFault gives paths; nil lets the flush run.
func (h *testHooks) flushErr(paths []string) error {
	if h == nil || h.flushFault == nil {
		return nil
	}
	return h.flushFault(paths)
}

// indexEachCommit reports whether each commit writes the index itself.
func (h *testHooks) indexEachCommit() bool { return h != nil && h.writeIndexEach }

// minIndexWait is the least time an index write waits.
func (h *testHooks) minIndexWait() time.Duration {
	if h == nil {
		return 0
	}
	return h.indexDelay
}
