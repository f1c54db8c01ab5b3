package search

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"vaultmcp/internal/vaultgen"
	"vaultmcp/vault"
)

var benchVault struct {
	once sync.Once
	dir  string
	v    *vault.Vault
	err  error
}

// TestMain removes the benchmarks' generated vault.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchVault.dir != "" {
		os.RemoveAll(benchVault.dir)
	}
	os.Exit(code)
}

// generatedVault is a 10,000-note vault (about 20 MB), made once per run.
func generatedVault(b *testing.B) *vault.Vault {
	benchVault.once.Do(func() {
		dir, err := os.MkdirTemp("", "search-bench-")
		if err != nil {
			benchVault.err = err
			return
		}
		benchVault.dir = dir
		dir = filepath.Join(dir, "vault")
		if _, err := vaultgen.Generate(dir, vaultgen.Options{Notes: 10000, Seed: 1}); err != nil {
			benchVault.err = err
			return
		}
		benchVault.v, benchVault.err = vault.Open(dir, vault.Options{})
	})
	if benchVault.err != nil {
		b.Fatal(benchVault.err)
	}
	return benchVault.v
}

func benchGrep(b *testing.B, memory bool, q GrepQuery) {
	v := generatedVault(b)
	opts := Options{}
	if memory {
		opts.Texts = loadTexts(b, v)
	}
	e := New(v, opts)
	ctx := context.Background()
	if _, err := e.Grep(ctx, q); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Grep(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGrepLiteralMemory(b *testing.B) {
	benchGrep(b, true, GrepQuery{Query: "Note 01234", CaseSensitive: true})
}

func BenchmarkGrepRegexMemory(b *testing.B) {
	benchGrep(b, true, GrepQuery{Query: `Note 0123\d`, Regex: true, CaseSensitive: true})
}

func BenchmarkGrepFoldMemory(b *testing.B) {
	benchGrep(b, true, GrepQuery{Query: "note 01234"})
}

func BenchmarkGrepLiteralDisk(b *testing.B) {
	benchGrep(b, false, GrepQuery{Query: "Note 01234", CaseSensitive: true})
}

func BenchmarkGlob(b *testing.B) {
	e := New(generatedVault(b), Options{})
	for b.Loop() {
		if _, err := e.Glob(context.Background(), GlobQuery{Pattern: "**/topic-03/*.md"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGrepAccentHintMemory prices the second pass an empty grep
// answer makes to look for the query ignoring accents.
func BenchmarkGrepAccentHintMemory(b *testing.B) {
	benchGrep(b, true, GrepQuery{Query: "cafe creme etait", IgnoreAccents: true, Limit: 1})
}

// BenchmarkGrepNonASCIIMemory is a query with accents, searched in both
// Unicode forms.
func BenchmarkGrepNonASCIIMemory(b *testing.B) {
	benchGrep(b, true, GrepQuery{Query: "café crème"})
}
