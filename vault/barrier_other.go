//go:build !linux

package vault

import "io/fs"

// fsBarrier is Linux's syncfs barrier (barrier_linux.go); elsewhere there
// is none and each file of a batch is flushed on its own.
type fsBarrier struct{}

func openBarrier(string) *fsBarrier          { return nil }
func (b *fsBarrier) covers(fs.FileInfo) bool { return false }
func (b *fsBarrier) sync() error             { return nil }
func (b *fsBarrier) close()                  {}
