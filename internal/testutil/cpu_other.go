//go:build !unix

package testutil

import "time"

// CPUTime is 0 here: benchmarks report no CPU time where getrusage is
// missing.
func CPUTime() time.Duration { return 0 }
