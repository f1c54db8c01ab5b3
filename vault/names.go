package vault

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Names are compared in one Unicode form everywhere. macOS and some sync
// tools store names decomposed (NFD: "e" followed by a combining accent),
// clients send them composed (NFC), and the two spellings must find the
// same files in every search, filter and completion, while answers keep
// the path as it is stored on disk (the one the other tools accept).
// Callers normalise a pattern once and each name as they compare it; the
// helpers below return a name already in the wanted form as it is, so
// the common case costs one scan and no copy.

// NFC returns name in Unicode normal form C, the form names are compared
// in. The fast check is QuickSpanString rather than IsNormalString: both
// scan once, but IsNormalString allocates its reorder buffer on every
// call, which a match over 10,000 names would pay 10,000 times.
func NFC(name string) string {
	if norm.NFC.QuickSpanString(name) == len(name) {
		return name
	}
	return norm.NFC.String(name)
}

// FoldName is the form names are compared in when case does not matter:
// NFC and lower case.
func FoldName(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return strings.ToLower(NFC(name))
		}
	}
	return strings.ToLower(name)
}

// LooseName is the form a name is compared in when a person typed part of
// it: lower case, accents and other combining marks dropped ("Été 2026"
// is "ete 2026"), the rest recomposed to NFC (Hangul syllables stay
// whole). It serves completion and did-you-mean suggestions, never the
// question which file a path names.
func LooseName(name string) string {
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(name)
	}
	buf := make([]byte, 0, len(name))
	var it norm.Iter
	it.InitString(norm.NFD, name)
	for !it.Done() {
		for _, r := range string(it.Next()) {
			if !unicode.Is(unicode.Mn, r) {
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
			}
		}
	}
	return NFC(string(buf))
}
