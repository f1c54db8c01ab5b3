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

// The start-up budgets (docs/performance.md).
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
	// compete.
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

// startFigures starts the server on dir ten times and reports the median
// time to initialize, to tools/list right after it, and the CPU time the
// server had used when initialize was answered (which a loaded machine
// inflates far less than the wall time); the last server is returned
// running. The CPU time is read in every other start and tools/list timed
// in the others, so that reading it never delays the tools/list request:
// the server could use that delay to prepare its answer, and no client
// waits before asking.
func startFigures(ctx context.Context, e *env, dir, label string) ([]figure, *server, error) {
	const starts = 10
	settle()
	var readies, lists, cpus []time.Duration
	var s *server
	for i := range starts {
		var err error
		if s != nil {
			s.close()
		}
		readCPU := i%2 == 1
		if s, err = startServerWith(ctx, e, dir, startOptions{initCPU: readCPU}); err != nil {
			return nil, nil, err
		}
		readies = append(readies, s.ready)
		if readCPU {
			if s.initCPU > 0 {
				cpus = append(cpus, s.initCPU)
			}
			continue
		}
		start := time.Now()
		if _, err := s.c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
			s.close()
			return nil, nil, err
		}
		lists = append(lists, time.Since(start))
	}
	figs := []figure{
		{name: fmt.Sprintf("initialize answered after start (median of %d)", len(readies)) + label, got: median(readies), budget: initBudget},
		{name: fmt.Sprintf("tools/list right after initialize (median of %d)", len(lists)) + label, got: median(lists), budget: toolsListBudget},
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
