//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// ErrNoFlock says the file system does not support flock(2).
var ErrNoFlock = errors.New("flock not supported")

// Flock takes an exclusive flock on f, held until f is closed.
func Flock(f *os.File) error {
	return flockErr(syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
}

// tryFlock takes an exclusive flock on f if nobody holds one.
func tryFlock(f *os.File) error { return Flock(f) }

func flockErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EINVAL):
		return ErrNoFlock
	}
	return err
}

// ProcessAlive reports whether a process with this pid exists.
func ProcessAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
