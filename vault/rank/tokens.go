package rank

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxTokenBytes drops longer "words" (hashes, base64, URLs run together):
// nobody searches for them by relevance, and grep finds them.
const maxTokenBytes = 48

// tokens calls fn with each search term of text: runs of letters and
// digits, lowercased, accents dropped, English plurals folded to the
// singular; each Han, kana or Hangul character is a term of its own (no
// spaces separate words there). Single Latin letters and digits are
// skipped as noise.
func tokens(text string, fn func(term string)) {
	var buf []byte
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
		if t := normalize(word, buf[:0]); len(t) > 1 {
			fn(t)
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
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case ideographic(r):
			flush(i)
			fn(strings.ToLower(text[i : i+n]))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
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

// ideographic reports whether r belongs to a script written without
// spaces between words.
func ideographic(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// normalize lowercases a word, drops accents ("café" is "cafe") and folds
// a plural ending.
func normalize(word string, buf []byte) string {
	ascii := true
	for i := 0; i < len(word); i++ {
		if word[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	var s string
	if ascii {
		s = strings.ToLower(word)
	} else {
		for _, r := range norm.NFD.String(word) {
			if unicode.Is(unicode.Mn, r) {
				continue
			}
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		}
		s = string(buf)
	}
	return stem(s)
}

// stem folds the commonest English plural endings: "notes" is "note",
// "stories" is "story", "tomatoes" is "tomato", "boxes" is "box";
// "class", "status" and "analysis" stay.
func stem(s string) string {
	n := len(s)
	switch {
	case n > 4 && strings.HasSuffix(s, "ies"):
		return s[:n-3] + "y"
	case n > 5 && strings.HasSuffix(s, "oes"), n > 4 && (strings.HasSuffix(s, "sses") || strings.HasSuffix(s, "xes") || strings.HasSuffix(s, "shes")):
		return s[:n-2]
	case n > 3 && s[n-1] == 's' && !strings.HasSuffix(s, "ss") && !strings.HasSuffix(s, "us") && !strings.HasSuffix(s, "is"):
		return s[:n-1]
	}
	return s
}

func isLetterOrDigit(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}
