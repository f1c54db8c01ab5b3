//go:build !unix

package gitsync

import (
	"errors"
	"os"
)

// errNoFlock says flock(2) is not available: owner files are then judged
// by their pid alone.
var errNoFlock = errors.New("flock not supported")

func flock(*os.File) error    { return errNoFlock }
func tryFlock(*os.File) error { return errNoFlock }

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
