package edit

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// BinarySniff is how much of a file's start is looked at for a NUL byte,
// as git and ripgrep do.
const BinarySniff = 8000

// BinaryHead reports whether a file's first bytes mark it binary: a NUL
// byte in its first BinarySniff bytes.
func BinaryHead(head []byte) bool {
	return bytes.IndexByte(head[:min(len(head), BinarySniff)], 0) >= 0
}

// Binary reports whether data is not text: a NUL byte near its start, or
// bytes that are not UTF-8. read_file shows no text of such a file, so no
// tool may edit it as text either: replacing "PNG" in an image's header
// would corrupt it.
func Binary(data []byte) bool {
	return BinaryHead(data) || !utf8.Valid(data)
}

// Form is a Unicode normalization form text can be stored in.
type Form struct {
	// Name is "NFC" (composed: é is one code point, as most editors
	// write) or "NFD" (decomposed: e and a combining accent, as text
	// pasted from macOS file names or PDFs often is).
	Name string
	form norm.Form
}

// Bytes returns s in form f.
func (f Form) Bytes(s string) []byte { return f.form.Bytes([]byte(s)) }

// String returns s in form f.
func (f Form) String(s string) string { return f.form.String(s) }

// NFC and NFD are the two forms text is found stored in.
var (
	NFC = Form{"NFC", norm.NFC}
	NFD = Form{"NFD", norm.NFD}
)

// OtherForms returns s in the normalization forms (NFC, NFD) that spell
// it differently from the way it is given; none for ASCII text, which
// has one form only.
func OtherForms(s string) []Form {
	if isASCII(s) {
		return nil
	}
	var out []Form
	for _, f := range []Form{NFC, NFD} {
		if !f.form.IsNormalString(s) {
			out = append(out, f)
		}
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Near-miss search bounds: the hint costs at most a few passes over this
// much text, and only after an edit failed.
const (
	maxNearMissText = 4 << 20
	maxNearMissOld  = 64 << 10
)

// NearMiss is a place in a file that old_text matches when letter case,
// whitespace or Unicode form are disregarded.
type NearMiss struct {
	// Line is the 1-based line where the place begins; Lines is how many
	// lines old_text spans there.
	Line, Lines int
	// Kind names what differs: "letter case", "whitespace (spaces, tabs
	// or line breaks)", "Unicode form (composed vs decomposed accents)",
	// or two of them joined by "and".
	Kind string
	// Text is the file's first line at that place, shortened.
	Text string
	// More is 1 when old_text matches so at more than one place.
	More int
}

// String phrases the near miss for an error message.
func (n NearMiss) String() string {
	where := fmt.Sprintf("line %d", n.Line)
	if n.Lines > 1 {
		where = fmt.Sprintf("lines %d-%d", n.Line, n.Line+n.Lines-1)
	}
	s := fmt.Sprintf("the text at %s differs from old_text only in %s; line %d reads %q", where, n.Kind, n.Line, n.Text)
	if n.More > 0 {
		s += " (it is not the only such place)"
	}
	return s
}

// FindNearMiss looks for a place in src that old matches once letter
// case, whitespace runs or the Unicode form are disregarded, trying the
// smallest set of differences first. It is meant for the error path of
// an exact search that failed, and gives up on texts too large to scan
// cheaply.
func FindNearMiss(src []byte, old string) (NearMiss, bool) {
	if len(src) > maxNearMissText || len(old) > maxNearMissOld || strings.TrimSpace(old) == "" {
		return NearMiss{}, false
	}
	type try struct {
		fold, space bool
	}
	for _, t := range []try{{false, false}, {true, false}, {false, true}, {true, true}} {
		o := canonical([]byte(old), t.fold, t.space, nil)
		if t.space {
			// Leading and trailing whitespace may stand for none.
			o.text = bytes.TrimSpace(o.text)
		}
		if len(o.text) == 0 {
			continue
		}
		c := canonical(src, t.fold, t.space, []int{})
		i := bytes.Index(c.text, o.text)
		if i < 0 {
			continue
		}
		line := c.lineAt(i)
		last := c.lineAt(i + len(o.text) - 1)
		var kinds []string
		if t.fold {
			kinds = append(kinds, "letter case")
		}
		if t.space {
			kinds = append(kinds, "whitespace (spaces, tabs or line breaks)")
		}
		if len(kinds) == 0 || !norm.NFC.IsNormalString(old) || !norm.NFC.IsNormal(lines(src, line, last)) {
			// With neither case nor space needed, the form is what differs.
			kinds = append(kinds, "Unicode form (composed vs decomposed accents)")
		}
		n := NearMiss{Line: line, Lines: last - line + 1, Kind: strings.Join(kinds, " and "), Text: lineText(src, line)}
		if bytes.Contains(c.text[i+1:], o.text) {
			n.More = 1
		}
		return n, true
	}
	return NearMiss{}, false
}

// lines returns lines first to last (1-based) of src.
func lines(src []byte, first, last int) []byte {
	start := 0
	for n := 1; n < first; n++ {
		i := bytes.IndexByte(src[start:], '\n')
		if i < 0 {
			return nil
		}
		start += i + 1
	}
	end := start
	for n := first; n <= last; n++ {
		i := bytes.IndexByte(src[end:], '\n')
		if i < 0 {
			return src[start:]
		}
		end += i + 1
	}
	return src[start:end]
}

// canonText is a text brought to a canonical spelling, with the offsets
// in it where each of the original's lines begins.
type canonText struct {
	text   []byte
	starts []int // nil when not tracked
}

// lineAt returns the 1-based original line holding canonical offset i.
func (c canonText) lineAt(i int) int {
	lo, hi := 0, len(c.starts)
	for lo < hi {
		m := (lo + hi) / 2
		if c.starts[m] <= i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return max(lo, 1)
}

// canonical spells b in NFC, with letters case-folded when fold, and
// every run of whitespace (line breaks included) as one space when
// space. When starts is not nil it records where each line begins.
func canonical(b []byte, fold, space bool, starts []int) canonText {
	b = norm.NFC.Bytes(b)
	out := canonText{text: make([]byte, 0, len(b)), starts: starts}
	if starts != nil {
		out.starts = append(out.starts, 0)
	}
	inSpace := false
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		i += n
		if space && unicode.IsSpace(r) {
			if !inSpace {
				out.text = append(out.text, ' ')
				inSpace = true
			}
			if r == '\n' && starts != nil {
				out.starts = append(out.starts, len(out.text))
			}
			continue
		}
		inSpace = false
		if fold {
			r = unicode.ToLower(unicode.ToUpper(r))
		}
		out.text = utf8.AppendRune(out.text, r)
		if r == '\n' && starts != nil {
			out.starts = append(out.starts, len(out.text))
		}
	}
	return out
}

// lineText returns line num (1-based) of src without its line break,
// shortened to about 120 bytes.
func lineText(src []byte, num int) string {
	for ; num > 1; num-- {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return ""
		}
		src = src[i+1:]
	}
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		src = src[:i]
	}
	src = bytes.TrimSuffix(src, []byte("\r"))
	if len(src) > 120 {
		cut := 117
		for cut > 0 && !utf8.RuneStart(src[cut]) {
			cut--
		}
		return string(src[:cut]) + "..."
	}
	return string(src)
}
