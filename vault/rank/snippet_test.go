package rank

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/internal/vaultgen"
	"vaultmcp/vault/markdown"
)

// snippetRef is snippet as first written, a string and a map per line:
// the reference the allocation-free one must agree with.
func snippetRef(content []byte, terms map[string]bool) (string, int) {
	offset := 0
	if _, _, body, ok := markdown.FrontmatterBounds(content); ok {
		offset = body
	}
	lineNo := 1 + strings.Count(string(content[:offset]), "\n")
	best, bestLine, bestScore, first := "", 0, 0, ""
	for _, line := range strings.SplitAfter(string(content[offset:]), "\n") {
		if line == "" {
			break
		}
		text := strings.TrimSpace(line)
		if text != "" {
			if first == "" {
				first = text
			}
			seen := map[string]bool{}
			tokens(text, func(t string) {
				if terms[t] {
					seen[t] = true
				}
			})
			if len(seen) > bestScore {
				best, bestLine, bestScore = text, lineNo, len(seen)
			}
		}
		lineNo++
	}
	if bestScore == 0 {
		return shorten(first, 0), 0
	}
	at := 0
	tokensAt(best, func(t string, pos int) bool {
		if terms[t] {
			at = pos
			return false
		}
		return true
	})
	return shorten(best, at), bestLine
}

// TestSnippetMatchesReference compares snippet with snippetRef on the
// notes of a small varied vault, for terms drawn from the notes.
func TestSnippetMatchesReference(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	v, err := vaultgen.Generate(dir, vaultgen.Options{Notes: 200, Seed: 7, Varied: true})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	extra := [][]byte{[]byte(""), []byte("\n\n"), []byte("---\ntitle: x\n---\n"), []byte("  \t\n  line\r\nCafé café\n"),
		[]byte("no newline at the end"), []byte("---\nbroken frontmatter\nΨυχοπομπός"), []byte("a\xffb zymurgy\n")}
	var all [][]byte
	for _, rel := range v.Paths {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, data)
	}
	all = append(all, extra...)
	for i, content := range all {
		var words []string
		tokens(string(content), func(t string) { words = append(words, t) })
		for k := range 4 {
			terms := map[string]bool{}
			for range k {
				if len(words) > 0 {
					terms[words[rng.IntN(len(words))]] = true
				}
			}
			for _, w := range vaultgen.RareWords {
				tokens(w, func(t string) { terms[t] = k%2 == 0 })
			}
			gotS, gotL := snippet(content, terms)
			wantS, wantL := snippetRef(content, terms)
			if gotS != wantS || gotL != wantL {
				t.Fatalf("note %d, terms %v: snippet = %q, %d; want %q, %d", i, terms, gotS, gotL, wantS, wantL)
			}
		}
	}
}
