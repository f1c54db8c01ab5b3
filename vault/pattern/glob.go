package pattern

import (
	"fmt"
	"strings"
)

// CheckGlob refuses a glob longer than MaxGlob characters or one whose
// {…} groups expand to more than MaxGlobAlternatives patterns; what names
// the argument in the message. It does not check the glob's syntax: the
// caller's matcher does.
func CheckGlob(what, glob string) error {
	if err := CheckLength(what, glob, MaxGlob); err != nil {
		return fmt.Errorf("%w: use a shorter glob", err)
	}
	if n := expansions(glob, MaxGlobAlternatives); n > MaxGlobAlternatives {
		return &Error{Msg: fmt.Sprintf("%s %q has too many {…} alternatives (more than %d patterns once expanded; the limit is %d): use fewer braces, or several searches",
			what, glob, MaxGlobAlternatives, MaxGlobAlternatives)}
	}
	return nil
}

// expansions counts the patterns the brace groups of a valid pattern
// expand to ("{a,b}{c,d,e}" is 6), stopping once the count passes limit.
// Escapes and character classes are skipped as the matcher skips them.
func expansions(p string, limit int) int {
	n, _ := braceSeq(p, 0, false, limit)
	return n
}

// braceSeq counts the expansions of the sequence starting at p[i], up to
// the end (or, inside braces, up to the ',' or '}' that ends it), and
// returns where it stopped.
func braceSeq(p string, i int, inside bool, limit int) (int, int) {
	n := 1
	for i < len(p) {
		switch p[i] {
		case '\\':
			i += 2
		case '[':
			j := strings.IndexByte(p[i+1:], ']')
			if j < 0 {
				return n, len(p)
			}
			i += j + 2
		case '{':
			alts, next := braceAlts(p, i+1, limit)
			n = min(n*alts, limit+1)
			i = next
		case ',', '}':
			if inside {
				return n, i
			}
			i++
		default:
			i++
		}
	}
	return n, i
}

// braceAlts sums the expansions of the alternatives of the brace group
// whose content starts at p[i], returning the index after its '}'.
func braceAlts(p string, i, limit int) (int, int) {
	total := 0
	for {
		n, next := braceSeq(p, i, true, limit)
		total = min(total+n, limit+1)
		if next >= len(p) {
			return total, next
		}
		if p[next] == '}' {
			return total, next + 1
		}
		i = next + 1 // past ','
	}
}
