package search

import (
	"bytes"
	"errors"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"vaultmcp/vault"
)

// referenceLines is grep by definition: split the text into lines, drop
// each line's '\r', and ask the regexp about each line on its own.
func referenceLines(t testing.TB, m *matcher, text []byte) []int {
	t.Helper()
	var nums []int
	if len(text) == 0 {
		return nil // an empty file has no lines
	}
	lines := bytes.Split(text, []byte("\n"))
	if len(text) > 0 && text[len(text)-1] == '\n' {
		lines = lines[:len(lines)-1] // no line after the final break
	}
	for i, line := range lines {
		if m.ref.Match(stripCR(line)) {
			nums = append(nums, i+1)
		}
	}
	return nums
}

func matchedLines(m *matcher, text []byte) []int {
	var nums []int
	for _, h := range m.lines(text, nil) {
		nums = append(nums, h.num)
	}
	return nums
}

func TestMatcherLines(t *testing.T) {
	text := "# Title\nfoo bar\r\nFOO baz\nnothing here\nfoobar\n\nlast foo"
	tests := []struct {
		name          string
		query         string
		regex, sensit bool
		want          []int
	}{
		{"literal sensitive", "foo", false, true, []int{2, 5, 7}},
		{"literal insensitive", "foo", false, false, []int{2, 3, 5, 7}},
		{"literal with regex chars", "# T", false, true, []int{1}},
		{"regex anchored start", "^foo", true, true, []int{2, 5}},
		{"regex anchored end before CRLF", "bar$", true, true, []int{2, 5}},
		{"regex \\A and \\z are line bounds", `\Afoo\z`, true, false, nil},
		{"regex whole line", `(?i)^foo\w*$`, true, true, []int{5}},
		{"regex alternation", "baz|nothing", true, true, []int{3, 4}},
		{"regex no literal", `^\W`, true, true, []int{1}},
		{"regex empty line", `^$`, true, true, []int{6}},
		{"regex matches empty everywhere", `x*`, true, true, []int{1, 2, 3, 4, 5, 6, 7}},
		{"negated class stays on the line", `foo[^z]*baz`, true, false, []int{3}},
		{"case-insensitive regex", `fo+ ba[rz]`, true, false, []int{2, 3}},
		{"unicode fold", "ÄRGER", false, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := compileQuery(tt.query, tt.regex, tt.sensit)
			if err != nil {
				t.Fatal(err)
			}
			got := matchedLines(m, []byte(text))
			if !slices.Equal(got, tt.want) {
				t.Errorf("lines = %v, want %v", got, tt.want)
			}
			if ref := referenceLines(t, m, []byte(text)); !slices.Equal(got, ref) {
				t.Errorf("lines = %v, reference says %v", got, ref)
			}
		})
	}
}

func TestMatcherUnicodeFold(t *testing.T) {
	// The Kelvin sign folds to a one-byte k, long s to s, and Ⱥ (two
	// bytes) to ⱥ (three): lengths differ, and matches must still be found.
	text := []byte("ärger im Büro\nTemperature 300 \u212A\nkelvin\nMa\u017Fs 3\n\u023A7 x\n")
	for _, q := range []string{"ÄRGER", "BÜRO", "k", "Ü", "mass 3", "ⱥ7", "300 \u212A", "ras"} {
		m, err := compileQuery(q, false, false)
		if err != nil {
			t.Fatal(err)
		}
		got, want := matchedLines(m, text), referenceLines(t, m, text)
		if (len(want) == 0 && q != "ras") || !slices.Equal(got, want) {
			t.Errorf("%q: lines %v, want %v", q, got, want)
		}
	}
}

func TestCompileQueryErrors(t *testing.T) {
	tests := []struct {
		query string
		regex bool
		want  string
	}{
		{"", false, "query is empty"},
		{"(unclosed", true, "missing closing )"},
		{"[a-", true, "missing closing ]"},
		{"a**", true, "invalid nested repetition operator"},
		{`\p{Nope}`, true, "invalid character class range"},
		{"two\nlines", false, "line break"},
		{`a\nb`, true, "line break"},
	}
	for _, tt := range tests {
		_, err := compileQuery(tt.query, tt.regex, true)
		if err == nil {
			t.Errorf("%q: no error", tt.query)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %q, want it to mention %q", tt.query, err, tt.want)
		}
		if !errors.Is(err, vault.ErrInvalidInput) {
			t.Errorf("%q: error kind is not ErrInvalidInput", tt.query)
		}
	}
}

func TestLineSafeRoundTrip(t *testing.T) {
	// The rewritten tree is compiled from its String form; check a few
	// shapes survive with their flags.
	for _, pat := range []string{`^a.b$`, `(?i)x[^y]z`, `\Afoo\z`, `(?s).+`, `[\s\S]`, `(?i:Straße)`, `(?m)^#`} {
		for _, fold := range []bool{false, true} {
			flags := syntax.Perl
			if fold {
				flags |= syntax.FoldCase
			}
			tree, err := syntax.Parse(pat, flags)
			if err != nil {
				t.Fatal(err)
			}
			s := lineSafe(tree).String()
			re, err := regexp.Compile(s)
			if err != nil {
				t.Fatalf("%q -> %q: %v", pat, s, err)
			}
			if re.MatchString("\n") && !strings.Contains(pat, "$") && !strings.Contains(pat, "^") && !strings.Contains(pat, `\z`) {
				t.Errorf("%q -> %q matches a line break", pat, s)
			}
		}
	}
}

// FuzzMatcherLines checks the whole matcher (prefilter, folded copy,
// line-safe scan) against the per-line definition of grep.
func FuzzMatcherLines(f *testing.F) {
	seeds := []struct {
		pat, text string
	}{
		{"foo", "a foo\nbar\r\nFOO\n"},
		{`^\s*$`, "a\n \n\r\n"},
		{`colou?r|grey`, "color\ncolour\nGREY\n"},
		{`(?i)straße`, "STRASSE\nstraße\n"},
		{`\bk\b`, "\u212A\nk\nK"},
		{`[^a]+$`, "aaa\r\nb\n"},
		{`\Aa|b\z`, "xa\nab\nb"},
		{`.`, ""},
		{`x{2,}`, "xx\nx\n"},
		{`(a|b)(c|d)(e|f)`, "ace\nbdf\nabc"},
		{"ⱥ7", "\u023A7\nⱥ7\n"},
		{"mass", "MA\u017FS\nmass\n"},
		{"büro 3", "BÜRO 3\nbüro 3"},
		// Case-insensitive literals whose scanned byte (a digit) has runes
		// other than ASCII before it, some folding to other lengths.
		{"μελέτη 01237", "ΜΕΛΕΤΗ 01237\nΜελέτη 0123\nx μελέτη 01237 y\nμελέτη 01238"},
		{"key 7", "\u212Aey 7\nKEY 7\nkey 8\nékey 7"},
		{"ſx9", "sx9\nSX9\n\u017Fx9"},
		{"日本 5", "日本 5\n日本5\n\xe6\x97 5"},
		// Accents composed or decomposed, in the query or the text.
		{"café était", "Le cafe\u0301 e\u0301tait\nLe café était\nLe cafe etait"},
		{"CAFE\u0301", "cafe\u0301\ncafé\nCAFÉ"},
		{"Å 7", "A\u030a 7\n\u212b 7\nå 7"},
	}
	for _, s := range seeds {
		for _, regex := range []bool{true, false} {
			f.Add(s.pat, s.text, regex, true)
			f.Add(s.pat, s.text, regex, false)
		}
	}
	f.Fuzz(func(t *testing.T, pattern, text string, regex, caseSensitive bool) {
		m, err := compileQuery(pattern, regex, caseSensitive)
		if err != nil {
			return
		}
		got, want := matchedLines(m, []byte(text)), referenceLines(t, m, []byte(text))
		if !slices.Equal(got, want) {
			t.Fatalf("pattern %q (regex %v, case-sensitive %v) on %q: lines %v, want %v", pattern, regex, caseSensitive, text, got, want)
		}
	})
}

// TestMatcherUnicodeForms: a plain-text query finds its text whether the
// note stores accents composed (NFC) or decomposed (NFD), in either case
// mode; a regex matches text as stored.
func TestMatcherUnicodeForms(t *testing.T) {
	text := "Le cafe\u0301 e\u0301tait bon.\nLe café était bon.\nLe cafe etait bon.\nLE CAFE\u0301 E\u0301TAIT\n"
	tests := []struct {
		query         string
		regex, sensit bool
		want          []int
	}{
		{"café était", false, true, []int{1, 2}},
		{"cafe\u0301 e\u0301tait", false, true, []int{1, 2}},
		{"café était", false, false, []int{1, 2, 4}},
		{"CAFÉ", false, false, []int{1, 2, 4}},
		{"cafe etait", false, false, []int{3}},
		{"café", true, true, []int{2}},
	}
	for _, tt := range tests {
		m, err := compileQuery(tt.query, tt.regex, tt.sensit)
		if err != nil {
			t.Fatal(err)
		}
		if got := matchedLines(m, []byte(text)); !slices.Equal(got, tt.want) {
			t.Errorf("%q (regex %v, case-sensitive %v): lines %v, want %v", tt.query, tt.regex, tt.sensit, got, tt.want)
		}
	}
}

func FuzzFinder(f *testing.F) {
	f.Add([]byte("note 01234"), []byte("nnnnnote 0123 note 01234 x"))
	f.Add([]byte("aa"), []byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"))
	f.Fuzz(func(t *testing.T, needle, hay []byte) {
		finder := newFinder(needle, false)
		if got, want := finder.index(hay), bytes.Index(hay, needle); got != want {
			t.Fatalf("index(%q, %q) = %d, want %d", hay, needle, got, want)
		}
	})
}
