package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"vaultmcp/internal/mcpwire/answer"
	"vaultmcp/internal/testutil"
	"vaultmcp/internal/vaultgen"
	"vaultmcp/tools"
)

// BenchmarkToolCall is a tool call's whole cost at the server: mcp-go's
// HandleMessage (arguments checked, the middlewares, the tool's work, its
// answer built) and the response encoded to the bytes written out, as
// mcp-go encodes it (json.Marshal) and as the stdio transport does
// (answer-*, package answer). The vault is generated with 5,000
// concept notes (a fan-out-4 broader tree) and a note 500 others link
// to, so each call returns a full default answer. b.ReportMetric adds
// the answer's size, which most of the cost beyond the work follows.
func BenchmarkToolCall(b *testing.B) {
	const notes, concepts = 5000, 5000
	v, ix, logger, gen := benchVault(b, vaultgen.Options{Notes: notes, Concepts: concepts, Seed: 4})
	s, err := New(tools.Deps{Vault: v, Index: ix, Logger: logger, ServerVersion: "bench"}, "bench")
	if err != nil {
		b.Fatal(err)
	}
	s.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"0"}}}`))
	// As vaultbench's concepts section: concept 5 is near the top of the
	// tree, so a walk of depth 3 reaches about a hundred concepts.
	focus := vaultgen.ConceptID(5, notes, concepts)
	calls := []struct{ name, tool, args string }{
		{"expand_context", "expand_context", `{"concept_id":"` + focus + `"}`},
		{"expand_context/depth3", "expand_context", `{"concept_id":"` + focus + `","max_depth":3}`},
		{"expand_context/limit50", "expand_context", `{"concept_id":"` + focus + `","max_depth":3,"limit":50,"max_content":60000}`},
		{"expand_context/no_content", "expand_context", `{"concept_id":"` + focus + `","max_depth":3,"include_content":false}`},
		{"search_concepts", "search_concepts", `{"query":"memory graph"}`},
		{"get_backlinks", "get_backlinks", `{"note_name":"Hub"}`},
		{"get_tags", "get_tags", `{}`},
		{"query_notes", "query_notes", `{"filter":{"tags":["project"]},"sort":"-modified"}`},
		{"read_file", "read_file", `{"path":"` + gen.Paths[1] + `"}`},
	}
	for _, c := range calls {
		msg := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + c.tool + `","arguments":` + c.args + `}}`)
		out, err := json.Marshal(s.HandleMessage(context.Background(), msg))
		if err != nil {
			b.Fatal(err)
		}
		if !json.Valid(out) || json.Unmarshal(out, &struct{}{}) != nil {
			b.Fatalf("%s: answer is not JSON", c.name)
		}
		var probe struct {
			Result struct {
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(out, &probe); err != nil || probe.Result.IsError {
			b.Fatalf("%s: %s", c.name, out[:min(len(out), 500)])
		}
		b.Run(c.name, func(b *testing.B) {
			cpu := int64(testutil.CPUTime())
			for b.Loop() {
				if _, err := json.Marshal(s.HandleMessage(context.Background(), msg)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(int64(testutil.CPUTime())-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(len(out)), "answer-bytes")
		})
		// The same answered as the stdio transport answers it now:
		// encoded once into a reused buffer (package answer).
		b.Run("answer-"+c.name, func(b *testing.B) {
			cpu := int64(testutil.CPUTime())
			for b.Loop() {
				if err := answer.WriteLine(io.Discard, s.HandleMessage(context.Background(), msg)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(int64(testutil.CPUTime())-cpu)/float64(b.N), "cpu-ns/op")
		})
		// What mcp-go's stdio client then does to read the answer (its
		// transport's two decodes of the line, then ParseCallToolResult),
		// which a client's timing of the call includes.
		b.Run("client-"+c.name, func(b *testing.B) {
			cpu := int64(testutil.CPUTime())
			for b.Loop() {
				var base struct {
					JSONRPC string         `json:"jsonrpc"`
					ID      *mcp.RequestId `json:"id,omitempty"`
					Method  string         `json:"method,omitempty"`
				}
				if err := json.Unmarshal(out, &base); err != nil {
					b.Fatal(err)
				}
				var resp transport.JSONRPCResponse
				if err := json.Unmarshal(out, &resp); err != nil {
					b.Fatal(err)
				}
				raw := json.RawMessage(resp.Result)
				if _, err := mcp.ParseCallToolResult(&raw); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(int64(testutil.CPUTime())-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
