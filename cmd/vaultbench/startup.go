package main

import (
	"context"
	"time"
)

// benchStartup measures how soon a client is served after the process
// starts, and the server's resident memory once it has walked the vault.
func benchStartup(ctx context.Context, e *env) ([]figure, error) {
	var readies []time.Duration
	var s *server
	for i := 0; i < 5; i++ {
		var err error
		if s != nil {
			s.close()
		}
		s, err = startServer(ctx, e, e.vault.Dir)
		if err != nil {
			return nil, err
		}
		readies = append(readies, s.ready)
	}
	defer s.close()
	figs := []figure{{name: "initialize answered after start (median of 5)", got: median(readies), budget: 200 * time.Millisecond}}
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
	figs = append(figs, figure{name: "resident memory, peak (vault indexed)", gotBytes: rss, budgetBytes: 200 << 20})
	return figs, nil
}
