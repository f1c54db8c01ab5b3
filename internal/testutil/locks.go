package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
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
