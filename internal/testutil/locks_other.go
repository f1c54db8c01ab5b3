//go:build !unix

package testutil

import (
	"os"
	"path/filepath"
	"time"
)

// WaitIndexWritten waits until dir's .git/index.lock is no server's: a
// server keeps its commits' index in memory under the lock and writes it
// once its commits pause. Without flock an owner's life cannot be seen,
// so any lock that is a hard link of an owner file is waited on.
func WaitIndexWritten(dir string) {
	gitDir := filepath.Join(dir, ".git")
	deadline := time.Now().Add(WaitTimeout)
	for time.Now().Before(deadline) && ownedLock(gitDir) {
		time.Sleep(5 * time.Millisecond)
	}
}

func ownedLock(gitDir string) bool {
	lock, err := os.Lstat(filepath.Join(gitDir, "index.lock"))
	if err != nil {
		return false
	}
	owners, _ := filepath.Glob(filepath.Join(gitDir, "vaultmcp-*.lock-owner"))
	for _, o := range owners {
		if fi, err := os.Lstat(o); err == nil && os.SameFile(fi, lock) {
			return true
		}
	}
	return false
}
