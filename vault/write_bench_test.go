//go:build unix

package vault_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"vaultmcp/gitsync"
	"vaultmcp/internal/testutil"
	"vaultmcp/internal/vaultgen"
	"vaultmcp/vault"
	"vaultmcp/vault/changes"
	"vaultmcp/vault/index"
)

// BenchmarkWriteCommitted is write_file's path in process, wired as the
// server wires it: the vault's write, gitsync's commit and the index
// refresh of the note, on a generated varied vault of 10,000 notes
// (VAULTMCP_BENCH_NOTES changes that) committed and packed as a clone
// is, under the server's default memory limit (100 MiB), so collection
// costs what it costs in the server. Each write replaces a note with
// 2 KB. It reports the median and p90 latency and the process's CPU time
// (user and system, collection and background work included) per write,
// durably (fsync) and without flushing. Profile it with -cpuprofile.
func BenchmarkWriteCommitted(b *testing.B) {
	notes := 10000
	if n, err := strconv.Atoi(os.Getenv("VAULTMCP_BENCH_NOTES")); err == nil && n > 0 {
		notes = n
	}
	dir := b.TempDir()
	gen, err := vaultgen.Generate(dir, vaultgen.Options{Notes: notes, Seed: 7, Varied: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := vaultgen.CommitPacked(dir); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(slog.DiscardHandler)
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	feed := &changes.Feed{Logger: logger}
	v.Observe(feed.Publish)
	ix := index.New(v, logger)
	feed.Listen(ix.Changed)
	if err := ix.Build(ctx); err != nil {
		b.Fatal(err)
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(100 << 20))
	body := strings.Repeat("written again\n", 2048/14)
	seq := 0
	for _, mode := range []struct {
		name    string
		noFsync bool
	}{{"fsync", false}, {"nofsync", true}} {
		b.Run(mode.name, func(b *testing.B) {
			repo, err := gitsync.Open(ctx, gitsync.Options{Dir: dir, Locker: v.Locker(), Changed: feed.PublishPaths,
				Logger: logger, SyncInterval: -1, GCInterval: -1, NoFsync: mode.noFsync})
			if err != nil {
				b.Fatal(err)
			}
			defer repo.Close()
			if err := repo.CheckIndex(); err != nil {
				b.Fatal(err)
			}
			v.SetRecorder(repo)
			repo.Start(ctx)
			runtime.GC()
			var ds []time.Duration
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			alloc, gcs := ms.TotalAlloc, ms.NumGC
			cpu := testutil.CPUTime()
			for b.Loop() {
				seq++
				start := time.Now()
				w, err := v.WriteFileMode(ctx, gen.Paths[seq%len(gen.Paths)], []byte(fmt.Sprintf("# Edit %d\n%s", seq, body)), vault.Overwrite)
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
				if w.Commit == "" {
					b.Fatal("no commit")
				}
			}
			b.ReportMetric(float64(testutil.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.TotalAlloc-alloc)/float64(b.N)/1024, "alloc-KB/op")
			b.ReportMetric(float64(ms.NumGC-gcs)/float64(b.N), "gc/op")
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "ms-median")
			b.ReportMetric(float64(ds[len(ds)*9/10].Microseconds())/1000, "ms-p90")
		})
	}
}
