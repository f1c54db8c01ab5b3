package gitsync

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"vaultmcp/internal/testutil"
)

// TestBackgroundCommandStopsWithItsChildren: a background command whose
// children hold its output (git gc's repack) is stopped whole when its
// context ends, so Wait, and the server's Close behind it, does not wait
// for the children to finish on their own.
func TestBackgroundCommandStopsWithItsChildren(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	ctx, cancel := context.WithCancel(context.Background())
	started := filepath.Join(t.TempDir(), "started")
	cmd := exec.CommandContext(ctx, "sh", "-c", `sleep 120 & touch "$0"; sleep 120`, started)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := startBackground(cmd); err != nil {
		t.Fatal(err)
	}
	// Stopped once the child holding the output runs.
	testutil.WaitFor(t, "the command to start its child", func() bool {
		_, err := os.Stat(started)
		return err == nil
	})
	cancel()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("Wait still waits for the children of a stopped background command")
	}
}
