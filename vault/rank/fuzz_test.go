package rank

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSearch runs arbitrary query text against a small vault: no panic,
// hits in score order, snippets valid UTF-8 of bounded length, and every
// term the tokenizer makes non-empty and lowercase.
func FuzzSearch(f *testing.F) {
	for _, q := range []string{"gardening", "+soup -onions", `"a b" c*`, "京都", "-", "***", `"unclosed`, "Café", "x\x00y"} {
		f.Add(q)
	}
	_, s := newSearcher(f, writeFiles(f, map[string]string{
		"a.md": "---\naliases: [Soup]\n---\n# Gardening\nTomatoes, café, 京都 and " + strings.Repeat("long line ", 80),
		"b.md": "soup onions\n\n```\n# code\n```",
	}))
	f.Fuzz(func(t *testing.T, q string) {
		tokens(q, func(term string) {
			if term == "" || strings.ToLower(term) != term || len(term) > 4*maxTokenBytes {
				t.Fatalf("bad term %q from %q", term, q)
			}
		})
		res, err := s.Search(context.Background(), Query{Text: q, Limit: 5})
		if err != nil {
			return
		}
		if res.Total < len(res.Hits) {
			t.Fatalf("total %d < %d hits", res.Total, len(res.Hits))
		}
		for i, h := range res.Hits {
			if i > 0 && h.Score > res.Hits[i-1].Score {
				t.Fatalf("hits out of order: %+v", res.Hits)
			}
			if !utf8.ValidString(h.Snippet) || len(h.Snippet) > snippetBytes+16 {
				t.Fatalf("snippet %q", h.Snippet)
			}
		}
	})
}
