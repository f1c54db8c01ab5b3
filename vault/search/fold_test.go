package search

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestCanonIsPerOrbit(t *testing.T) {
	// Every member of an orbit folds to the same rune, and ASCII letters
	// fold to lower case.
	for r := rune(0); r < 0x20000; r++ {
		c := canon(r)
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if canon(f) != c {
				t.Fatalf("canon(%q) = %q but canon(%q) = %q", r, c, f, canon(f))
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		if canon(c) != unicode.ToLower(c) || canon(unicode.ToLower(c)) != unicode.ToLower(c) {
			t.Errorf("canon(%q) = %q", c, canon(c))
		}
	}
}

func FuzzFold(f *testing.F) {
	f.Add("Hello \u212A ß ẞ \xff")
	f.Fuzz(func(t *testing.T, s string) {
		folded := foldString(s)
		if foldString(folded) != folded {
			t.Fatalf("folding %q is not idempotent", s)
		}
		if utf8.ValidString(s) && !utf8.ValidString(folded) {
			t.Fatalf("folding %q made invalid UTF-8", s)
		}
	})
}
