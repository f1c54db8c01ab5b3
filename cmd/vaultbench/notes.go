package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
	"vaultmcp/vault/query"
	"vaultmcp/vault/rank"
)

// notesBudget is the budget for query_notes and search_notes, warm.
const notesBudget = 10 * time.Millisecond

// benchNotes measures the tools that query notes by properties and tags
// (query_notes) and rank them by relevance (search_notes): in process,
// the typed functions the tools run, and through the running server;
// ranked search beside ripgrep listing the files that hold the words. It
// also measures the search index's cold build (done in the background at
// start), the heap it holds, patch_note's write path, and the server's
// memory once everything is built.
func benchNotes(ctx context.Context, e *env) ([]figure, error) {
	v, err := vault.Open(e.vault.Dir, vault.Options{})
	if err != nil {
		return nil, err
	}
	logger := slog.New(slog.DiscardHandler)
	ix := index.New(v, logger)
	if err := ix.Build(ctx); err != nil {
		return nil, err
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	ranked := rank.New(ix, logger)
	ranked.Start(ctx)
	if _, err := ranked.Search(ctx, rank.Query{Text: "warm"}); err != nil {
		return nil, err
	}
	built := time.Since(start)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(ranked)
	heap := uint64(0)
	if after.HeapAlloc > before.HeapAlloc {
		heap = after.HeapAlloc - before.HeapAlloc
	}
	// The query table, filled by its first query.
	table := query.NewTable(ix)
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := table.Run(ctx, query.Request{}); err != nil {
		return nil, err
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(table)
	tableHeap := uint64(0)
	if after.HeapAlloc > before.HeapAlloc {
		tableHeap = after.HeapAlloc - before.HeapAlloc
	}
	figs := []figure{
		{name: fmt.Sprintf("search index built from cold, %d notes", e.notes), got: built},
		{name: "search index heap", gotBytes: heap},
		{name: "query table heap", gotBytes: tableHeap},
	}

	d := tools.Deps{Vault: v, Index: ix, Ranked: ranked, Queries: table, Logger: logger}
	rare := e.rareName()
	folder := "Projects"
	if e.plain {
		folder = "area-03"
	}
	queries := []struct {
		name string
		fn   func() (int, error)
	}{
		{"query_notes tag, newest first (typed, warm)", func() (int, error) {
			r, err := tools.Query(ctx, d, tools.QueryNotesArgs{Filter: map[string]any{"tags": "project"}, Sort: "-modified"})
			return r.Total, err
		}},
		{"query_notes property range + folder (typed, warm)", func() (int, error) {
			r, err := tools.Query(ctx, d, tools.QueryNotesArgs{Filter: map[string]any{"folder": folder,
				"properties": map[string]any{"created": map[string]any{"gte": "2025-06-01"}}}, Sort: "properties.created"})
			return r.Total, err
		}},
		{"query_notes links_to + any-of tags (typed, warm)", func() (int, error) {
			r, err := tools.Query(ctx, d, tools.QueryNotesArgs{Filter: map[string]any{"links_to": e.vault.Name(7),
				"any": []any{map[string]any{"tags": "idea"}, map[string]any{"tags": "area"}}}})
			return r.Total, err
		}},
		{"search_notes two common words (typed, warm)", func() (int, error) {
			r, err := tools.RankedSearch(ctx, d, tools.SearchNotesArgs{Query: "review draft"})
			return r.Total, err
		}},
		{"search_notes a rare name (typed, warm)", func() (int, error) {
			r, err := tools.RankedSearch(ctx, d, tools.SearchNotesArgs{Query: rare})
			return r.Total, err
		}},
	}
	for _, q := range queries {
		n, err := q.fn()
		if err != nil {
			return figs, fmt.Errorf("%s: %w", q.name, err)
		}
		if n == 0 {
			return figs, fmt.Errorf("%s: nothing matched", q.name)
		}
		dur, err := timeIt(50, func() error { _, err := q.fn(); return err })
		if err != nil {
			return figs, err
		}
		figs = append(figs, figure{name: q.name, got: dur, budget: notesBudget})
	}

	s, err := startServer(ctx, e, e.vault.Dir)
	if err != nil {
		return figs, err
	}
	defer s.close()
	// Memory as the server grows: the vault index, then the search index
	// (built in the background once the vault index is ready).
	if _, err := s.call(ctx, "get_tags", map[string]any{}); err != nil {
		return figs, err
	}
	rssIndex, err := s.peakRSS()
	if err != nil {
		return figs, err
	}
	if _, err := s.call(ctx, "search_notes", map[string]any{"query": "warm"}); err != nil {
		return figs, err
	}
	rssSearch, err := s.peakRSS()
	if err != nil {
		return figs, err
	}
	figs = append(figs,
		figure{name: "resident memory, peak (vault index built)", gotBytes: rssIndex, budgetBytes: rssBudget},
		figure{name: "resident memory, peak (+ search index built)", gotBytes: rssSearch, budgetBytes: rssBudget})
	rg, rgErr := exec.LookPath("rg")
	calls := []struct {
		name string
		tool string
		args map[string]any
		rg   []string
	}{
		{"query_notes tag, newest first (tool call, warm)", "query_notes", map[string]any{"filter": map[string]any{"tags": "project"}, "sort": "-modified"}, nil},
		{"query_notes property range (tool call, warm)", "query_notes",
			map[string]any{"filter": map[string]any{"properties": map[string]any{"created": map[string]any{"gte": "2025-06-01"}}}, "sort": "properties.created"}, nil},
		{"search_notes two common words (tool call, warm)", "search_notes", map[string]any{"query": "review draft"},
			[]string{"-l", "-i", "-w", "-e", "review", "-e", "draft"}},
		{"search_notes a rare name (tool call, warm)", "search_notes", map[string]any{"query": rare}, []string{"-l", "-i", "-F", "-e", rare}},
	}
	for _, c := range calls {
		out, err := s.call(ctx, c.tool, c.args) // the first call waits for the builds
		if err != nil {
			return figs, err
		}
		var total struct {
			Total int `json:"total"`
		}
		if err := json.Unmarshal([]byte(out), &total); err != nil || total.Total == 0 {
			return figs, fmt.Errorf("%s: no results (%v)", c.name, err)
		}
		dur, err := timeIt(30, func() error { _, err := s.call(ctx, c.tool, c.args); return err })
		if err != nil {
			return figs, err
		}
		f := figure{name: c.name, got: dur, budget: notesBudget}
		if c.rg != nil && rgErr == nil {
			base, err := timeIt(10, func() error { _, err := runRg(rg, e.vault.Dir, c.rg); return err })
			if err != nil {
				return figs, err
			}
			f.baseName, f.base = "rg -l (unranked)", base
		}
		figs = append(figs, f)
	}
	rss, err := s.peakRSS()
	if err != nil {
		return figs, err
	}
	figs = append(figs, figure{name: "resident memory, peak (+ the queries above)", gotBytes: rss, budgetBytes: rssBudget})

	// patch_note's write path on a scratch copy: find the section, edit,
	// write, index, commit; beside write_file of a note the same size on
	// the same server. The calls alternate, so both see the same machine
	// (timing all of one tool first gave it the server's start-up work:
	// the ranked search build, the history warm-up, the first sync), and
	// they start once that work is done and the server is idle.
	w, err := startWriteServer(ctx, e)
	if err != nil {
		return figs, err
	}
	defer w.close()
	if _, err := w.call(ctx, "search_notes", map[string]any{"query": "warm"}); err != nil { // waits for both index builds
		return figs, err
	}
	waitIdle(w)
	const pairs = 30
	var patches, writes []time.Duration
	var patchCPU, writeCPU time.Duration
	for i := 1; i <= 2*pairs; i += 2 {
		d, cpu, err := w.timedCall(ctx, "patch_note", map[string]any{"path": e.vault.Path(i), "target_type": "heading", "target": e.vault.Name(i),
			"operation": "prepend", "content": "patched"})
		if err != nil {
			return figs, err
		}
		patches, patchCPU = append(patches, d), patchCPU+cpu
		// Content of its own each call, as patch_note's is: the same
		// bytes every time would find their blob already stored, and the
		// write would skip the object file patch_note has to create.
		content := fmt.Sprintf("written %d\n", i) + strings.Repeat("written\n", 259)
		d, cpu, err = w.timedCall(ctx, "write_file", map[string]any{"path": e.vault.Path(i + 1), "content": content})
		if err != nil {
			return figs, err
		}
		writes, writeCPU = append(writes, d), writeCPU+cpu
	}
	figs = append(figs, figure{name: "patch_note -> committed -> returned (tool call)", got: median(patches), budget: writeBudget,
		baseName: "write_file", base: median(writes)},
		figure{name: "  server CPU per call: patch_note / write_file", text: fmtDuration(patchCPU/pairs) + " / " + fmtDuration(writeCPU/pairs)})
	return figs, nil
}

// startWriteServer starts a server on a copy of the generated vault made
// a fresh git repository, for timing writes.
func startWriteServer(ctx context.Context, e *env) (*server, error) {
	dir := filepath.Join(e.tmp, "notes-write")
	if err := copyTree(e.vault.Dir, dir); err != nil {
		return nil, err
	}
	// Earlier sections served the shared vault, which made it a
	// repository: start from a fresh history.
	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		return nil, err
	}
	if err := gitInit(dir); err != nil {
		return nil, err
	}
	return startServer(ctx, e, dir, "VAULTMCP_GIT_SYNC_INTERVAL=0")
}
