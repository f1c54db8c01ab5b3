//go:build !linux

package gitsync

// fsBarrier is Linux's syncfs barrier (barrier_linux.go); elsewhere there
// is none and each file and folder of a commit is flushed on its own.
type fsBarrier struct{}

func openBarrier(string) *fsBarrier                     { return nil }
func (b *fsBarrier) covers(string) (covered, gone bool) { return false, false }
func (b *fsBarrier) sync() error                        { return nil }
func (b *fsBarrier) close()                             {}
