package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// server is a running vaultmcp binary with an initialized MCP client.
type server struct {
	c       *client.Client
	started time.Time
	ready   time.Duration // process start to initialize answered
	pid     int           // the server process, 0 when not found
	// initCPU is the CPU time the server had used when initialize was
	// answered (0 when not known).
	initCPU time.Duration
}

// startServer starts the binary on dir over stdio and initializes it.
func startServer(ctx context.Context, e *env, dir string, extraEnv ...string) (*server, error) {
	environ := append(os.Environ(), "VAULTMCP_LOG_LEVEL=warn")
	environ = append(environ, extraEnv...)
	start := time.Now()
	c, err := client.NewStdioMCPClient(e.bin, environ, "serve", "--vault", dir)
	if err != nil {
		return nil, fmt.Errorf("start vaultmcp: %w", err)
	}
	pid, _ := serverPID() // found now, so reading its CPU time later is quick
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "vaultbench", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	s := &server{c: c, started: start, ready: time.Since(start), pid: pid}
	s.initCPU, _ = s.cpuTime()
	return s, nil
}

// call runs one tool and fails on a tool error.
func (s *server) call(ctx context.Context, name string, args map[string]any) (string, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("%s: %s", name, b.String())
	}
	return b.String(), nil
}

func (s *server) close() { s.c.Close() }

// peakRSS reads the peak resident set size of the server process.
func (s *server) peakRSS() (uint64, error) {
	pid := s.pid
	if pid == 0 {
		return 0, fmt.Errorf("no server process")
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM for pid %d", pid)
}

// serverPID finds the child process the stdio client just started: the
// newest vaultmcp child of this process, since a section may run another
// server beside it.
func serverPID() (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	self := strconv.Itoa(os.Getpid())
	found, newest := 0, uint64(0)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the parenthesised command: state, ppid, … and
		// the start time 19 places after the state.
		s := string(stat)
		rest := s[strings.LastIndexByte(s, ')')+2:]
		fields := strings.Fields(rest)
		if len(fields) < 20 || fields[1] != self || !strings.Contains(s, "(vaultmcp)") {
			continue
		}
		if started, err := strconv.ParseUint(fields[19], 10, 64); err == nil && (found == 0 || started >= newest) {
			found, newest = pid, started
		}
	}
	if found == 0 {
		return 0, fmt.Errorf("vaultmcp process not found")
	}
	return found, nil
}

// median returns the median of ds.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// timeIt runs fn n times and returns the median duration.
func timeIt(n int, fn func() error) (time.Duration, error) {
	ds := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		start := time.Now()
		if err := fn(); err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(start))
	}
	return median(ds), nil
}

// timedCall runs one tool and returns how long the answer took and the
// server CPU time (all threads) it spent meanwhile.
func (s *server) timedCall(ctx context.Context, name string, args map[string]any) (time.Duration, time.Duration, error) {
	cpu0, _ := s.cpuTime()
	start := time.Now()
	_, err := s.call(ctx, name, args)
	d := time.Since(start)
	cpu1, _ := s.cpuTime()
	return d, cpu1 - cpu0, err
}
