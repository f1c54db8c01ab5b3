package vault

import (
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
