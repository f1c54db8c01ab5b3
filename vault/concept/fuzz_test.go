package concept_test

import (
	"strings"
	"testing"

	"vaultmcp/vault/concept"
	"vaultmcp/vault/markdown"
)

// FuzzExtract feeds arbitrary relation values through the frontmatter
// parser and the extractor: nothing panics, and every target is a trimmed,
// non-empty name without wikilink brackets.
func FuzzExtract(f *testing.F) {
	for _, v := range []string{
		`[[Supervised Learning]]`,
		`"[[Supervised Learning|SL]]"`,
		`"[[A]], [[B]], c"`,
		"\n  - [[A]]\n  - \"[[B#h|x]]\"\n  - c",
		`[a, [b, [c]]]`,
		`"[t](<a b.md>), [u](c%20d.md#x)"`,
		`"[[A, B|x, y]], (p, q), ]],[[,"`,
		`{a: b}`,
		`&x [[A]]`,
		`"![[A\\|b]]"`,
		`"[[]]"`,
		`"[[#heading]]"`,
		`"[ ]( )"`,
		`"k-NN (k.Nearest Neighbors)"`,
		`"Régularisation, e\u0301tude"`,
	} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, value string) {
		src := "---\nprefLabel: X\nbroader: " + value + "\nrelated: " + value + "\nabout: " + value + "\n---\n"
		n := markdown.Parse([]byte(src))
		if !concept.IsConcept(n.Frontmatter) {
			return // YAML could not read it
		}
		c := concept.Extract(n.Properties(), "X")
		if c == nil {
			t.Fatal("a note with prefLabel is no concept")
		}
		for _, r := range concept.Declared {
			seen := map[string]bool{}
			for _, ref := range c.Relations[r] {
				checkTarget(t, ref.Target)
				if ref.Raw == "" {
					t.Fatalf("ref %+v has no Raw", ref)
				}
				f := concept.Fold(ref.Target)
				if seen[f] {
					t.Fatalf("target %q listed twice", ref.Target)
				}
				seen[f] = true
			}
		}
		if len(c.Relations[concept.Broader]) != len(c.Relations[concept.Related]) {
			t.Fatalf("same value, different targets: %v / %v", c.Relations[concept.Broader], c.Relations[concept.Related])
		}
		for _, a := range c.Schema.About {
			checkTarget(t, a)
		}
		id := concept.ID(value + ".md")
		if strings.ContainsAny(id, " -") || id != concept.Fold(id) {
			t.Fatalf("ID %q not in id form", id)
		}
	})
}

func checkTarget(t *testing.T, s string) {
	t.Helper()
	if s == "" || s != strings.TrimSpace(s) {
		t.Fatalf("target %q is empty or not trimmed", s)
	}
}

// FuzzParseRef: any string is read without panicking, and a target never
// keeps wikilink brackets it was written with.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"[[A]]", "![[A#b|c]]", "[t](a%20b.md)", "[t](<a b.md>)", "plain", "[[", "]]", "[[|]]", "[](%zz)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, ok := concept.ParseRef(s)
		if !ok {
			return
		}
		checkTarget(t, r.Target)
		if strings.HasPrefix(strings.TrimSpace(s), "[[") && strings.HasSuffix(strings.TrimSpace(s), "]]") && strings.Contains(r.Target, "|") {
			t.Fatalf("%q: target %q keeps the alias", s, r.Target)
		}
	})
}
