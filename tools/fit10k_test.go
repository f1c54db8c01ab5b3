package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vaultmcp/internal/mcpserver"
	"vaultmcp/internal/tokens"
	"vaultmcp/internal/vaultgen"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// TestDefaultAnswersFit calls every tool with its default arguments on the
// generated 10,000-note vault, plus a note linked from 2,000 others and a
// 1 MB note, and checks that no answer passes the result ceiling or the
// ~100 KB (25k-token) page target.
func TestDefaultAnswersFit(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 10,000-note vault")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	gen, err := vaultgen.Generate(dir, vaultgen.Options{Notes: 10000, Seed: 1})
	t.Logf("generated in %v", time.Since(start))
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range gen.Paths[:2000] {
		f, err := os.OpenFile(filepath.Join(dir, rel), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(f, "Back to [[Hub]], see [[Hub#Top|the hub]].")
		f.Close()
	}
	write := func(rel, content string) {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Hub.md", "# Hub\n")
	write("big.md", strings.Repeat("A long line of a very large note, with [[Hub]] in it.\n", 20000))
	write("scratch.md", "one two\n")
	write("to-rename.md", "r\n")
	write("to-delete.md", "d\n")

	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ix := index.New(v, logger)
	v.Observe(ix.Refresh)
	start = time.Now()
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("indexed in %v", time.Since(start))
	d := tools.Deps{Vault: v, Index: ix, Logger: logger}
	s, err := mcpserver.New(d, "test", mcpserver.WithOutputValidation())
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, root: dir, v: v, s: s}
	h.rpc("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}`)

	// The arguments a client would give when it wants "everything".
	calls := map[string][]string{
		"read_file":        {`{"path":"big.md"}`, fmt.Sprintf(`{"path":%q}`, gen.Paths[0])},
		"write_file":       {`{"path":"new.md","content":"x"}`},
		"edit_file":        {`{"path":"scratch.md","old_text":"one","new_text":"1"}`},
		"rename_file":      {`{"old_path":"to-rename.md","new_path":"renamed.md"}`},
		"delete_file":      {`{"path":"to-delete.md"}`},
		"create_directory": {`{"path":"made"}`},
		"list_directory":   {`{"path":""}`, `{"path":"","recursive":true}`},
		"search_files":     {`{"pattern":"*"}`},
		"grep":             {`{"query":"note"}`, `{"query":"e","context_lines":5}`, `{"query":"e","output":"count"}`},
		"find_files":       {`{}`},
		"get_backlinks":    {`{"note_name":"Hub"}`, `{"path":"Hub.md"}`},
		"get_broken_links": {`{}`},
		"find_links":       {`{"path":"Hub.md"}`, `{"path":"big.md","direction":"outlinks"}`},
		"get_tags":         {`{}`, `{"include_parents":true}`},
	}
	ceiling := d.ResultLimit()
	const target = tools.DefaultPageTokens + 1000 // the page, plus its other fields and notice
	resp := h.rpc("tools/list", `{}`)
	list, _ := resp["result"].(map[string]any)["tools"].([]any)
	for _, x := range list {
		tool := x.(map[string]any)
		name := tool["name"].(string)
		args, ok := calls[name]
		if !ok {
			// A tool this table does not know: with no required argument,
			// its default answer is measured too.
			if req, _ := tool["inputSchema"].(map[string]any)["required"].([]any); len(req) > 0 {
				t.Logf("%s: not measured (it needs arguments this test does not know)", name)
				continue
			}
			args = []string{`{}`}
		}
		for _, a := range args {
			start := time.Now()
			size, toks := answerSize(t, h, name, a)
			t.Logf("%-16s %-45s %7d bytes %6d tokens %v", name, a, size, toks, time.Since(start))
			if size > ceiling || toks > target {
				t.Errorf("%s %s: %d bytes, %d estimated tokens: over the %d-token page target or the %d-byte ceiling", name, a, size, toks, target, ceiling)
			}
		}
	}
}

// answerSize is a successful answer's size as the ceiling measures it,
// the larger of its text and its structured content, and the larger one's
// estimated tokens (package internal/tokens).
func answerSize(t *testing.T, h *harness, tool, args string) (size, toks int) {
	t.Helper()
	resp := h.rpc("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
	res, _ := resp["result"].(map[string]any)
	if res["isError"] == true {
		t.Errorf("%s %s failed: %v", tool, args, res["content"])
	}
	var text strings.Builder
	for _, c := range res["content"].([]any) {
		s, _ := c.(map[string]any)["text"].(string)
		text.WriteString(s)
	}
	var structured []byte
	if sc, ok := res["structuredContent"]; ok {
		structured, _ = json.Marshal(sc)
	}
	return max(text.Len(), len(structured)), max(tokens.Estimate(text.String()), tokens.Estimate(structured))
}
