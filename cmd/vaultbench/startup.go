package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// The start-up budgets (README, Performance).
const (
	initBudget      = 30 * time.Millisecond
	toolsListBudget = 5 * time.Millisecond
	rssBudget       = 120 << 20
)

// benchStartup measures how soon a client is served after the process
// starts (initialize, then tools/list right after it, while the index
// builds) on a 1k-note vault, the main vault (--notes) and the large one
// (--large), through mcp-go's client and through the official TypeScript
// SDK's, and the server's resident memory once it has indexed the main
// vault. Start-up must not grow with the vault: the three sizes side by
// side show it.
func benchStartup(ctx context.Context, e *env) ([]figure, error) {
	// Timed as make build builds it (static, without cgo), which the
	// other sections' binary is not: the dynamic loader, libc and cgo's
	// thread start cost 5-20 % of the CPU until initialize.
	static, err := buildStatic(ctx, e)
	if err != nil {
		return nil, err
	}
	defer func(bin string) { e.bin = bin }(e.bin)
	e.bin = static
	var figs []figure
	small, err := e.generate("vault-1k", 1000, 2)
	if err != nil {
		return nil, err
	}
	sized := func(n int) string { return fmt.Sprintf(", %dk notes", n/1000) }
	start, s, err := startFigures(ctx, e, small.Dir, sized(1000))
	figs = append(figs, start...)
	if err != nil {
		return figs, err
	}
	s.close()
	figs = append(figs, tsStartFigures(ctx, e, small.Dir, sized(1000))...)

	start, s, err = startFigures(ctx, e, e.vault.Dir, sized(e.notes))
	figs = append(figs, start...)
	if err != nil {
		return figs, err
	}
	rss, err := indexedRSS(ctx, s)
	// Closed before anything else is timed: its background work would
	// compete, and it would be the vaultmcp process found by the next
	// server's CPU figure.
	s.close()
	if err != nil {
		return figs, err
	}
	figs = append(figs, tsStartFigures(ctx, e, e.vault.Dir, sized(e.notes))...)
	figs = append(figs, figure{name: "resident memory, peak (vault indexed)", gotBytes: rss, budgetBytes: rssBudget})

	if e.large > 0 {
		large, err := e.largeVault()
		if err != nil {
			return figs, err
		}
		start, s, err := startFigures(ctx, e, large.Dir, sized(e.large))
		figs = append(figs, start...)
		if err != nil {
			return figs, err
		}
		s.close()
		figs = append(figs, tsStartFigures(ctx, e, large.Dir, sized(e.large))...)
	}
	return figs, nil
}

// buildStatic builds the server as make build does, without cgo, in a
// folder of its own (the process must be named vaultmcp: serverPID).
func buildStatic(ctx context.Context, e *env) (string, error) {
	bin := filepath.Join(e.tmp, "static", "vaultmcp")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/vaultmcp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build vaultmcp without cgo: %w", err)
	}
	return bin, nil
}

// indexedRSS is the peak resident memory of the server s once it has
// indexed the whole vault (get_tags waits for the background build) and
// listed it.
func indexedRSS(ctx context.Context, s *server) (uint64, error) {
	if _, err := s.call(ctx, "get_tags", map[string]any{}); err != nil {
		return 0, err
	}
	if _, err := s.call(ctx, "list_directory", map[string]any{"path": "", "recursive": true}); err != nil {
		return 0, err
	}
	return s.peakRSS()
}

// tsStartFigures are startFigures through the official TypeScript SDK's
// client (e2e/ts/startup.mjs, five server processes): initialize (the
// SDK's connect, spawn included), tools/list right after it as a plain
// request, and client.listTools(), which also compiles a validator for
// every output schema in the client. Without node or the SDK (make
// e2e-deps) the figures say so instead.
func tsStartFigures(ctx context.Context, e *env, dir, label string) []figure {
	skipped := func(why string) []figure {
		return []figure{{name: "initialize, TS SDK client" + label, text: "skipped", note: why}}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return skipped("node is not installed")
	}
	if _, err := os.Stat(filepath.Join("e2e", "ts", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		return skipped("the SDK is not installed: run make e2e-deps")
	}
	settle()
	cmd := exec.CommandContext(ctx, node, filepath.Join("e2e", "ts", "startup.mjs"), e.bin, dir, "5")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return skipped(fmt.Sprintf("startup.mjs: %v: %s", err, strings.TrimSpace(stderr.String())))
	}
	var report struct {
		Initialize []float64 `json:"initialize_ms"`
		ToolsList  []float64 `json:"tools_list_ms"`
		ListTools  []float64 `json:"list_tools_call_ms"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		return skipped(fmt.Sprintf("startup.mjs printed %q: %v", out, err))
	}
	ms := func(v []float64) time.Duration {
		ds := make([]time.Duration, len(v))
		for i, x := range v {
			ds[i] = time.Duration(x * float64(time.Millisecond))
		}
		return median(ds)
	}
	return []figure{
		{name: "initialize, TS SDK client (median of 5)" + label, got: ms(report.Initialize), budget: initBudget},
		{name: "tools/list after it, TS SDK client" + label, got: ms(report.ToolsList), budget: toolsListBudget},
		{name: "SDK listTools() with its Ajv compiles" + label, got: ms(report.ListTools),
			note: "(client-side: the SDK compiles every output schema)"},
	}
}

// startFigures starts the server on dir five times and reports the median
// time to initialize and to tools/list right after it, and the CPU time
// the server had used when initialize was answered (which a loaded machine
// inflates far less than the wall time); the last server is returned
// running.
func startFigures(ctx context.Context, e *env, dir, label string) ([]figure, *server, error) {
	settle()
	var readies, lists, cpus []time.Duration
	var s *server
	for i := 0; i < 5; i++ {
		var err error
		if s != nil {
			s.close()
		}
		if s, err = startServer(ctx, e, dir); err != nil {
			return nil, nil, err
		}
		readies = append(readies, s.ready)
		if s.initCPU > 0 {
			cpus = append(cpus, s.initCPU)
		}
		start := time.Now()
		if _, err := s.c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
			s.close()
			return nil, nil, err
		}
		lists = append(lists, time.Since(start))
	}
	figs := []figure{
		{name: "initialize answered after start (median of 5)" + label, got: median(readies), budget: initBudget},
		{name: "tools/list right after initialize (median of 5)" + label, got: median(lists), budget: toolsListBudget},
	}
	if len(cpus) > 0 {
		figs = append(figs, figure{name: "server CPU until initialize answered" + label, got: median(cpus)})
	}
	return figs, s, nil
}

// settle writes the page cache's dirty pages out before servers are
// timed, so that writing back the binary just built and the vaults just
// generated (tens of MB) does not take a core from the first runs. The
// 1k tools/list figure, timed first, was the slowest of the three sizes,
// while a 1k and a 10k vault answer alike when their runs alternate.
func settle() { syscall.Sync() }

// cpuTime is the CPU time all the server's threads have run so far
// (Linux: /proc/PID/task/*/schedstat).
func (s *server) cpuTime() (time.Duration, error) {
	pid := s.pid
	if pid == 0 {
		return 0, fmt.Errorf("no server process")
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, err
	}
	var total int64
	for _, t := range tasks {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue // the thread ended
		}
		var ns int64
		if _, err := fmt.Sscan(string(data), &ns); err == nil {
			total += ns
		}
	}
	return time.Duration(total), nil
}
