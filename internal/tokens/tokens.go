// Package tokens estimates how many tokens a language model's tokenizer
// makes of a text, erring high, so that a tool's answer can be sized for
// an agent's context without a tokenizer in the server.
//
// Clients cut tool answers by tokens (Claude Code at 25,000 by default),
// and bytes are a poor stand-in for tokens: English prose runs about five
// bytes a token, but paths, JSON and numbers run two to three, and Greek
// or Japanese text one and a half to two. A page sized at 100 KB of paths
// was 43,000 tokens. The estimate counts by character class instead:
//
//   - a run of ASCII letters: a token per four letters (most English
//     words are one token, a long or rare one several);
//   - a run of digits: a token per two;
//   - a run of spaces: nothing for one (a space joins the word after
//     it), a token per four for a longer run;
//   - any other ASCII character (punctuation, a line break): a token;
//   - any other character (accented letters, Greek, CJK, emoji): a token
//     and a half;
//
// and adds a tenth. Measured against Anthropic's published tokenizer on
// tool answers and on notes of a generated vault in English, French,
// German, Greek, Japanese and Chinese, and on prose in those languages and
// Russian (testdata/calibration.json), the estimate is 1.05 to 2.9 times
// the true count, never below it. It is at least a fifth of the text's
// length in bytes (four letters and a space cost a token and a tenth), so
// an estimate also bounds the text's size.
package tokens

import "math"

// The estimate is kept in half tokens, so that a non-ASCII character's
// token and a half stays an integer.
const (
	halfLetters = 2 // per started group of four ASCII letters
	halfDigits  = 2 // per started pair of digits
	halfSpaces  = 2 // per started group of four spaces
	halfASCII   = 2 // per other ASCII character
	halfOther   = 3 // per non-ASCII character
)

// class is what a byte or character counts as.
type class uint8

const (
	other  class = iota // a non-ASCII character
	letter              // A–Z, a–z
	digit               // 0–9
	space               // ' '
	symbol              // any other ASCII byte
)

// classOf is the class of an ASCII byte; bytes ≥ 0x80 are other.
func classOf(b byte) class {
	switch {
	case b >= 0x80:
		return other
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z':
		return letter
	case '0' <= b && b <= '9':
		return digit
	case b == ' ':
		return space
	}
	return symbol
}

// runHalves is what a run of n letters, digits or spaces costs, in half
// tokens.
func runHalves(c class, n int) int {
	switch c {
	case letter:
		return halfLetters * ((n + 3) / 4)
	case digit:
		return halfDigits * ((n + 1) / 2)
	case space:
		return halfSpaces * ((n + 2) / 4)
	}
	return 0
}

// Estimate returns an estimate, never below the true count on the texts
// measured, of the tokens in s.
func Estimate[T ~string | ~[]byte](s T) int {
	_, halves := scan(s, math.MaxInt)
	return fromHalves(halves)
}

// Fit returns the length in bytes of the longest prefix of s whose
// estimate is at most budget tokens. The prefix ends on a character
// boundary; it is all of s when s fits.
func Fit[T ~string | ~[]byte](s T, budget int) int {
	n, _ := scan(s, halvesWithin(budget))
	return n
}

// scan returns the length of the longest prefix of s that costs at most
// limit half tokens, and what it costs.
func scan[T ~string | ~[]byte](s T, limit int) (n, halves int) {
	for i := 0; i < len(s); {
		switch c := classOf(s[i]); c {
		case other, symbol:
			cost, size := halfASCII, 1
			if c == other {
				cost, size = halfOther, charLen(s[i], len(s)-i)
			}
			if halves+cost > limit {
				return i, halves
			}
			halves += cost
			i += size
		default:
			j := i + 1
			for j < len(s) && classOf(s[j]) == c {
				j++
			}
			if cost := runHalves(c, j-i); halves+cost <= limit {
				halves += cost
				i = j
				continue
			}
			// The run does not fit whole: its cost rises at each
			// group's first byte.
			k := i
			for k < j && halves+runHalves(c, k-i+1) <= limit {
				k++
			}
			return k, halves + runHalves(c, k-i)
		}
	}
	return len(s), halves
}

// The estimate is the half tokens counted, plus a tenth: without it long
// German compounds came out a few percent under the true count.
const (
	marginNum = 11
	marginDen = 10
)

// fromHalves converts half tokens to the estimate, rounding up.
func fromHalves(halves int) int {
	return (halves*marginNum + 2*marginDen - 1) / (2 * marginDen)
}

// halvesWithin is the most half tokens whose estimate is within budget.
func halvesWithin(budget int) int {
	if budget >= math.MaxInt/(2*marginDen) {
		return math.MaxInt // more than any text holds
	}
	return max(budget, 0) * 2 * marginDen / marginNum
}

// charLen is the length of the UTF-8 character that begins with lead,
// rest bytes at most. A byte that begins no character counts as one.
func charLen(lead byte, rest int) int {
	n := 1
	switch {
	case lead >= 0xF8:
	case lead >= 0xF0:
		n = 4
	case lead >= 0xE0:
		n = 3
	case lead >= 0xC0:
		n = 2
	}
	return min(n, rest)
}
