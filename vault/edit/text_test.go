package edit

import (
	"bytes"
	"strings"
	"testing"
)

func TestBinary(t *testing.T) {
	tests := []struct {
		data string
		want bool
	}{
		{"", false},
		{"# Note\nplain text\n", false},
		{"Café crème, cafe\u0301\r\n", false},
		{"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", true},
		{"caf\xe9", true}, // Latin-1, not UTF-8
		{strings.Repeat("a", BinarySniff) + "\x00", false},
		{strings.Repeat("a", BinarySniff-1) + "\x00", true},
	}
	for _, tt := range tests {
		if got := Binary([]byte(tt.data)); got != tt.want {
			t.Errorf("Binary(%.20q…) = %v, want %v", tt.data, got, tt.want)
		}
	}
}

func TestOtherForms(t *testing.T) {
	tests := []struct {
		s    string
		want string // names of the forms returned
	}{
		{"plain ascii", ""},
		{"café", "NFD"},
		{"cafe\u0301", "NFC"},
		{"café cafe\u0301", "NFC NFD"},
		{"日本", ""},
	}
	for _, tt := range tests {
		var names []string
		for _, f := range OtherForms(tt.s) {
			names = append(names, f.Name)
		}
		if got := strings.Join(names, " "); got != tt.want {
			t.Errorf("OtherForms(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestFindNearMiss(t *testing.T) {
	tests := []struct {
		src, old string
		want     string // NearMiss.String(), "" for none
	}{
		{"a\nThe Quick Fox\n", "the quick fox", `the text at line 2 differs from old_text only in letter case; line 2 reads "The Quick Fox"`},
		{"a\n  - one  \n\t- two\n", "- one\n- two", `the text at lines 2-3 differs from old_text only in whitespace (spaces, tabs or line breaks); line 2 reads "  - one  "`},
		{"x\r\ny\r\n", "x\ny", `the text at lines 1-2 differs from old_text only in whitespace (spaces, tabs or line breaks); line 1 reads "x"`},
		{"Le cafe\u0301\n", "café", "the text at line 1 differs from old_text only in Unicode form (composed vs decomposed accents); line 1 reads \"Le cafe\u0301\""},
		{"LE CAFE\u0301  BON\n", "le café bon", "the text at line 1 differs from old_text only in letter case and whitespace (spaces, tabs or line breaks) and Unicode form (composed vs decomposed accents); line 1 reads \"LE CAFE\u0301  BON\""},
		{"Fox\nfox\n", "FOX", `the text at line 1 differs from old_text only in letter case; line 1 reads "Fox" (it is not the only such place)`},
		{"abc\n", "xyz", ""},
		{"abc\n", " \n", ""},
		{strings.Repeat("a", maxNearMissText+1), "A", ""},
	}
	for _, tt := range tests {
		n, ok := FindNearMiss([]byte(tt.src), tt.old)
		got := ""
		if ok {
			got = n.String()
		}
		if got != tt.want {
			t.Errorf("FindNearMiss(%.30q, %q) =\n%s\nwant\n%s", tt.src, tt.old, got, tt.want)
		}
	}
}

// FuzzFindNearMiss: any text and old_text; a near miss found names lines
// that exist, and an exact occurrence is a near miss too.
func FuzzFindNearMiss(f *testing.F) {
	f.Add("a\nThe Quick Fox\n", "the quick fox")
	f.Add("x\r\n  y \r\n", "x\ny")
	f.Add("Le cafe\u0301 e\u0301tait\n", "CAFÉ ÉTAIT")
	f.Add("\n\n\n", "\n")
	f.Fuzz(func(t *testing.T, src, old string) {
		n, ok := FindNearMiss([]byte(src), old)
		lines := bytes.Count([]byte(src), []byte("\n")) + 1
		if ok && (n.Line < 1 || n.Lines < 1 || n.Line+n.Lines-1 > lines) {
			t.Fatalf("FindNearMiss(%q, %q) = %+v: lines out of range (%d)", src, old, n, lines)
		}
		if !ok && strings.TrimSpace(old) != "" && strings.Contains(src, old) {
			t.Fatalf("FindNearMiss(%q, %q) found nothing, but old occurs as it is", src, old)
		}
	})
}
