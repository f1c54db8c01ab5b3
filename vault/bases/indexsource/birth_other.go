//go:build !linux

package indexsource

import (
	"io/fs"
	"time"
)

// birthTime is the file's modification time where this build cannot ask
// the file system for a birth time.
func birthTime(abs string, fi fs.FileInfo) time.Time { return fi.ModTime() }
