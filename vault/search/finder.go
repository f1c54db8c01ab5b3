package search

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// finder looks for one literal the way ripgrep does: it scans for the
// literal's rarest byte with IndexByte (vectorised, many GB/s while
// candidates are rare) and checks the literal only there. Searching for
// the first byte instead, as bytes.Index does, crawls when that byte is
// common: "note" stops at every 'n'. If the text proves the chosen byte
// common after all, a case-sensitive search hands the rest to
// bytes.Index.
//
// A case-insensitive finder holds the folded literal (see fold.go) and
// scans for a byte whose case forms are known: a byte of a rune without
// case (digit, punctuation, most scripts), or an ASCII letter in both
// cases (never k or s, which have non-ASCII forms: the Kelvin sign, long
// s). Where the text around a candidate is ASCII, comparing folded bytes
// settles it; where it holds other runes, whose folded forms may differ in
// length, the finder reports the candidate as unsure and the caller asks
// the regexp about that line. So no folded copy of the text is needed.
type finder struct {
	needle []byte
	fold   bool
	none   bool // fold: no byte can be scanned for; use the regexp
	rare   byte // the byte scanned for, at needle[off]
	alt    byte // fold: the other case of rare, 0 if none
	off    int
}

func newFinder(needle []byte, fold bool) finder {
	f := finder{needle: needle, fold: fold}
	if !fold {
		for i, c := range needle {
			if i == 0 || byteRank[c] < byteRank[f.rare] {
				f.rare, f.off = c, i
			}
		}
		return f
	}
	best := -1
	for i := 0; i < len(needle); {
		r, n := utf8.DecodeRune(needle[i:])
		switch {
		case r < utf8.RuneSelf && (r == 'k' || r == 's'):
			// Their orbits hold non-ASCII runes.
		case r >= 'a' && r <= 'z':
			if score := max(int(byteRank[byte(r)]), int(byteRank[byte(r)-'a'+'A'])) + 5; best < 0 || score < best {
				best, f.rare, f.alt, f.off = score, byte(r), byte(r)-'a'+'A', i
			}
		case r != utf8.RuneError && unicode.SimpleFold(r) == r:
			for k := i; k < i+n; k++ {
				if score := int(byteRank[needle[k]]); best < 0 || score < best {
					best, f.rare, f.alt, f.off = score, needle[k], 0, k
				}
			}
		}
		i += n
	}
	f.none = best < 0 && len(needle) > 0
	return f
}

// find returns the position of the first candidate at or after from: the
// start of a sure match, or, when sure is false, a position on a line the
// caller must check. It returns -1 when there is none.
func (f *finder) find(s []byte, from int) (pos int, sure bool) {
	if !f.fold {
		i := f.index(s[from:])
		if i < 0 {
			return -1, false
		}
		return from + i, true
	}
	n := len(f.needle)
	if n == 0 {
		return from, true
	}
	// The scanned byte of a match lies on the match's line, at or after
	// from, even where folded runes differ in length from the text's.
	for i := from; i < len(s); {
		p := f.next(s, i)
		if p < 0 {
			return -1, false
		}
		if start, ok := f.matchAround(s, p); ok {
			return start, true
		}
		i = p + 1
	}
	return -1, false
}

// matchAround reports where the match whose scanned byte is the one at p
// starts, if there is one. The scanned byte's rune folds only to itself
// (or, for an ASCII letter, to its other case), so it sits at the same
// place in the text as in the literal; from there the literal is compared
// rune by rune forwards and backwards, which holds where the text's runes
// and the folded literal's differ in length (K and the Kelvin sign, say).
// So no line needs the regexp, however much of the text is not ASCII.
func (f *finder) matchAround(s []byte, p int) (int, bool) {
	ro := f.off // the start of the scanned rune in the literal
	for ro > 0 && !utf8.RuneStart(f.needle[ro]) {
		ro--
	}
	i := p - (f.off - ro)
	if i < 0 || !foldEqualAt(s, i, f.needle[ro:]) {
		return -1, false
	}
	for j := ro; j > 0; {
		if i <= 0 {
			return -1, false
		}
		want, m := utf8.DecodeLastRune(f.needle[:j])
		c := s[i-1]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if m != 1 || c != f.needle[j-1] {
				return -1, false
			}
			i--
			j--
			continue
		}
		r, n := utf8.DecodeLastRune(s[:i])
		if r == utf8.RuneError && n == 1 {
			if want != utf8.RuneError || m != 1 || f.needle[j-1] != c {
				return -1, false
			}
		} else if canon(r) != want {
			return -1, false
		}
		i -= n
		j -= m
	}
	return i, true
}

// next returns the first position at or after i holding rare or alt.
func (f *finder) next(s []byte, i int) int {
	j := bytes.IndexByte(s[i:], f.rare)
	end := len(s)
	if j >= 0 {
		end = i + j
	}
	if f.alt != 0 {
		if k := bytes.IndexByte(s[i:end], f.alt); k >= 0 {
			return i + k
		}
	}
	if j < 0 {
		return -1
	}
	return i + j
}

// foldEqualAt reports whether the text at start, folded, begins with the
// folded literal.
func foldEqualAt(s []byte, start int, needle []byte) bool {
	i := start
	for j := 0; j < len(needle); {
		if i >= len(s) {
			return false
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[j] {
				return false
			}
			i++
			j++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		want, m := utf8.DecodeRune(needle[j:])
		if r == utf8.RuneError && n == 1 {
			if want != utf8.RuneError || m != 1 || needle[j] != c {
				return false
			}
		} else if canon(r) != want {
			return false
		}
		i += n
		j += m
	}
	return true
}

// index returns the first position of the literal in s, or -1
// (case-sensitive).
func (f *finder) index(s []byte) int {
	n := len(f.needle)
	switch {
	case n == 0:
		return 0
	case n == 1:
		return bytes.IndexByte(s, f.rare)
	case len(s) < n:
		return -1
	}
	last := len(s) - n + f.off // the rare byte's last possible position
	fails := 0
	for i := f.off; i <= last; {
		j := bytes.IndexByte(s[i:last+1], f.rare)
		if j < 0 {
			return -1
		}
		start := i + j - f.off
		if bytes.Equal(s[start:start+n], f.needle) {
			return start
		}
		i += j + 1
		// Too many false candidates for the ground covered: the byte is
		// not rare in this text.
		if fails++; fails > 8+i/32 {
			k := bytes.Index(s[start+1:], f.needle)
			if k < 0 {
				return -1
			}
			return start + 1 + k
		}
	}
	return -1
}

// byteRank estimates how common each byte is in notes (higher is more
// common): English prose, Markdown punctuation and UTF-8 text. Only the
// order matters.
var byteRank = func() *[256]uint8 {
	var r [256]uint8
	for c := 0; c < 256; c++ {
		switch {
		case c >= 0x80:
			r[c] = 90 // UTF-8 in non-English notes
		case c >= 'A' && c <= 'Z':
			r[c] = 60
		case c >= '0' && c <= '9':
			r[c] = 55
		default:
			r[c] = 20
		}
	}
	// The most common bytes, most common first.
	const common = " etaoinsrhldcumfpgwybv\nk.,-#[]|*:/()x'\"jqz_"
	for i := 0; i < len(common); i++ {
		r[common[i]] = uint8(250 - 4*i)
	}
	for _, c := range []byte("TSAIMCNPBDRHLEFGW") {
		r[c] = 70
	}
	r['0'], r['1'], r['2'] = 65, 64, 63
	return &r
}()
