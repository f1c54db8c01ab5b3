//go:build linux

package gitsync

import (
	"os/exec"
	"syscall"
)

// Background work at a lower priority. `git gc` packs with every core
// and reads and writes the whole object store; on a small machine it
// delayed the writes it ran beside by several milliseconds each. So it
// runs niced and at the lowest best-effort I/O priority, set on the
// process as soon as it started: the children that do the work (`git
// repack`, `git pack-objects`) are forked after git has read its
// configuration and counted the objects, and inherit both. (Lowering
// the forking thread's priority instead would have to end that thread,
// and the Go runtime cannot end the main thread: the whole process would
// look niced.)

// backgroundNice is how much nicer than the server background commands
// run (CPU weight about a tenth of the server's).
const backgroundNice = 10

// ioprio_set(2) values: the best-effort class at its lowest level.
const (
	ioprioWhoProcess = 1
	ioprioClassBE    = 2
	ioprioClassShift = 13
	ioprioLowest     = 7
)

// startBackground starts cmd at a lower CPU and I/O priority than the
// server's.
//
// The command and the children it forks form a process group, which is
// killed whole when the context of a cmd made with exec.CommandContext
// ends: killing git alone leaves `git repack` holding the output pipe,
// and Wait (so Close) waiting for it, niced, on a busy machine, past
// Close's deadline.
func startBackground(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cmd.Cancel != nil {
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	}
	cmd.WaitDelay = backgroundWaitDelay
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	// getpriority(2) returns 20 - nice.
	if prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0); err == nil {
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, min(20-prio+backgroundNice, 19))
	}
	_, _, _ = syscall.Syscall(syscall.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(pid), ioprioClassBE<<ioprioClassShift|ioprioLowest)
	return nil
}
