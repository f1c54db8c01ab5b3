package rank

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxTokenBytes drops longer "words" (hashes, base64, URLs run together):
// nobody searches for them by relevance, and grep finds them.
const maxTokenBytes = 48

// scanner cuts text into search terms: runs of letters and digits,
// lowercased, accents dropped, English plurals folded to the singular;
// each Han, kana or Hangul character is a term of its own (no spaces
// separate words there). Single Latin letters and digits are skipped as
// noise. A term is handed over as bytes that are valid only during the
// call (a view of the text, or of the scanner's buffer), so indexing a
// note makes no garbage for the terms the index already knows.
type scanner struct {
	buf  []byte // lowercased or accent-free words
	stem []byte // words whose ending was rewritten
	// it decomposes the words foldTable does not cover: made once, as it
	// is large (a fresh one per word was most of a search's garbage).
	it *norm.Iter
}

// scan calls fn with each term of text and the byte offset in text of
// the word it comes from.
func (s *scanner) scan(text []byte, fn func(term []byte, pos int)) {
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		word := text[start:end]
		start = -1
		if len(word) > maxTokenBytes {
			return
		}
		if t := s.normalize(word); len(t) > 1 {
			fn(t, end-len(word))
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') {
				if start < 0 {
					start = i
				}
			} else {
				flush(i)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(text[i:])
		switch {
		case ideographic(r):
			flush(i)
			s.buf = utf8.AppendRune(s.buf[:0], unicode.ToLower(r))
			fn(s.buf, i)
		case isLetterOrDigit(r):
			if start < 0 {
				start = i
			}
		default:
			flush(i)
		}
		i += n
	}
	flush(len(text))
}

// tokens calls fn with each term of text as a string (for queries and
// snippets, where a few allocations do not matter).
func tokens(text string, fn func(term string)) {
	var s scanner
	s.scan([]byte(text), func(t []byte, _ int) { fn(string(t)) })
}

// ideographic reports whether r belongs to a script written without
// spaces between words.
func ideographic(r rune) bool {
	// Hangul Jamo, at U+1100, is the first of them: below it no table is
	// searched (TestIdeographicBelow checks).
	return r >= 0x1100 && unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

func isLetterOrDigit(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// normalize lowercases a word, drops accents ("café" is "cafe") and folds
// a plural ending. The result is word itself when nothing changes, else
// the scanner's buffer.
func (s *scanner) normalize(word []byte) []byte {
	ascii, upper := true, false
	for _, c := range word {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if 'A' <= c && c <= 'Z' {
			upper = true
		}
	}
	switch {
	case !ascii:
		word = s.fold(word)
	case upper:
		s.buf = append(s.buf[:0], word...)
		for i, c := range s.buf {
			if 'A' <= c && c <= 'Z' {
				s.buf[i] = c + 'a' - 'A'
			}
		}
		word = s.buf
	}
	return s.stemmed(word)
}

// Runes foldTable says are dropped or need the slow path.
const (
	foldDrop = -1
	foldSlow = -2
)

// foldTable (foldtable_gen.go) maps each rune with a one- or two-byte
// UTF-8 encoding (ASCII, Latin, Greek, Cyrillic, Hebrew, Arabic…) to what
// foldSlow makes of it alone: one rune, foldDrop for a combining mark, or
// foldSlow when it decomposes into more than one letter. A word of such
// runes folds rune by rune to what foldSlow makes of it whole, since
// below U+0800 every rune that canonical reordering moves is a combining
// mark (Mn), which folding drops anyway (TestFoldTable checks both). It is
// generated (go test ./vault/rank -run TestFoldTableGenerated -update)
// rather than computed at start, which cost every process 2,000
// allocations and about 2.5M instructions before main (a third of all
// package init); TestFoldTableGenerated fails when it no longer matches
// foldSlow (a new Unicode version).

// fold lowercases a word and drops its accents, through foldTable when
// every rune of the word is in it (most words of most languages): NFD
// decomposition costs more than the rest of the tokenizer. The result is
// the scanner's buffer.
func (s *scanner) fold(word []byte) []byte {
	s.buf = s.buf[:0]
	for i := 0; i < len(word); {
		r, n := rune(word[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(word[i:])
		}
		if r >= rune(len(foldTable)) {
			return s.foldSlow(word)
		}
		switch f := foldTable[r]; f {
		case foldDrop:
		case foldSlow:
			return s.foldSlow(word)
		default:
			s.buf = utf8.AppendRune(s.buf, f)
		}
		i += n
	}
	return s.buf
}

// foldSlow is fold by the definition: decompose (NFD), drop combining
// marks, lowercase. The result is the scanner's buffer.
func (s *scanner) foldSlow(word []byte) []byte {
	s.buf = s.buf[:0]
	if s.it == nil {
		s.it = new(norm.Iter)
	}
	s.it.Init(norm.NFD, word)
	for !s.it.Done() {
		for _, r := range string(s.it.Next()) {
			if !unicode.Is(unicode.Mn, r) {
				s.buf = utf8.AppendRune(s.buf, unicode.ToLower(r))
			}
		}
	}
	return s.buf
}

// stemmed folds the commonest English plural endings: "notes" is
// "note", "stories" is "story", "tomatoes" is "tomato", "boxes" is "box";
// "class", "status" and "analysis" stay. w is never written to: it may
// be a view of the note's text.
func (s *scanner) stemmed(w []byte) []byte {
	n := len(w)
	switch {
	case n > 4 && bytes.HasSuffix(w, []byte("ies")):
		s.stem = append(append(s.stem[:0], w[:n-3]...), 'y')
		return s.stem
	case n > 5 && bytes.HasSuffix(w, []byte("oes")), n > 4 && (bytes.HasSuffix(w, []byte("sses")) || bytes.HasSuffix(w, []byte("xes")) || bytes.HasSuffix(w, []byte("shes"))):
		return w[:n-2]
	case n > 3 && w[n-1] == 's' && !bytes.HasSuffix(w, []byte("ss")) && !bytes.HasSuffix(w, []byte("us")) && !bytes.HasSuffix(w, []byte("is")):
		return w[:n-1]
	}
	return w
}
