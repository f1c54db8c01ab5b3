package concept

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rank is how well a concept matches a query; lower ranks first.
type Rank uint8

// Ranks, best first.
const (
	// ExactLabel: the prefLabel (or the id) is the query.
	ExactLabel Rank = iota
	// ExactAltLabel: an altLabel (or the notation) is the query.
	ExactAltLabel
	// LabelPrefix: the prefLabel starts with the query.
	LabelPrefix
	// LabelWords: every query word starts a word of the prefLabel.
	LabelWords
	// AltLabelWords: an altLabel starts with the query, or every query
	// word starts a word of one altLabel.
	AltLabelWords
	// DefinitionWords: every query word starts a word of the definition.
	DefinitionWords
)

var rankNames = [...]string{"exact_label", "exact_alt_label", "label_prefix", "label_words", "alt_label", "definition"}

// String names the rank in answers ("label_words").
func (r Rank) String() string {
	if int(r) < len(rankNames) {
		return rankNames[r]
	}
	return "unknown"
}

// Query is a search query, folded once.
type Query struct {
	text  string   // folded, spaces collapsed
	id    string   // text in id form
	words []string // the letter-and-digit runs of text
	mask  uint64   // wordMask(text): bits a concept's mask must have
}

// NewQuery prepares s for matching: folded (case, Unicode form) with runs
// of spaces collapsed, and split into words at anything that is not a
// letter, a digit or a combining mark.
func NewQuery(s string) Query {
	text := strings.Join(strings.Fields(Fold(s)), " ")
	words := strings.FieldsFunc(text, func(r rune) bool { return !inWord(r) })
	return Query{text: text, id: idOf(text), words: words, mask: wordMask(text)}
}

// Empty reports whether the query has nothing to match.
func (q Query) Empty() bool { return q.text == "" }

// Match ranks concept c, whose id is id, against the query; ok is false
// when it does not match at all.
func (q Query) Match(c *Concept, id string) (r Rank, ok bool) {
	if q.text == "" {
		return 0, false
	}
	if id == q.text || id == q.id {
		return ExactLabel, true
	}
	// Every other rank needs each query word to start a word of the
	// labels, notation or definition, so most concepts are ruled out by
	// one test of their word mask.
	if c.mask&q.mask != q.mask {
		return 0, false
	}
	switch {
	case c.label == q.text:
		return ExactLabel, true
	case c.Notation != "" && strings.EqualFold(c.Notation, q.text):
		return ExactAltLabel, true
	}
	for _, a := range c.alts {
		if a == q.text {
			return ExactAltLabel, true
		}
	}
	if strings.HasPrefix(c.label, q.text) {
		return LabelPrefix, true
	}
	if len(q.words) == 0 {
		return 0, false // only punctuation: nothing to match word by word
	}
	if allWords(c.label, q.words) {
		return LabelWords, true
	}
	for _, a := range c.alts {
		if strings.HasPrefix(a, q.text) || allWords(a, q.words) {
			return AltLabelWords, true
		}
	}
	if allWords(c.definition, q.words) {
		return DefinitionWords, true
	}
	return 0, false
}

// allWords reports whether each word starts a word of text.
func allWords(text string, words []string) bool {
	for _, w := range words {
		if !startsWord(text, w) {
			return false
		}
	}
	return true
}

// startsWord reports whether w occurs in text at the start of a word.
func startsWord(text, w string) bool {
	for off := 0; off <= len(text); {
		i := strings.Index(text[off:], w)
		if i < 0 {
			return false
		}
		i += off
		r, size := utf8.DecodeRuneInString(text[i:])
		if i == 0 {
			return true
		}
		prev, _ := utf8.DecodeLastRuneInString(text[:i])
		if wordStart(prev, r) {
			return true
		}
		off = i + size
	}
	return false
}

// wordStart reports whether a word may start at r, which follows prev.
// In scripts written without spaces between words (Chinese, Japanese,
// Korean as search treats it, Thai, Lao, Khmer, Burmese) every character
// may start one: "学習" is found in "機械学習", as search_notes finds it
// character by character.
func wordStart(prev, r rune) bool {
	return !inWord(prev) || unspaced(prev) || unspaced(r)
}

// inWord reports whether r belongs to a word: a letter, a digit or a
// combining mark (Thai vowels and tone marks are marks, and split no
// word).
func inWord(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// unspacedScripts are written without spaces between words.
var unspacedScripts = []*unicode.RangeTable{
	unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
	unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar,
}

// unspaced reports whether r belongs to a script written without spaces
// between words.
func unspaced(r rune) bool {
	return r >= 0x0e00 && unicode.IsOneOf(unspacedScripts, r)
}

// wordMask sets, for every place a word may start in the texts (see
// wordStart) followed by two word runes or more, a bit chosen by those
// first two runes. A word that starts a word of a text has its bit set in
// the text's mask; words of one rune set none, since any word may start
// with them.
func wordMask(texts ...string) uint64 {
	var m uint64
	for _, t := range texts {
		prev := ' '
		for i, r := range t {
			if inWord(r) && wordStart(prev, r) {
				_, size := utf8.DecodeRuneInString(t[i:])
				if r2, _ := utf8.DecodeRuneInString(t[i+size:]); i+size < len(t) && inWord(r2) {
					m |= 1 << ((uint32(r)*31 + uint32(r2)) % 64)
				}
			}
			prev = r
		}
	}
	return m
}

// Label is the concept's folded prefLabel, the order ties are broken in.
func (c *Concept) Label() string { return c.label }
