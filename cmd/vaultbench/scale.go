package main

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"path"
	"runtime"
	"strings"
	"time"

	"vaultmcp/internal/vaultgen"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// benchScale repeats the figures that grow with the vault on a large one
// (--large notes, 100,000 by default): start-up, the index built from
// cold in a fresh process and through the server, resident memory, warm
// backlinks queries (of a note with a handful of backlinks and of the
// popular one, with 1,800, as tool calls and typed in process), the
// broken links typed, a case-insensitive grep beside ripgrep and the
// rename of the popular note beside the shell. Cost should grow at most
// linearly with the vault.
func benchScale(ctx context.Context, e *env) ([]figure, error) {
	if e.large <= 0 {
		return nil, nil
	}
	v, err := e.largeVault()
	if err != nil {
		return nil, err
	}
	label := fmt.Sprintf(", %dk notes", e.large/1000)
	figs, hubCount, err := scaleQueries(ctx, e, v, label)
	if err != nil {
		return figs, err
	}
	typed, err := scaleTyped(ctx, v, hubCount, label)
	figs = append(figs, typed...)
	if err != nil {
		return figs, err
	}
	renamed, err := scaleRename(ctx, e, v, label)
	return append(figs, renamed...), err
}

// scaleQueries measures the large vault's build, start, memory, backlinks
// and grep, and returns the popular note's backlink count as the server
// gave it.
func scaleQueries(ctx context.Context, e *env, v *vaultgen.Vault, label string) ([]figure, int, error) {
	// Three builds, not five: each takes seconds at 100,000 notes.
	figs, err := buildFigures(ctx, e, v.Dir, e.large, 3)
	if err != nil {
		return figs, 0, err
	}
	start, s, err := startFigures(ctx, e, v.Dir, label)
	figs = append(figs, start...)
	if err != nil {
		return figs, 0, err
	}
	defer s.close()
	if _, err := s.call(ctx, "get_tags", map[string]any{}); err != nil { // waits for the index build
		return figs, 0, err
	}
	figs = append(figs, figure{name: "index ready after start (server)" + label, got: time.Since(s.started)})
	rss, err := s.peakRSS()
	if err != nil {
		return figs, 0, err
	}
	figs = append(figs, figure{name: "resident memory, peak (vault indexed)" + label, gotBytes: rss,
		note: fmt.Sprintf("(%.1f MB per 10k notes)", float64(rss)/float64(e.large)*10000/(1<<20))})

	waitIdle(s) // the warm calls, once the start's background work is done (see benchIndex)
	backlinks := map[string]any{"note_name": v.Name(7)}
	if _, err := s.call(ctx, "get_backlinks", backlinks); err != nil {
		return figs, 0, err
	}
	d, err := timeIt(30, func() error { _, err := s.call(ctx, "get_backlinks", backlinks); return err })
	if err != nil {
		return figs, 0, err
	}
	figs = append(figs, figure{name: "get_backlinks (tool call, warm)" + label, got: d, budget: backlinksBudget})
	popular, hubCount, err := popularCall(ctx, s, v, 0, label)
	figs = append(figs, popular...)
	if err != nil {
		return figs, 0, err
	}

	rg, err := exec.LookPath("rg")
	if err != nil {
		return figs, 0, fmt.Errorf("ripgrep (rg) is not installed: run `make bench-deps`")
	}
	query := strings.ToLower(v.Name(1237))
	grep := map[string]any{"query": query}
	out, err := s.call(ctx, "grep", grep)
	if err != nil {
		return figs, 0, err
	}
	rgArgs := []string{"-n", "-i", "-F", "-e", query}
	rgOut, err := runRg(rg, v.Dir, rgArgs)
	if err != nil {
		return figs, 0, err
	}
	if got, want := lineCount(out), lineCount(rgOut); got != want {
		return figs, 0, fmt.Errorf("grep%s: vaultmcp found %d lines, rg %d", label, got, want)
	}
	d, err = timeIt(10, func() error { _, err := s.call(ctx, "grep", grep); return err })
	if err != nil {
		return figs, 0, err
	}
	base, err := timeIt(5, func() error { _, err := runRg(rg, v.Dir, rgArgs); return err })
	if err != nil {
		return figs, 0, err
	}
	figs = append(figs, figure{name: "grep case-insensitive (tool call, warm)" + label, got: d, baseName: "rg", base: base, minRatio: grepSpeedup})
	rss, err = s.peakRSS()
	if err != nil {
		return figs, 0, err
	}
	return append(figs, figure{name: "resident memory, peak (after grep)" + label, gotBytes: rss}), hubCount, nil
}

// scaleTyped times the typed get_backlinks of the popular note and
// get_broken_links on an index of the large vault built in this process
// (popularTyped), once the server is closed; the popular note must count
// the hubCount backlinks the server gave. The index is dropped after.
func scaleTyped(ctx context.Context, v *vaultgen.Vault, hubCount int, label string) ([]figure, error) {
	vlt, err := vault.Open(v.Dir, vault.Options{})
	if err != nil {
		return nil, err
	}
	defer vlt.Close()
	ix := index.New(vlt, slog.New(slog.DiscardHandler))
	if err := ix.Build(ctx); err != nil {
		return nil, err
	}
	figs, _, err := popularTyped(ctx, v, vlt, ix, hubCount, label)
	runtime.KeepAlive(ix)
	return figs, err
}

// scaleRename renames the large vault's popular note, which 1,800 others
// link to, as the rename section does at 10k: its cost should follow the
// links it rewrites, not the size of the vault. The shell pipeline then
// renames it back in the same repository, with the server stopped.
func scaleRename(ctx context.Context, e *env, v *vaultgen.Vault, label string) ([]figure, error) {
	if !hasHub(v) {
		return nil, fmt.Errorf("the scale section needs --large %d or more (a popular note)", 100+hubLinks)
	}
	hub := v.Path(vaultgen.HubNote)
	name := strings.TrimSuffix(path.Base(hub), ".md")
	renamed := path.Dir(hub) + "/" + name + " renamed.md"
	d, err := func() (time.Duration, error) {
		s, err := startServer(ctx, e, v.Dir, "VAULTMCP_GIT_SYNC_INTERVAL=0")
		if err != nil {
			return 0, err
		}
		defer s.close()
		if _, err := s.call(ctx, "get_tags", map[string]any{}); err != nil { // waits for the index build
			return 0, err
		}
		// At 100,000 notes the history's warm-up still runs for seconds
		// after the index is ready; the rename is timed, as the warm
		// calls are, once the server is idle.
		waitIdle(s)
		start := time.Now()
		if _, err := s.call(ctx, "rename_file", map[string]any{"old_path": hub, "new_path": renamed}); err != nil {
			return 0, err
		}
		return time.Since(start), nil
	}()
	if err != nil {
		return nil, err
	}
	linked, err := runRg("rg", v.Dir, []string{"-l", "-F", "-e", "[[" + name + " renamed]]"})
	if err != nil {
		return nil, err
	}
	if n := lineCount(linked); n < hubLinks {
		return nil, fmt.Errorf("rename_file%s relinked %d notes, want at least %d", label, n, hubLinks)
	}
	cli, err := shellRename(ctx, v.Dir, renamed, hub)
	if err != nil {
		return nil, err
	}
	return []figure{{
		name: fmt.Sprintf("rename_file, %d backlinks relinked, one commit", hubLinks) + label, got: d, budget: renameBudget,
		baseName: "git mv + rg|sed + git commit -a", base: cli,
	}}, nil
}
