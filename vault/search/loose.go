package search

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// looseFinder finds text the way a person who typed it without accents
// means it: "cafe creme" finds "Café crème", composed or decomposed.
// Accents and other combining marks are dropped on both sides, and with
// fold letter case is ignored. It serves the hint an empty search answer
// gives ("ignoring accents, … matches: use …"), never the search itself,
// whose matching stays exact; so it favours simplicity over speed: a byte
// loop over the text with a check at each possible first letter.
type looseFinder struct {
	needle []rune // loose form of the query, at least one rune
	fold   bool
	// first marks the bytes a match can start with: the first needle
	// rune's ASCII byte (both cases with fold) and the lead byte of every
	// non-ASCII rune, which may carry an accent.
	first [256]bool
}

// newLooseFinder prepares query; ok is false when nothing is left of it
// (a query of combining marks only).
func newLooseFinder(query string, fold bool) (*looseFinder, bool) {
	f := &looseFinder{fold: fold}
	for _, r := range norm.NFD.String(query) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		f.needle = append(f.needle, f.base(r))
	}
	if len(f.needle) == 0 {
		return nil, false
	}
	if n0 := f.needle[0]; n0 < utf8.RuneSelf {
		f.first[n0] = true
		f.first[unicode.ToUpper(n0)] = true
	}
	for c := 0xC0; c < 0x100; c++ {
		f.first[c] = true
	}
	return f, true
}

// base is r without its accents (its NFD's first rune), lower-cased when
// folding.
func (f *looseFinder) base(r rune) rune {
	if r >= utf8.RuneSelf {
		var buf [utf8.UTFMax]byte
		n := utf8.EncodeRune(buf[:], r)
		if d := norm.NFD.Properties(buf[:n]).Decomposition(); len(d) > 0 {
			r, _ = utf8.DecodeRune(d)
		}
	}
	if f.fold {
		r = unicode.ToLower(r)
	}
	return r
}

// index returns the first loose match in text as a byte range, or -1s.
func (f *looseFinder) index(text []byte) (start, end int) {
	for i := 0; i < len(text); i++ {
		if !f.first[text[i]] {
			continue
		}
		if e := f.matchAt(text, i); e >= 0 {
			return i, e
		}
	}
	return -1, -1
}

// matchAt returns the end of a loose match starting at i, or -1. Marks
// that follow the last letter belong to the match.
func (f *looseFinder) matchAt(text []byte, i int) int {
	if r, _ := utf8.DecodeRune(text[i:]); unicode.Is(unicode.Mn, r) {
		return -1 // a match starts on a letter, not on its accent
	}
	k := 0
	for i < len(text) {
		r, n := utf8.DecodeRune(text[i:])
		if unicode.Is(unicode.Mn, r) && k > 0 {
			i += n
			continue
		}
		if k == len(f.needle) {
			break
		}
		if r == utf8.RuneError && n == 1 || f.base(r) != f.needle[k] {
			return -1
		}
		k++
		i += n
	}
	if k < len(f.needle) {
		return -1
	}
	return i
}

// lines appends the lines of text holding a loose match to hits.
func (f *looseFinder) lines(text []byte, hits []hit) []hit {
	c := lineCounter{text: text, num: 1}
	for pos := 0; pos < len(text); {
		s, _ := f.index(text[pos:])
		if s < 0 {
			break
		}
		i := pos + s
		start := pos + lastLineStart(text[pos:i])
		end := lineEnd(text, i)
		hits = append(hits, hit{num: c.at(start), start: start, end: end})
		pos = end + 1
	}
	return hits
}

// lastLineStart is the offset in b just after its last '\n', 0 if none.
func lastLineStart(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return i + 1
		}
	}
	return 0
}

// LooseSpan returns the part of text that query matches ignoring accents
// and Unicode form (and letter case with fold), in NFC: the exact text a
// search should be given to find it. ok is false when there is none.
func LooseSpan(text, query string, fold bool) (span string, ok bool) {
	f, ok := newLooseFinder(query, fold)
	if !ok {
		return "", false
	}
	s, e := f.index([]byte(text))
	if s < 0 {
		return "", false
	}
	return norm.NFC.String(text[s:e]), true
}
