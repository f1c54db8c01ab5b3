package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// server is a running vaultmcp binary with an initialized MCP client.
type server struct {
	c       *client.Client
	started time.Time
	ready   time.Duration // process start to initialize answered
	pid     int           // the server process
	// initCPU is the CPU time the server had used when initialize was
	// answered (0 when not read: see startOptions.initCPU).
	initCPU time.Duration
}

// startOptions says what startServer does beyond starting and
// initializing.
type startOptions struct {
	// initCPU: read the server's CPU time once initialize is answered.
	// Reading it takes a few hundred microseconds of the bench's own
	// work, which the server could use meanwhile to prepare the next
	// answer: a start whose next request is timed does without it.
	initCPU bool
	// stderr, when not nil, receives the server's log (otherwise mcp-go's
	// client drains and drops it); logLevel, when set, is the level the
	// server logs at instead of warn.
	stderr   io.Writer
	logLevel string
}

// startServer starts the binary on dir over stdio and initializes it,
// reading the server's CPU time at that point.
func startServer(ctx context.Context, e *env, dir string, extraEnv ...string) (*server, error) {
	return startServerWith(ctx, e, dir, startOptions{initCPU: true}, extraEnv...)
}

// startServerWith is startServer with options. Between the process's
// start and initialize's answer (the timed window) the bench does
// nothing but mcp-go's client work: the server's PID comes from the
// exec.Cmd the client starts, not from a scan of /proc.
func startServerWith(ctx context.Context, e *env, dir string, opts startOptions, extraEnv ...string) (*server, error) {
	level := "warn"
	if opts.logLevel != "" {
		level = opts.logLevel
	}
	environ := append(os.Environ(), "VAULTMCP_LOG_LEVEL="+level)
	environ = append(environ, extraEnv...)
	var cmd *exec.Cmd
	// What mcp-go's client does without a command function, keeping the
	// exec.Cmd (environ already holds this process's environment).
	spawn := func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
		cmd = exec.CommandContext(ctx, command, args...)
		cmd.Env = env
		cmd.Stderr = opts.stderr
		return cmd, nil
	}
	start := time.Now()
	c, err := client.NewStdioMCPClientWithOptions(e.bin, environ, []string{"serve", "--vault", dir}, transport.WithCommandFunc(spawn))
	if err != nil {
		return nil, fmt.Errorf("start vaultmcp: %w", err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "vaultbench", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	s := &server{c: c, started: start, ready: time.Since(start), pid: cmd.Process.Pid}
	if opts.initCPU {
		s.initCPU, _ = s.cpuTime()
	}
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

// buildLog reads a server's log (startOptions.stderr) for the line the
// index logs when its first build is done, and keeps the build time it
// gives: the build as it ran in the server, beside the start's other
// work (the history warm-up, the first sync).
type buildLog struct {
	mu      sync.Mutex
	partial []byte
	took    time.Duration
	done    chan struct{} // closed once took is known
}

func newBuildLog() *buildLog { return &buildLog{done: make(chan struct{})} }

// Write takes the log a piece at a time and looks at each whole line.
func (b *buildLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.partial = append(b.partial, p...)
	for {
		i := bytes.IndexByte(b.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(b.partial[:i])
		b.partial = b.partial[i+1:]
		if b.took != 0 || !strings.Contains(line, `msg="index built"`) {
			continue
		}
		for _, field := range strings.Fields(line) {
			v, ok := strings.CutPrefix(field, "took=")
			if !ok {
				continue
			}
			if d, err := time.ParseDuration(v); err == nil && d > 0 {
				b.took = d
				close(b.done)
			}
			break
		}
	}
}

// wait returns the build time the server logged, waiting up to a minute
// for the line (the log is copied to Write by another goroutine, which may
// still be behind the answer that showed the index ready).
func (b *buildLog) wait() (time.Duration, error) {
	select {
	case <-b.done:
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.took, nil
	case <-time.After(time.Minute):
		return 0, fmt.Errorf("the server logged no \"index built\" line")
	}
}
