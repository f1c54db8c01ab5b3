package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"vaultmcp/gitsync"
	"vaultmcp/internal/answer"
	"vaultmcp/tools"
	"vaultmcp/vault/guidance"
)

// Every tool's answer, encoded once by package answer (as the stdio
// transport writes it), is byte for byte what json.Marshal makes of it
// (as mcp-go writes it): each tool called without arguments (mostly
// argument errors), and calls whose answers hold text and structured
// content with characters JSON escapes.
func TestToolAnswersAsMCPGo(t *testing.T) {
	r := newRig(t, map[string]string{
		"Home.md":  "# Home <b> & \"q\" \\\n\nSee [[Other]] and [x](<Other.md>).\u2028 雪 é #tag\n",
		"Other.md": "---\ntags: [a]\n---\n# Other\n\nBack to [[Home]] & [[Missing]].\n",
		"c/ml.md":  "---\nprefLabel: Machine <Learning>\ndefinition: From data & more\n---\n# ML\n\nText <x> & y.\n",
		"c/sl.md":  "---\nprefLabel: Supervised\nbroader: [[ml]]\n---\n# SL\n",
	})
	d := tools.Deps{Vault: r.v, Index: r.ix, Git: &gitsync.Repo{}, Logger: quiet, Changes: r.feed}
	d.Guidance = guidance.New(d.Vault, guidance.Options{Changes: d.Changes})
	s, err := New(d, "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s.HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
	var calls [][2]string
	for _, tool := range s.ListTools() {
		calls = append(calls, [2]string{tool.Tool.Name, `{}`})
	}
	calls = append(calls,
		[2]string{"read_file", `{"path":"Home.md"}`},
		[2]string{"get_backlinks", `{"path":"Home.md"}`},
		[2]string{"get_broken_links", `{}`},
		[2]string{"find_links", `{"path":"Other.md"}`},
		[2]string{"get_tags", `{}`},
		[2]string{"grep", `{"pattern":"<b>"}`},
		[2]string{"expand_context", `{"concept_id":"ml","max_depth":3}`},
		[2]string{"search_concepts", `{"query":"learning"}`},
		[2]string{"get_concept", `{"concept_id":"sl"}`},
		[2]string{"read_file", `{"path":"Nope.md"}`},
	)
	escaped := 0 // structured answers holding an escaped <
	for i, c := range calls {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i+1, c[0], c[1])
		resp := s.HandleMessage(ctx, json.RawMessage(msg))
		want, err := json.Marshal(resp)
		if err != nil {
			t.Fatalf("%s %s: %v", c[0], c[1], err)
		}
		var got bytes.Buffer
		if err := answer.WriteLine(&got, resp); err != nil {
			t.Fatalf("%s %s: %v", c[0], c[1], err)
		}
		if !bytes.Equal(got.Bytes(), append(want, '\n')) {
			t.Errorf("%s %s:\n got %.400s\nwant %.400s", c[0], c[1], got.Bytes(), want)
		}
		if bytes.Contains(want, []byte(`"structuredContent"`)) && bytes.Contains(want, []byte(`\u003c`)) {
			escaped++
		}
	}
	if escaped < 3 {
		t.Errorf("only %d structured answers with an escaped <: the calls test too little", escaped)
	}
}
