package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"time"

	"vaultmcp/internal/vaultgen"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// conceptBudget is the budget (docs/performance.md) for the concept tools (expand depth
// 3, search, path), warm.
const conceptBudget = 5 * time.Millisecond

// benchConcepts measures the concept tools on a generated vault of 50,000
// notes, 5,000 of them concept notes: in process (the typed functions the
// REST API calls) and through the running server (what an MCP client
// sees), plus what the concept graph adds to the index's heap, measured
// against a control vault of the same bytes whose concept notes lack
// prefLabel.
func benchConcepts(ctx context.Context, e *env) ([]figure, error) {
	const notes, concepts = 50000, 5000
	opts := vaultgen.Options{Notes: notes, Concepts: concepts, Seed: 4}
	dir := filepath.Join(e.tmp, "vault-concepts")
	if _, err := vaultgen.Generate(dir, opts); err != nil {
		return nil, err
	}
	if err := gitInit(dir); err != nil { // as generate does, for the tool calls
		return nil, err
	}
	opts.ConceptsInert = true
	control := filepath.Join(e.tmp, "vault-concepts-control")
	if _, err := vaultgen.Generate(control, opts); err != nil {
		return nil, err
	}
	var figs []figure
	// Built in fresh processes, as the server builds at start (and as the
	// index section's rows are).
	const runs = 3
	took, _, heap, err := e.freshBuilds(ctx, dir, notes, runs)
	if err != nil {
		return figs, err
	}
	tookControl, _, heapControl, err := e.freshBuilds(ctx, control, notes, runs)
	if err != nil {
		return figs, err
	}
	extra := uint64(0)
	if heap > heapControl {
		extra = heap - heapControl
	}
	figs = append(figs,
		figure{name: fmt.Sprintf("index built, 50000 notes, 5000 concepts (fresh process, median of %d)", runs), got: took},
		figure{name: "  same bytes, no concepts (control)", got: tookControl},
		figure{name: "index heap for the 5000 concepts", gotBytes: extra},
	)

	// Concept 5 sits near the top of the tree (fan-out 4): depth 3 reaches
	// its descendants, ancestors and related concepts of related ones.
	focus := vaultgen.ConceptID(5, notes, concepts)
	from, to := vaultgen.ConceptID(concepts-1, notes, concepts), vaultgen.ConceptID(concepts/2+1, notes, concepts)
	search := "memory graph"
	inProcess, err := conceptsInProcess(ctx, dir, focus, search, from, to)
	figs = append(figs, inProcess...)
	if err != nil {
		return figs, err
	}
	// The in-process index is garbage now: collected here, it does not
	// make this process (the client below) pay for marking it while it
	// decodes the answers it times.
	runtime.GC()

	s, err := startServer(ctx, e, dir)
	if err != nil {
		return figs, err
	}
	defer s.close()
	toolCalls := []struct {
		name, tool string
		args       map[string]any
	}{
		{"expand_context depth 3 + text (tool call, warm)", "expand_context", map[string]any{"concept_id": focus, "max_depth": 3}},
		// What an agent asking for the most text pays (50 concepts and
		// 60,000 characters were the defaults before).
		{"  the same, limit 50, max_content 60000", "expand_context", map[string]any{"concept_id": focus, "max_depth": 3, "limit": 50, "max_content": 60000}},
		{"search_concepts (tool call, warm)", "search_concepts", map[string]any{"query": search}},
		{"get_concept_path (tool call, warm)", "get_concept_path", map[string]any{"from_concept": from, "to_concept": to}},
	}
	// The ranked search index builds in the background once the index
	// is ready; search_notes waits for it, so the calls timed below do
	// not share the machine with that build.
	if _, err := s.call(ctx, "search_notes", map[string]any{"query": search}); err != nil {
		return figs, err
	}
	// Enough calls that the server's CPU per call carries its fair share
	// of the collections the calls' allocations bring on: a 50,000-note
	// server marks its whole index (about a second of CPU) every few tens
	// of megabytes allocated, so 30 calls held one collection or none, and
	// the figure swung between 1 and 12 ms from run to run.
	const calls = 150
	for _, tc := range toolCalls {
		answer, err := s.call(ctx, tc.tool, tc.args)
		if err != nil {
			return figs, err
		}
		cpu, cpuErr := s.cpuTime()
		client := cpuTime()
		d, err := timeIt(calls, func() error { _, err := s.call(ctx, tc.tool, tc.args); return err })
		if err != nil {
			return figs, err
		}
		client = cpuTime() - client
		// The server's CPU time per call tells on a loaded machine, where
		// the wall time also holds waits for a core. The client's (mcp-go's,
		// in this process) is the rest of the wall time: it decodes a large
		// answer several times over.
		note := fmt.Sprintf("text %.1f KB", float64(len(answer))/1024)
		if after, err := s.cpuTime(); err == nil && cpuErr == nil {
			note += fmt.Sprintf("; server CPU %s per call", fmtDuration((after-cpu)/calls))
		}
		note += fmt.Sprintf("; client CPU %s", fmtDuration(client/calls))
		figs = append(figs, figure{name: tc.name, got: d, budget: conceptBudget, note: note})
	}
	return figs, nil
}

// conceptsInProcess times the concept tools' typed functions (what the
// REST API calls) on the vault in dir, with an index of its own.
func conceptsInProcess(ctx context.Context, dir, focus, search, from, to string) ([]figure, error) {
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		return nil, err
	}
	ix := index.New(v, slog.New(slog.DiscardHandler))
	if err := ix.Build(ctx); err != nil {
		return nil, err
	}
	d := tools.Deps{Vault: v, Index: ix, ServerVersion: "bench"}
	depth := 3
	expand := tools.ExpandContextArgs{ConceptID: focus, MaxDepth: &depth}
	query := tools.SearchConceptsArgs{Query: search}
	path := tools.GetConceptPathArgs{FromConcept: from, ToConcept: to}

	// One call each first, to describe the work in the figures' names.
	ex, err := tools.ExpandConcept(ctx, d, expand)
	if err != nil {
		return nil, err
	}
	se, err := tools.FindConcepts(ctx, d, query)
	if err != nil {
		return nil, err
	}
	pa, err := tools.ConceptPath(ctx, d, path)
	if err != nil {
		return nil, err
	}
	if pa.Length == nil {
		return nil, fmt.Errorf("no path from %s to %s", from, to)
	}
	names := []string{
		fmt.Sprintf("expand_context depth 3 + text, %d of %d (in process)", len(ex.ContextNotes), ex.Total),
		fmt.Sprintf("search_concepts, %d of %d matches (in process)", se.Count, se.Total),
		fmt.Sprintf("get_concept_path, %d edges (in process)", *pa.Length),
	}
	calls := []func() error{
		func() error { _, err := tools.ExpandConcept(ctx, d, expand); return err },
		func() error { _, err := tools.FindConcepts(ctx, d, query); return err },
		func() error { _, err := tools.ConceptPath(ctx, d, path); return err },
	}
	var figs []figure
	for i, fn := range calls {
		d, err := timeIt(50, fn)
		if err != nil {
			return figs, err
		}
		figs = append(figs, figure{name: names[i], got: d, budget: conceptBudget})
	}
	return figs, nil
}
