package markdown

import (
	"regexp"
	"testing"
	"unicode/utf8"
)

// goldmark's inline tag regexps (parser/raw_html.go), which htmlTag replaces.
var (
	openTagRegexp  = regexp.MustCompile("^<" + tagnamePattern + attributePattern + `*` + `(?:[ \t]|(?:\r\n|\n){0,1})` + `*/?>`)
	closeTagRegexp = regexp.MustCompile("^</" + tagnamePattern + `(?:[ \t]|(?:\r\n|\n){0,1})` + `*>`)
)

// regexpTag is htmlTag done goldmark's way: the regexp over a rune reader
// that stops at the first invalid UTF-8 sequence.
func regexpTag(rest []byte, closing bool) int {
	lim := 0
	for lim < len(rest) {
		r, n := utf8.DecodeRune(rest[lim:])
		if r == utf8.RuneError {
			break
		}
		lim += n
	}
	re := openTagRegexp
	if closing {
		re = closeTagRegexp
	}
	if m := re.FindIndex(rest[:lim]); m != nil {
		return m[1]
	}
	return -1
}

var htmlTagSeeds = []string{
	"<a>", "<a href=\"x\">", "<a href='x' title=\"y\">", "<a b=c/>", "<a b=c/d>", "<br/>", "<br />",
	"<a\nb='1\n2'>", "<a \r\n>", "<a \r>", "<a b = 'c' >", "<a b=>", "<a =b>", "<x-y z:w._-=1>",
	"</a>", "</a >", "</a\n>", "</a b>", "<a b='>'>", "<a b=\"\xff\">", "<a b=\xef\xbf\xbd>", "<1a>",
	"<a\tb>", "<a b\n=\nc>", "<a b c d>", "<a b=`c`>", "<a /a>",
}

func TestHTMLTagMatchesRegexp(t *testing.T) {
	for _, s := range htmlTagSeeds {
		for _, closing := range []bool{false, true} {
			if got, want := htmlTag([]byte(s), 0, closing), regexpTag([]byte(s), closing); got != want {
				t.Errorf("htmlTag(%q, closing=%v) = %d, goldmark's regexp says %d", s, closing, got, want)
			}
		}
	}
}

func FuzzHTMLTag(f *testing.F) {
	for _, s := range htmlTagSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '<' {
			return
		}
		for _, closing := range []bool{false, true} {
			if got, want := htmlTag(b, 0, closing), regexpTag(b, closing); got != want {
				t.Fatalf("htmlTag(%q, closing=%v) = %d, goldmark's regexp says %d", b, closing, got, want)
			}
		}
	})
}
