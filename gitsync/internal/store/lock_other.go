//go:build !unix

package store

import (
	"errors"
	"os"
)

// ErrNoFlock says flock(2) is not available: owner files are then judged
// by their pid alone.
var ErrNoFlock = errors.New("flock not supported")

func Flock(*os.File) error    { return ErrNoFlock }
func tryFlock(*os.File) error { return ErrNoFlock }

// ProcessAlive reports whether a process with this pid exists.
func ProcessAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
