//go:build !linux

package syncfs

import (
	"errors"
	"os"
)

// Usable reports whether one Sync of f's file system flushes every file
// written to it; there is no syncfs here, so never.
func Usable(*os.File) bool { return false }

// Sync is not available here; Usable says so first.
func Sync(*os.File) error { return errors.New("syncfs: not available on this system") }
