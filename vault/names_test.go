package vault

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

func TestNameForms(t *testing.T) {
	nfd := norm.NFD.String
	tests := []struct {
		in                 string
		nfc, folded, loose string
	}{
		{"Plain.md", "Plain.md", "plain.md", "plain.md"},
		{"", "", "", ""},
		{"Été 2026", "Été 2026", "été 2026", "ete 2026"},
		{nfd("Été 2026"), "Été 2026", "été 2026", "ete 2026"},
		{nfd("Zettel/Énergie décomposée.md"), "Zettel/Énergie décomposée.md", "zettel/énergie décomposée.md", "zettel/energie decomposee.md"},
		{"Straße", "Straße", "straße", "straße"},
		{"機械学習", "機械学習", "機械学習", "機械学習"},
		{"한국어", "한국어", "한국어", "한국어"},      // Hangul decomposes to jamo and comes back whole
		{nfd("한국어"), "한국어", "한국어", "한국어"}, // stored decomposed
		{"Ωmega", "Ωmega", "ωmega", "ωmega"},
	}
	for _, tt := range tests {
		if got := NFC(tt.in); got != tt.nfc {
			t.Errorf("NFC(%q) = %q, want %q", tt.in, got, tt.nfc)
		}
		if got := FoldName(tt.in); got != tt.folded {
			t.Errorf("FoldName(%q) = %q, want %q", tt.in, got, tt.folded)
		}
		if got := LooseName(tt.in); got != tt.loose {
			t.Errorf("LooseName(%q) = %q, want %q", tt.in, got, tt.loose)
		}
	}
}

// A name already in NFC comes back as it is: no copy for the common case.
func TestNFCNoCopy(t *testing.T) {
	s := "Projects/Été 2026/plan.md"
	if n := testing.AllocsPerRun(10, func() { _ = NFC(s) }); n != 0 {
		t.Errorf("NFC of an NFC name allocates %v times", n)
	}
}

// refCompare is CompareNames/ComparePaths by definition: normalise both,
// compare, break ties on the stored bytes.
func refCompare(a, b string, fold bool) int {
	ka, kb := norm.NFC.String(a), norm.NFC.String(b)
	if fold {
		ka, kb = strings.ToLower(ka), strings.ToLower(kb)
	} else {
		ka, kb = strings.ReplaceAll(ka, "/", "\x00"), strings.ReplaceAll(kb, "/", "\x00")
	}
	if c := strings.Compare(ka, kb); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func sign(c int) int { return min(max(c, -1), 1) }

func TestCompareNames(t *testing.T) {
	nfd := "Cafe\u0301 cre\u0300me 00915.md"
	names := []string{"Café crème 00015.md", nfd, "cafe 9.md", "Cafe 9.md", "caff.md", "cafe\u0301.md", "café.md", "a/b", "a-c", "a/b/c", "Ab", "ab", "B", "é", "f"}
	// Byte order of the composed, lower-cased names: "caff" before "café"
	// (0xC3 > 'f'), whichever form "café" is stored in.
	want := []string{"a-c", "a/b", "a/b/c", "Ab", "ab", "B", "Cafe 9.md", "cafe 9.md", "caff.md", "Café crème 00015.md", nfd, "cafe\u0301.md", "café.md", "f", "é"}
	got := slices.Clone(names)
	slices.SortFunc(got, CompareNames)
	if !slices.Equal(got, want) {
		t.Errorf("CompareNames order:\n%q\nwant\n%q", got, want)
	}
	for _, a := range names {
		for _, b := range names {
			if g, w := sign(CompareNames(a, b)), sign(refCompare(a, b, true)); g != w {
				t.Errorf("CompareNames(%q, %q) = %d, want %d", a, b, g, w)
			}
			if g, w := sign(ComparePaths(a, b)), sign(refCompare(a, b, false)); g != w {
				t.Errorf("ComparePaths(%q, %q) = %d, want %d", a, b, g, w)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { CompareNames("Zettelkasten/2024/Note 00015.md", "Zettelkasten/2024/note 00016.md") }); n != 0 {
		t.Errorf("CompareNames of ASCII names allocates %v times", n)
	}
}

func FuzzCompareNames(f *testing.F) {
	f.Add("Cafe\u0301 00915", "Café 00015")
	f.Add("cafe\u0301", "caff")
	f.Add("a/b", "a-c")
	f.Add("K", "\u212a")
	f.Fuzz(func(t *testing.T, a, b string) {
		if g, w := sign(CompareNames(a, b)), sign(refCompare(a, b, true)); g != w {
			t.Fatalf("CompareNames(%q, %q) = %d, want %d", a, b, g, w)
		}
		if strings.ContainsRune(a+b, 0) {
			return // paths hold no NUL; the reference uses it for '/'
		}
		if g, w := sign(ComparePaths(a, b)), sign(refCompare(a, b, false)); g != w {
			t.Fatalf("ComparePaths(%q, %q) = %d, want %d", a, b, g, w)
		}
		if g, r := sign(CompareNames(a, b)), sign(CompareNames(b, a)); g != -r {
			t.Fatalf("CompareNames(%q, %q) = %d but reversed %d", a, b, g, r)
		}
	})
}
