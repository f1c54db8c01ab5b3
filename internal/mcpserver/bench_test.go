package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"vaultmcp/internal/vaultgen"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// BenchmarkOutputValidation prices checking answers against their output
// schemas, which New leaves to tests (WithOutputValidation): the same
// calls, on a generated 2,000-note vault, with and without it.
func BenchmarkOutputValidation(b *testing.B) {
	v, ix, logger, _ := benchVault(b, vaultgen.Options{Notes: 2000, Seed: 1})
	calls := []struct{ name, params string }{
		{"get_backlinks", `{"name":"get_backlinks","arguments":{"note_name":"Hub"}}`},
		{"get_broken_links", `{"name":"get_broken_links","arguments":{}}`},
		{"get_tags", `{"name":"get_tags","arguments":{}}`},
	}
	for _, validate := range []bool{false, true} {
		var opts []Option
		if validate {
			opts = append(opts, WithOutputValidation())
		}
		s, err := New(tools.Deps{Vault: v, Index: ix, Logger: logger}, "bench", opts...)
		if err != nil {
			b.Fatal(err)
		}
		s.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"0"}}}`))
		for _, c := range calls {
			msg := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + c.params + `}`)
			b.Run(fmt.Sprintf("%s/validate=%v", c.name, validate), func(b *testing.B) {
				for b.Loop() {
					// Encoding the response is part of every call's cost.
					if _, err := json.Marshal(s.HandleMessage(context.Background(), msg)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkStartAnswers prices what a session's first answers cost the
// server in process: assembling it (New, part of every start) and
// answering tools/list, the answer encoded as a transport sends it.
func BenchmarkStartAnswers(b *testing.B) {
	v, err := vault.Open(b.TempDir(), vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	d := tools.Deps{Vault: v, Index: index.New(v, logger), Logger: logger}
	b.Run("New", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := New(d, "bench"); err != nil {
				b.Fatal(err)
			}
		}
	})
	s, err := New(d, "bench")
	if err != nil {
		b.Fatal(err)
	}
	list := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	b.Run("tools/list", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(s.HandleMessage(context.Background(), list)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchVault generates a vault with opts plus a note Hub.md that the
// first 500 notes link to (so get_backlinks returns a full default
// page), and indexes it.
func benchVault(b *testing.B, opts vaultgen.Options) (*vault.Vault, *index.Index, *slog.Logger, *vaultgen.Vault) {
	b.Helper()
	dir := b.TempDir()
	gen, err := vaultgen.Generate(dir, opts)
	if err != nil {
		b.Fatal(err)
	}
	for _, rel := range gen.Paths[:500] {
		f, err := os.OpenFile(filepath.Join(dir, rel), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintln(f, "[[Hub]]")
		f.Close()
	}
	if err := os.WriteFile(filepath.Join(dir, "Hub.md"), []byte("# Hub\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ix := index.New(v, logger)
	if err := ix.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	return v, ix, logger, gen
}
