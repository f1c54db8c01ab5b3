package search

import (
	"unicode"
	"unicode/utf8"
)

// Case-insensitive literals are folded: every rune replaced by one fixed
// member of its case-folding orbit (the set of runes regexp's (?i) treats
// as equal, e.g. k, K and the Kelvin sign K). Two strings match
// case-insensitively exactly when their folded forms are equal. The
// finder compares the text with a folded literal rune by rune, so the
// text itself is never copied.

// foldTable (foldtable_gen.go) holds canon for the first 0x800 runes
// (one- and two-byte UTF-8), the ones that matter for speed. It is
// generated (go test ./vault/search -run TestFoldTableGenerated -update)
// rather than computed at start, where its SimpleFold walks cost every
// process about 1.2M instructions before main; TestFoldTableGenerated
// fails when it no longer matches canonSlow (a new Unicode version).

// canon returns the fixed member of r's case-folding orbit.
func canon(r rune) rune {
	if r >= 0 && r < rune(len(foldTable)) {
		return foldTable[r]
	}
	return canonSlow(r)
}

// canonSlow picks the smallest rune of the orbit, lower-cased when that
// keeps it in the orbit (so ASCII folds to lower case, as people expect
// when reading folded literals in tests).
func canonSlow(r rune) rune {
	lowest := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < lowest {
			lowest = f
		}
	}
	lower := unicode.ToLower(lowest)
	if lower != lowest && inOrbit(lower, r) {
		return lower
	}
	return lowest
}

func inOrbit(x, r rune) bool {
	if x == r {
		return true
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f == x {
			return true
		}
	}
	return false
}

// foldString folds s rune by rune. Invalid UTF-8 bytes are kept as they
// are.
func foldString(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			out = append(out, c)
			i++
			continue
		}
		out = utf8.AppendRune(out, canon(r))
		i += n
	}
	return string(out)
}
