package main

import (
	"context"
	"fmt"
	"os"
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
// builds), and the server's resident memory once it has indexed the vault.
func benchStartup(ctx context.Context, e *env) ([]figure, error) {
	figs, s, err := startFigures(ctx, e, e.vault.Dir, "")
	if err != nil {
		return figs, err
	}
	defer s.close()
	// get_tags waits for the background index build: memory is measured
	// with the whole vault indexed.
	if _, err := s.call(ctx, "get_tags", map[string]any{}); err != nil {
		return figs, err
	}
	if _, err := s.call(ctx, "list_directory", map[string]any{"path": "", "recursive": true}); err != nil {
		return figs, err
	}
	rss, err := s.peakRSS()
	if err != nil {
		return figs, err
	}
	return append(figs, figure{name: "resident memory, peak (vault indexed)", gotBytes: rss, budgetBytes: rssBudget}), nil
}

// startFigures starts the server on dir five times and reports the median
// time to initialize and to tools/list right after it, and the CPU time
// the server had used when initialize was answered (which a loaded machine
// inflates far less than the wall time); the last server is returned
// running.
func startFigures(ctx context.Context, e *env, dir, label string) ([]figure, *server, error) {
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
		figs = append(figs, figure{name: "server CPU time until initialize answered" + label, got: median(cpus)})
	}
	return figs, s, nil
}

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
