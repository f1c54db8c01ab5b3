package main

import (
	"math"
	"runtime/debug"
	"sync"
)

// holdGC turns the garbage collector off until the returned resume is
// called, which the core does when it begins (core.Begin: the client has
// its first answers, or a request needs the vault). Until then the heap
// is a few megabytes; a collection in that window, on two cores, takes
// one of them for its mark phase while initialize is being answered
// (held, the server spent about a tenth less CPU until initialize was
// answered, on a loaded 2-core machine: docs/performance.md, Start-up). The memory limit (GOMEMLIMIT,
// limits.memory_bytes) still bounds the heap meanwhile. resume restores
// the collector's setting (GOGC) once; later calls do nothing.
func holdGC() (resume func()) {
	percent := debug.SetGCPercent(-1)
	return sync.OnceFunc(func() { debug.SetGCPercent(percent) })
}

// resumeUnlessBounded calls resume at once when no memory limit is in
// effect (limits.memory_bytes 0 and no GOMEMLIMIT): nothing would then
// bound the heap while the collector is held, and the work before the
// core begins may be large (the first start clones and checks out the
// whole vault). It reports whether it resumed.
func resumeUnlessBounded(resume func()) bool {
	if resume == nil || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return false
	}
	resume()
	return true
}
