package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"time"

	"vaultmcp/internal/vaultgen"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// benchIndex measures the live index: cold builds at three vault sizes
// and warm link and tag queries, in process (the operation the budget
// names) and through the running server (what a client sees).
func benchIndex(ctx context.Context, e *env) ([]figure, error) {
	var figs []figure
	for _, n := range []int{1000, e.notes, 50000} {
		dir := e.vault.Dir
		if n != e.notes {
			v, err := vaultgen.Generate(filepath.Join(e.tmp, fmt.Sprintf("vault-%d", n)), vaultgen.Options{Notes: n, Seed: 2})
			if err != nil {
				return figs, err
			}
			dir = v.Dir
		}
		d, heap, err := coldBuild(ctx, dir)
		if err != nil {
			return figs, err
		}
		f := figure{name: fmt.Sprintf("index built from cold, %d notes", n), got: d}
		if n == 10000 {
			f.budget = time.Second
		}
		figs = append(figs, f, figure{name: fmt.Sprintf("index heap after build, %d notes", n), gotBytes: heap})
	}

	v, err := vault.Open(e.vault.Dir, vault.Options{})
	if err != nil {
		return figs, err
	}
	ix := index.New(v, slog.New(slog.DiscardHandler))
	if err := ix.Build(ctx); err != nil {
		return figs, err
	}
	target := vaultgen.Path(7)
	queries := []struct {
		name string
		fn   func() error
	}{
		// The first page, as get_backlinks asks for it.
		{"get_backlinks (index, warm)", func() error { _, _, err := ix.Linkers(ctx, target, 0, 100); return err }},
		{"get_backlinks by name (index, warm)", func() error {
			rel, _, _, err := ix.Named(ctx, vaultgen.Name(7))
			if err != nil {
				return err
			}
			_, _, err = ix.Linkers(ctx, rel, 0, 100)
			return err
		}},
		{"get_broken_links (index, warm)", func() error { _, err := ix.Broken(ctx); return err }},
		{"find_links both (index, warm)", func() error {
			if _, _, err := ix.Linkers(ctx, target, 0, 50); err != nil {
				return err
			}
			_, _, err := ix.Outlinks(ctx, target)
			return err
		}},
		{"get_tags (index, warm)", func() error { _, err := ix.Tags(ctx, "", false); return err }},
	}
	for _, q := range queries {
		d, err := timeIt(50, q.fn)
		if err != nil {
			return figs, err
		}
		figs = append(figs, figure{name: q.name, got: d, budget: 5 * time.Millisecond})
	}

	s, err := startServer(ctx, e, e.vault.Dir)
	if err != nil {
		return figs, err
	}
	defer s.close()
	calls := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"get_backlinks (tool call, warm)", "get_backlinks", map[string]any{"note_name": vaultgen.Name(7)}},
		{"get_broken_links default page (tool call, warm)", "get_broken_links", map[string]any{}},
		{"find_links both (tool call, warm)", "find_links", map[string]any{"path": target}},
		{"get_tags (tool call, warm)", "get_tags", map[string]any{}},
	}
	for _, c := range calls {
		if _, err := s.call(ctx, c.tool, c.args); err != nil { // waits for the build
			return figs, err
		}
		d, err := timeIt(30, func() error { _, err := s.call(ctx, c.tool, c.args); return err })
		if err != nil {
			return figs, err
		}
		figs = append(figs, figure{name: c.name, got: d, budget: 5 * time.Millisecond})
	}
	return figs, nil
}

// coldBuild builds an index of dir from scratch and reports the time and
// the heap it holds afterwards.
func coldBuild(ctx context.Context, dir string) (time.Duration, uint64, error) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	ix := index.New(v, slog.New(slog.DiscardHandler))
	if err := ix.Build(ctx); err != nil {
		return 0, 0, err
	}
	d := time.Since(start)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(ix)
	heap := uint64(0)
	if after.HeapAlloc > before.HeapAlloc {
		heap = after.HeapAlloc - before.HeapAlloc
	}
	return d, heap, nil
}
