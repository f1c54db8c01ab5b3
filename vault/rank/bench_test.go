package rank

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"vaultmcp/internal/testutil"
	"vaultmcp/internal/vaultgen"
)

var benchVault struct {
	once sync.Once
	dir  string
	gen  *vaultgen.Vault
	s    *Searcher
	err  error
}

// benchSearcher is a searcher over a varied 10,000-note vault (about 20
// MB), made once per run; the vault is removed when the run ends (see
// TestMain).
func benchSearcher(b *testing.B) (*vaultgen.Vault, *Searcher) {
	benchVault.once.Do(func() {
		dir, err := os.MkdirTemp("", "rank-bench-")
		if err != nil {
			benchVault.err = err
			return
		}
		benchVault.dir = dir
		dir = filepath.Join(dir, "vault")
		if benchVault.gen, benchVault.err = vaultgen.Generate(dir, vaultgen.Options{Notes: 10000, Seed: 1, Varied: true}); benchVault.err != nil {
			return
		}
		_, benchVault.s = newSearcher(b, dir)
		_, benchVault.err = benchVault.s.Search(context.Background(), Query{Text: "warm"})
	})
	if benchVault.err != nil {
		b.Fatal(benchVault.err)
	}
	return benchVault.gen, benchVault.s
}

// TestMain removes the benchmarks' generated vault.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchVault.dir != "" {
		os.RemoveAll(benchVault.dir)
	}
	os.Exit(code)
}

func benchSearch(b *testing.B, text func(v *vaultgen.Vault) string) {
	v, s := benchSearcher(b)
	q := Query{Text: text(v)}
	ctx := context.Background()
	b.ReportAllocs()
	cpu := testutil.CPUTime()
	for b.Loop() {
		if res, err := s.Search(ctx, q); err != nil || res.Total == 0 {
			b.Fatal(res.Total, err)
		}
	}
	// CPU time rather than wall time tells on a loaded machine.
	b.ReportMetric(float64(testutil.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkSearchRareName searches for a Greek note name (vaultbench's
// rare name): one rare word, one common in Greek notes.
func BenchmarkSearchRareName(b *testing.B) {
	benchSearch(b, func(v *vaultgen.Vault) string { return v.Name(1237) })
}

func BenchmarkSearchCommonWords(b *testing.B) {
	benchSearch(b, func(*vaultgen.Vault) string { return "review draft" })
}
