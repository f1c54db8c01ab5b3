//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// CPUTime is the user and system time the process has used so far, all
// threads and the collector included. On a loaded machine it says more
// about a benchmark than the wall time, which measures the neighbours too.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
