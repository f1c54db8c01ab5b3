// Package testutil holds the helpers the module's tests share: the
// process's CPU time for benchmarks, the git CLI run apart from the
// machine's configuration, a git smart-HTTP server, the stale lock a
// killed server leaves, and waits on observable state. Only tests import
// it.
package testutil

import (
	"testing"
	"time"
)

// WaitTimeout is how long WaitFor waits before failing the test: long
// enough for a loaded machine, since it guards against a hang and never
// measures speed.
const WaitTimeout = 2 * time.Minute

// WaitFor polls cond until it holds and fails the test, naming what, if it
// does not within WaitTimeout. It polls often at first and then every
// 50 ms, so a condition that holds soon is seen soon and one that runs a
// command (a git call) is not run hundreds of times a second.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(WaitTimeout)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}
