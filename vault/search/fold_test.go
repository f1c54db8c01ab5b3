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

func TestFoldAligned(t *testing.T) {
	tests := []struct {
		in, want string
		aligned  bool
	}{
		{"Hello World", "hello world", true},
		{"ÄRGER Über", "ärger über", true},
		{"bad \xff byte", "bad \xff byte", true},
		{"Kelvin \u212A", "", false},
		{"日本語 ΣΑΣ", foldString("日本語 ΣΑΣ"), true},
	}
	for _, tt := range tests {
		got := foldAligned([]byte(tt.in))
		if (got != nil) != tt.aligned {
			t.Errorf("foldAligned(%q) aligned = %v, want %v", tt.in, got != nil, tt.aligned)
			continue
		}
		if tt.aligned && string(got) != tt.want {
			t.Errorf("foldAligned(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if tt.aligned && string(got) != foldString(tt.in) {
			t.Errorf("foldAligned(%q) = %q, foldString gives %q", tt.in, got, foldString(tt.in))
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
		if a := foldAligned([]byte(s)); a != nil && string(a) != folded {
			t.Fatalf("foldAligned(%q) = %q, foldString = %q", s, a, folded)
		}
		if utf8.ValidString(s) && !utf8.ValidString(folded) {
			t.Fatalf("folding %q made invalid UTF-8", s)
		}
	})
}
