//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"vaultmcp/internal/config"
	"vaultmcp/internal/mcpserver"
	"vaultmcp/internal/memlimit"
	"vaultmcp/internal/testutil"
	"vaultmcp/internal/vaultgen"
	"vaultmcp/vault"
	"vaultmcp/vault/access"
)

// BenchmarkWriteTools is a write tool call's whole cost in a server wired
// as serve wires it (openCore: the vault, its index, the ranked search,
// git; the soft memory limit; mcp-go's HandleMessage with every
// middleware) on a generated varied vault of 10,000 notes
// (VAULTMCP_BENCH_NOTES changes that), committed and packed as a clone
// is, once the index and the ranked search are built and the query
// table filled, as on vaultbench's notes section's server. The calls
// are those of vaultbench: write_file of a short note (the git section),
// write_file of 2 KB of new content, the same with the if_version a read
// returned, and patch_note prepending a line under a note's heading (the
// notes section). Each reports the median
// and p90 latency, the process's CPU time per call (collection and
// background work included), the bytes allocated and the collections
// per call. Profile it with -cpuprofile. The calls run in that order on
// one repository, as vaultbench's git section runs after its notes
// section's: the first ones also create the object folders
// (.git/objects/xx) that a packed repository lacks, so compare a call
// with itself across builds, not with the others.
func BenchmarkWriteTools(b *testing.B) {
	notes := 10000
	if n, err := strconv.Atoi(os.Getenv("VAULTMCP_BENCH_NOTES")); err == nil && n > 0 {
		notes = n
	}
	dir := b.TempDir()
	gen, err := vaultgen.Generate(dir, vaultgen.Options{Notes: notes, Seed: 1, Varied: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := vaultgen.CommitPacked(dir); err != nil {
		b.Fatal(err)
	}
	b.Setenv("VAULTMCP_GIT_SYNC_INTERVAL", "0")
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	config.Flags(fs)
	if err := fs.Parse([]string{"--vault", dir}); err != nil {
		b.Fatal(err)
	}
	cfg, err := config.Load(fs)
	if err != nil {
		b.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	defer memlimit.Start(cfg.Limits.MemoryBytes, "", logger).Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := openCore(ctx, cfg, logger)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	s, err := mcpserver.New(c.deps, version, mcpserver.WithStartGate(c.Started(), c.Begin))
	if err != nil {
		b.Fatal(err)
	}
	scope, err := access.New(serverScope, access.Rules{})
	if err != nil {
		b.Fatal(err)
	}
	ctx = access.With(ctx, scope)
	id := 0
	call := func(tool string, args map[string]any) string {
		id++
		params, err := json.Marshal(map[string]any{"name": tool, "arguments": args})
		if err != nil {
			b.Fatal(err)
		}
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, params)
		out, err := json.Marshal(s.HandleMessage(ctx, json.RawMessage(msg)))
		if err != nil {
			b.Fatal(err)
		}
		var probe struct {
			Result struct {
				IsError bool `json:"isError"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(out, &probe); err != nil || probe.Result.IsError || probe.Error != nil {
			b.Fatalf("%s: %s", tool, out[:min(len(out), 500)])
		}
		return string(out)
	}
	s.HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"0"}}}`))
	c.Begin()
	// Both builds done (search_notes waits for them), the query table
	// filled, and the start's background work over.
	call("search_notes", map[string]any{"query": "warm"})
	call("query_notes", map[string]any{"filter": map[string]any{"tags": "project"}})
	time.Sleep(2 * time.Second)
	runtime.GC()

	seq := 0
	calls := []struct {
		name string
		args func(i int) (string, map[string]any)
	}{
		// The write_file calls take the notes of even index and
		// patch_note those of odd index: a note write_file replaced has
		// lost the heading patch_note targets, which in a small vault
		// (VAULTMCP_BENCH_NOTES=200) the calls would otherwise reach.
		{"write_file/short", func(i int) (string, map[string]any) {
			k := 2 * ((150 + i) % (len(gen.Paths) / 2))
			return "write_file", map[string]any{"path": gen.Paths[k], "content": fmt.Sprintf("# Edited %d\n\nbench write %d\n", i, i)}
		}},
		{"write_file/2KB", func(i int) (string, map[string]any) {
			k := 2 + 2*(i%(len(gen.Paths)/2-1))
			return "write_file", map[string]any{"path": gen.Paths[k], "content": fmt.Sprintf("written %d\n", i) + strings.Repeat("written\n", 259)}
		}},
		// The same write made conditional, as an agent writing back what
		// it read does: the version is the client's (read before the
		// clock starts); the server hashes the note under its lock.
		{"write_file/2KB-if_version", func(i int) (string, map[string]any) {
			k := 2 + 2*(i%(len(gen.Paths)/2-1))
			data, err := os.ReadFile(filepath.Join(dir, gen.Paths[k]))
			if err != nil {
				b.Fatal(err)
			}
			return "write_file", map[string]any{"path": gen.Paths[k], "content": fmt.Sprintf("written %d\n", i) + strings.Repeat("written\n", 259), "if_version": vault.Version(data)}
		}},
		{"patch_note", func(i int) (string, map[string]any) {
			k := 1 + 2*(i%(len(gen.Paths)/2-1))
			return "patch_note", map[string]any{"path": gen.Paths[k], "target_type": "heading", "target": gen.Name(k), "operation": "prepend", "content": "patched"}
		}},
	}
	for _, cl := range calls {
		b.Run(cl.name, func(b *testing.B) {
			var ds []time.Duration
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			alloc, gcs := ms.TotalAlloc, ms.NumGC
			cpu := testutil.CPUTime()
			for b.Loop() {
				seq++
				tool, args := cl.args(seq)
				start := time.Now()
				call(tool, args)
				ds = append(ds, time.Since(start))
			}
			b.ReportMetric(float64(testutil.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.TotalAlloc-alloc)/float64(b.N)/1024, "alloc-KB/op")
			b.ReportMetric(float64(ms.NumGC-gcs)/float64(b.N), "gc/op")
			slices.Sort(ds)
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "ms-median")
			b.ReportMetric(float64(ds[len(ds)*9/10].Microseconds())/1000, "ms-p90")
		})
	}
}
