//go:build unix

package testutil

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLeaveStaleLock(t *testing.T) {
	gitDir := filepath.Join(t.TempDir(), ".git")
	lock := filepath.Join(gitDir, "refs", "heads", "main.lock")
	if err := os.MkdirAll(gitDir, 0o755); err != nil {
		t.Fatal(err)
	}
	LeaveStaleLock(t, gitDir, lock, "partial")
	owners, err := filepath.Glob(filepath.Join(gitDir, "vaultmcp-*-1.lock-owner"))
	if err != nil || len(owners) != 1 {
		t.Fatalf("owner files %v (%v), want one", owners, err)
	}
	lfi, err := os.Stat(lock)
	if err != nil {
		t.Fatal(err)
	}
	ofi, err := os.Stat(owners[0])
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(lfi, ofi) {
		t.Error("the lock is not a hard link of its owner file")
	}
	if data, _ := os.ReadFile(lock); string(data) != "partial" {
		t.Errorf("lock holds %q", data)
	}
	// Its owner is dead, so no server holds the index: the wait returns.
	LeaveStaleLock(t, gitDir, filepath.Join(gitDir, "index.lock"), "")
	done := make(chan struct{})
	go func() { WaitIndexWritten(filepath.Dir(gitDir)); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("WaitIndexWritten waited on a dead server's lock")
	}
}
