//go:build unix

package testutil

import (
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// WaitIndexWritten waits until no running server holds dir's
// .git/index.lock: a server keeps its commits' index in memory under the
// lock and writes it once its commits pause, and a git command run before
// would see the index without them. A lock whose owner is free (a killed
// server's, removed at its next start) or that has no owner (a git
// command's) is left to the command to meet.
func WaitIndexWritten(dir string) {
	gitDir := filepath.Join(dir, ".git")
	deadline := time.Now().Add(WaitTimeout)
	for time.Now().Before(deadline) && serverHoldsIndex(gitDir) {
		time.Sleep(5 * time.Millisecond)
	}
}

func serverHoldsIndex(gitDir string) bool {
	lock, err := os.Lstat(filepath.Join(gitDir, "index.lock"))
	if err != nil {
		return false
	}
	owners, _ := filepath.Glob(filepath.Join(gitDir, "vaultmcp-*.lock-owner"))
	for _, o := range owners {
		f, err := os.Open(o)
		if err != nil {
			continue
		}
		fi, err := f.Stat()
		held := err == nil && os.SameFile(fi, lock) &&
			syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB) != nil
		f.Close()
		if held {
			return true
		}
	}
	return false
}
