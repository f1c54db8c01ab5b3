//go:build !linux

package gitsync

// fsBarrier is Linux's syncfs barrier (barrier_linux.go); elsewhere there
// is none, and every path of a commit is flushed on its own.
type fsBarrier struct{}

func openBarrier(string) *fsBarrier { return nil }

func (*fsBarrier) covers(string) bool { return false }

func (*fsBarrier) sync() error { return nil }

func (*fsBarrier) close() {}
