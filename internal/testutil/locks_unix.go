//go:build unix

package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The server marks a lock file it takes as its own with a hard link of an
// owner file, vaultmcp-<pid>-<n>.lock-owner in the .git folder, which it
// holds flock'ed while it lives. These helpers write and read that mark.

// DeadPID returns the id of a process that has exited.
func DeadPID(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// LeaveStaleLock leaves lock (an F.lock in or below gitDir) the way a
// vaultmcp killed mid-commit leaves it: a hard link of an owner file,
// holding content, whose process is gone.
func LeaveStaleLock(t testing.TB, gitDir, lock, content string) {
	t.Helper()
	owner := filepath.Join(gitDir, "vaultmcp-"+strconv.Itoa(DeadPID(t))+"-1.lock-owner")
	if err := os.WriteFile(owner, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(owner, lock); err != nil {
		t.Fatal(err)
	}
}

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
