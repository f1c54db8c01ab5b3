//go:build linux

package gitsync

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// niceOf reads a process's nice value from /proc.
func niceOf(t *testing.T, pid string) int {
	t.Helper()
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command name (which may hold spaces): state is
	// field 3, nice field 19.
	_, rest, _ := strings.Cut(string(data), ") ")
	f := strings.Fields(rest)
	n, err := strconv.Atoi(f[16])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBackgroundCommandsRunNiced: a command started by startBackground
// (git gc) runs nicer than the server and at the lowest best-effort I/O
// priority, and the server's own priority is unchanged.
func TestBackgroundCommandsRunNiced(t *testing.T) {
	own := niceOf(t, "self")
	cmd := exec.Command("cat") // runs until its input is closed
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := startBackground(cmd); err != nil {
		t.Fatal(err)
	}
	defer func() {
		in.Close()
		cmd.Wait()
	}()
	pid := strconv.Itoa(cmd.Process.Pid)
	if got, want := niceOf(t, pid), min(own+backgroundNice, 19); got != want {
		t.Errorf("nice %d, want %d (the server's is %d)", got, want, own)
	}
	prio, _, errno := syscall.Syscall(syscall.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(cmd.Process.Pid), 0)
	if errno != 0 {
		t.Fatalf("ioprio_get: %v", errno)
	}
	if want := ioprioClassBE<<ioprioClassShift | ioprioLowest; int(prio) != want {
		t.Errorf("I/O priority %#x, want %#x", prio, want)
	}
	if got := niceOf(t, "self"); got != own {
		t.Errorf("the server's nice changed: %d, was %d", got, own)
	}
}
