package index

import (
	"log/slog"
	"runtime"
	"testing"

	"vaultmcp/internal/testutil"
	"vaultmcp/internal/vaultgen"
	"vaultmcp/vault"
)

// BenchmarkBuildVaried builds the index of a varied 10,000-note vault (the
// one cmd/vaultbench measures) from cold and reports, beside the time and
// the bytes allocated, the heap the index keeps (heap-MB) and the CPU time
// a build takes, collector included (cpu-ms/op): on a loaded machine the
// wall time says more about the neighbours than about the build.
func BenchmarkBuildVaried(b *testing.B) {
	dir := b.TempDir()
	if _, err := vaultgen.Generate(dir, vaultgen.Options{Notes: 10000, Seed: 1, Varied: true}); err != nil {
		b.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var kept, cpu int64
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		start := testutil.CPUTime()
		ix := New(v, slog.New(slog.DiscardHandler))
		if err := ix.Build(ctx); err != nil {
			b.Fatal(err)
		}
		cpu += int64(testutil.CPUTime() - start)
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(ix)
		kept = int64(after.HeapAlloc) - int64(before.HeapAlloc)
		b.StartTimer()
	}
	b.ReportMetric(float64(kept)/(1<<20), "heap-MB")
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkTexts walks every text of a 10,000-note vault, as grep does,
// with the index unchanged between walks.
func BenchmarkTexts(b *testing.B) {
	dir := b.TempDir()
	if _, err := vaultgen.Generate(dir, vaultgen.Options{Notes: 10000, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ix := New(v, slog.New(slog.DiscardHandler))
	if err := ix.Build(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		ix.Texts("", func(string, []byte) bool { n++; return true })
		if n != 10000 {
			b.Fatal(n)
		}
	}
}
