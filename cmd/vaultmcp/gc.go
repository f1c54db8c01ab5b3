package main

import (
	"runtime/debug"
	"sync"
)

// holdGC turns the garbage collector off until the returned resume is
// called, which the core does when it begins (core.Begin: the client has
// its first answers, or a request needs the vault). Until then the heap
// is a few megabytes; a collection in that window, on two cores, takes
// one of them for its mark phase while initialize is being answered
// (without it the server spent about a tenth less CPU until initialize
// was answered, on a loaded machine). The memory limit (GOMEMLIMIT,
// limits.memory_bytes) still bounds the heap meanwhile. resume restores
// the collector's setting (GOGC) once; later calls do nothing.
func holdGC() (resume func()) {
	percent := debug.SetGCPercent(-1)
	return sync.OnceFunc(func() { debug.SetGCPercent(percent) })
}
