package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"vaultmcp/internal/config"
	"vaultmcp/internal/memlimit"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// buildCommand is the hidden subcommand that builds one vault's index in
// a process of its own (see freshBuild). It is not listed by -h: it is
// the bench talking to itself.
const buildCommand = "index-build"

// freshBuildRuns is how many fresh processes build each vault's index for
// its figures (their medians): one build swings by a third on a shared
// machine.
const freshBuildRuns = 5

// buildReport is what a fresh build prints, as JSON, for the bench.
type buildReport struct {
	WallNS int64  `json:"wall_ns"` // index.New to Build's return
	CPUNS  int64  `json:"cpu_ns"`  // the process's CPU time (all threads) meanwhile
	Heap   uint64 `json:"heap_bytes"`
	Notes  int    `json:"notes"` // notes indexed, checked against those generated
}

// runBuildCommand is the child side of freshBuild: it opens the vault in
// dir as the server does at start (its configuration, loaded as `serve`
// loads it; the same soft memory limit; the same vault options and note
// size limit), builds the index once, and prints a buildReport on stdout.
// The server builds its index in a process that holds nothing else yet,
// and so does this one: the bench's own process has generated and
// committed vaults (the large one included) and holds their heap, which
// made an in-process build up to twice as slow.
func runBuildCommand(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("%s takes one vault folder, got %q", buildCommand, args)
	}
	cfg, err := config.Load(nil)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	defer memlimit.Start(cfg.Limits.MemoryBytes, os.Getenv("GOMEMLIMIT"), logger).Stop()
	v, err := vault.Open(args[0], cfg.VaultOptions())
	if err != nil {
		return err
	}
	defer v.Close()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := cpuTime()
	start := time.Now()
	ix := index.New(v, logger)
	ix.SetMaxNoteBytes(cfg.Limits.MaxNoteBytes)
	if err := ix.Build(context.Background()); err != nil {
		return fmt.Errorf("build the index of %s: %w", args[0], err)
	}
	wall := time.Since(start)
	cpu = cpuTime() - cpu
	// The heap the index keeps, not the garbage its build left.
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	stats, err := ix.Stats(context.Background())
	if err != nil {
		return err
	}
	rep := buildReport{WallNS: int64(wall), CPUNS: int64(cpu), Notes: stats.Notes}
	if after.HeapAlloc > before.HeapAlloc {
		rep.Heap = after.HeapAlloc - before.HeapAlloc
	}
	return json.NewEncoder(os.Stdout).Encode(rep)
}

// freshBuild builds the index of dir in a fresh process (the bench's own
// binary, built as the server is, running buildCommand) and returns what
// that process reports. Only the build itself is timed, inside the child:
// the child's start and the report's decoding are not.
func (e *env) freshBuild(ctx context.Context, dir string) (buildReport, error) {
	var rep buildReport
	cmd := exec.CommandContext(ctx, e.self, buildCommand, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return rep, fmt.Errorf("fresh index build of %s: %w: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return rep, fmt.Errorf("fresh index build of %s printed %q: %w", dir, out, err)
	}
	return rep, nil
}

// freshBuilds runs freshBuild runs times on dir, a vault of notes notes,
// and returns the medians of the wall time, the CPU time and the heap
// kept, each over the runs. A build that indexed fewer notes than the
// vault has is an error, not a figure.
func (e *env) freshBuilds(ctx context.Context, dir string, notes, runs int) (wall, cpu time.Duration, heap uint64, err error) {
	var walls, cpus, heaps []time.Duration
	for range runs {
		rep, err := e.freshBuild(ctx, dir)
		if err != nil {
			return 0, 0, 0, err
		}
		if rep.Notes < notes {
			return 0, 0, 0, fmt.Errorf("fresh index build of %s indexed %d notes, want %d", dir, rep.Notes, notes)
		}
		walls = append(walls, time.Duration(rep.WallNS))
		cpus = append(cpus, time.Duration(rep.CPUNS))
		heaps = append(heaps, time.Duration(rep.Heap))
	}
	return median(walls), median(cpus), uint64(median(heaps)), nil
}
