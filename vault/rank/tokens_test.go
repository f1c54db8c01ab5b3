package rank

import (
	"math/rand/v2"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestFoldTable checks what foldTable rests on, and that folding through
// it gives what folding by the definition does.
func TestFoldTable(t *testing.T) {
	// Below U+0800, a rune that canonical reordering can move (a nonzero
	// combining class) is a combining mark, which folding drops.
	for r := range rune(len(foldTable)) {
		if ccc := norm.NFD.PropertiesString(string(r)).CCC(); ccc != 0 && !unicode.Is(unicode.Mn, r) {
			t.Errorf("U+%04X has combining class %d but is not Mn", r, ccc)
		}
	}
	var fast, slow scanner
	check := func(word []byte) {
		t.Helper()
		if got, want := string(fast.fold(word)), string(slow.foldSlow(word)); got != want {
			t.Fatalf("fold(%q) = %q, want %q", word, got, want)
		}
	}
	for r := range rune(len(foldTable) + 64) {
		check(utf8.AppendRune(nil, r))
	}
	for _, w := range []string{"Café", "cafe\u0301", "ΣΗΜΕΊΩΣΗ", "Ψυχοπομπός", "Quetzalcóatl", "Straße", "İstanbul",
		"ǅemal", "ﬁle", "Ωmega", "e\u0301\u0327\u0301", "量子もつれ", "x\xffy", "ÅngströmΩ"} {
		check([]byte(w))
	}
	// Random words: runes mostly below U+0800 (combining marks
	// included), now and then one above or an invalid byte.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var w []byte
		for range 1 + rng.IntN(8) {
			switch k := rng.IntN(20); {
			case k == 0:
				w = append(w, 0xC3)
			case k == 1:
				w = utf8.AppendRune(w, 0x800+rng.Int32N(0x2000))
			case k < 6:
				w = utf8.AppendRune(w, 0x300+rng.Int32N(0x70))
			default:
				w = utf8.AppendRune(w, rng.Int32N(0x800))
			}
		}
		check(w)
	}
}

// TestIdeographicBelow: no rune below the first ideographic script needs
// the script tables.
func TestIdeographicBelow(t *testing.T) {
	for r := range rune(0x1100) {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			t.Errorf("U+%04X is ideographic", r)
		}
	}
}

// FuzzFold: folding through foldTable gives what folding by the
// definition does, for any bytes.
func FuzzFold(f *testing.F) {
	for _, w := range []string{"Café", "cafe\u0301", "ΣΗΜΕΊΩΣΗ", "Straße", "ǅ", "x\xffy", "e\u0301\u0327", "量子"} {
		f.Add([]byte(w))
	}
	f.Fuzz(func(t *testing.T, word []byte) {
		var fast, slow scanner
		if got, want := string(fast.fold(word)), string(slow.foldSlow(word)); got != want {
			t.Fatalf("fold(%q) = %q, want %q", word, got, want)
		}
	})
}
