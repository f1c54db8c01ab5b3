//go:build !linux

package gitsync

import "os/exec"

// startBackground starts cmd; lowering its priority is done on Linux
// only (see priority_linux.go).
func startBackground(cmd *exec.Cmd) error {
	cmd.WaitDelay = backgroundWaitDelay
	return cmd.Start()
}
