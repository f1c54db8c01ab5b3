package search

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestLooseSpan(t *testing.T) {
	tests := []struct {
		text, query string
		fold        bool
		want        string // "" for none
	}{
		{"# Café crème 00015", "cafe creme", true, "Café crème"},
		{"Le cafe\u0301 e\u0301tait", "cafe etait", true, "café était"},
		{"Le cafe\u0301 e\u0301tait", "CAFÉ", true, "café"},
		{"Le café", "Cafe", false, ""},
		{"Le Café", "Cafe", false, "Café"},
		{"cafe\u0301\u0327x", "cafe", true, "caf\u0229\u0301"}, // marks kept, in NFC's order
		{"naïve coöperation", "naive cooperation", true, "naïve coöperation"},
		{"Ærø", "aero", true, ""}, // Æ is a letter of its own, not A with a mark
		{"abc", "\u0301", true, ""},
		{"", "a", true, ""},
	}
	for _, tt := range tests {
		got, _ := LooseSpan(tt.text, tt.query, tt.fold)
		if got != tt.want {
			t.Errorf("LooseSpan(%q, %q, %v) = %q, want %q", tt.text, tt.query, tt.fold, got, tt.want)
		}
	}
}

// FuzzLooseSpan: text that holds the query as it is is found, the span
// found holds whole runes, and loose matching finds a line exactly when
// LooseSpan finds text in it.
func FuzzLooseSpan(f *testing.F) {
	f.Add("Le cafe\u0301 e\u0301tait\nCafé", "cafe etait")
	f.Add("ÉTÉ été", "ete")
	f.Add("a\u0301\u0301b", "ab")
	f.Fuzz(func(t *testing.T, text, query string) {
		if !utf8.ValidString(query) {
			return
		}
		span, ok := LooseSpan(text, query, true)
		if ok && !utf8.ValidString(span) && utf8.ValidString(text) {
			t.Fatalf("LooseSpan(%q, %q) = %q: not whole runes", text, query, span)
		}
		first, _ := utf8.DecodeRuneInString(query)
		if !ok && query != "" && !unicode.Is(unicode.Mn, first) && strings.Contains(text, query) && utf8.ValidString(text) {
			t.Fatalf("LooseSpan(%q, %q) found nothing, but the text holds the query", text, query)
		}
	})
}
