//go:build !unix

package gitsync

import "time"

// processCPU is 0 where getrusage is missing.
func processCPU() time.Duration { return 0 }
