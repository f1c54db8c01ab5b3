package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"

	"vaultmcp/vault"
	"vaultmcp/vault/index"
	"vaultmcp/vault/search"
)

// grepSpeedup is the budget (docs/performance.md) for grep: at least this many times
// faster than ripgrep doing the same search in the same run.
const grepSpeedup = 3

// benchSearch measures grep and search_files through the running server
// (warm: the index holds the texts), each beside ripgrep doing the same
// search over the same vault in the same run, and the engine's disk scan
// without the index for comparison. Every pair is checked to find the same
// number of lines.
func benchSearch(ctx context.Context, e *env) ([]figure, error) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		return nil, fmt.Errorf("ripgrep (rg) is not installed: run `make bench-deps` (apt-get install ripgrep)")
	}
	s, err := startServer(ctx, e, e.vault.Dir)
	if err != nil {
		return nil, err
	}
	defer s.close()
	if _, err := s.call(ctx, "get_tags", map[string]any{}); err != nil { // waits for the index build
		return nil, err
	}
	rare := e.rareName()
	regex := rare[:len(rare)-1] + `\d`
	folder := "**/Bücher/*.md"
	if e.plain {
		folder = "**/topic-03/*.md"
	}
	cases := []struct {
		name string
		tool string
		args map[string]any
		rg   []string
	}{
		{"grep literal, whole vault (tool call, warm)", "grep",
			map[string]any{"query": rare, "case_sensitive": true}, []string{"-n", "-F", "-e", rare}},
		{"grep regex, whole vault (tool call, warm)", "grep",
			map[string]any{"query": regex, "is_regex": true, "case_sensitive": true}, []string{"-n", "-e", regex}},
		{"grep case-insensitive (tool call, warm)", "grep",
			map[string]any{"query": strings.ToLower(rare)}, []string{"-n", "-i", "-F", "-e", strings.ToLower(rare)}},
		{"search_files " + folder + " (tool call, warm)", "search_files",
			map[string]any{"pattern": folder, "limit": search.MaxFileLimit}, []string{"--files", "-g", folder}},
	}
	var figs []figure
	for _, c := range cases {
		out, err := s.call(ctx, c.tool, c.args)
		if err != nil {
			return figs, err
		}
		rgOut, err := runRg(rg, e.vault.Dir, c.rg)
		if err != nil {
			return figs, err
		}
		if got, want := lineCount(out), lineCount(rgOut); got != want {
			return figs, fmt.Errorf("%s: vaultmcp found %d lines, rg %d", c.name, got, want)
		}
		d, err := timeIt(30, func() error { _, err := s.call(ctx, c.tool, c.args); return err })
		if err != nil {
			return figs, err
		}
		base, err := timeIt(10, func() error { _, err := runRg(rg, e.vault.Dir, c.rg); return err })
		if err != nil {
			return figs, err
		}
		f := figure{name: c.name, got: d, baseName: "rg", base: base}
		if c.tool == "grep" {
			f.minRatio = grepSpeedup
		}
		figs = append(figs, f)
	}
	rss, err := s.peakRSS()
	if err != nil {
		return figs, err
	}
	figs = append(figs, figure{name: "resident memory, peak (after the searches)", gotBytes: rss, budgetBytes: rssBudget})

	// The engine on its own: from the index's texts, and from the disk
	// through its content cache (the fallback while the index builds).
	v, err := vault.Open(e.vault.Dir, vault.Options{})
	if err != nil {
		return figs, err
	}
	ix := index.New(v, slog.New(slog.DiscardHandler))
	if err := ix.Build(ctx); err != nil {
		return figs, err
	}
	q := search.GrepQuery{Query: rare, CaseSensitive: true}
	for _, eng := range []struct {
		name string
		e    *search.Engine
	}{
		{"grep literal (engine, index texts)", search.New(v, search.Options{Texts: ix})},
		{"grep literal (engine, disk + content cache)", search.New(v, search.Options{})},
		{"grep literal (engine, disk, no cache)", search.New(v, search.Options{CacheBytes: -1})},
	} {
		if _, err := eng.e.Grep(ctx, q); err != nil {
			return figs, err
		}
		d, err := timeIt(20, func() error { _, err := eng.e.Grep(ctx, q); return err })
		if err != nil {
			return figs, err
		}
		figs = append(figs, figure{name: eng.name, got: d})
	}
	return figs, nil
}

// runRg runs ripgrep in dir and returns what it printed. Exit status 1
// means "no match", not a failure.
func runRg(rg, dir string, args []string) (string, error) {
	cmd := exec.Command(rg, append([]string{"--no-heading", "--color=never"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RIPGREP_CONFIG_PATH=")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			return "", fmt.Errorf("rg %s: %w", strings.Join(args, " "), err)
		}
	}
	return out.String(), nil
}

func lineCount(s string) int {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}
