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

// CompareNames orders names as listings show them: by their FoldName
// form (NFC, case ignored), ties broken by the bytes as stored. A name
// stored decomposed sorts where its composed spelling does ("Café 2"
// after "Café 1" and after "Cafe 9" whichever form each is stored in).
// Names that differ in ASCII are compared in place, without a copy; only
// a difference at or just before a non-ASCII byte normalises both.
func CompareNames(a, b string) int { return compareNamed(a, b, true, false) }

// ComparePaths orders vault paths the way a walk visits them, folder by
// folder ('/' before every other byte), each folder's names by the bytes
// of their NFC form; ties broken by the bytes as stored. Like
// CompareNames it copies nothing unless the paths differ near a
// non-ASCII byte.
func ComparePaths(a, b string) int { return compareNamed(a, b, false, true) }

func compareNamed(a, b string, fold, slashFirst bool) int {
	n := min(len(a), len(b))
	i := 0
	for ; i < n; i++ {
		ca, cb := a[i], b[i]
		if fold {
			ca, cb = lowerASCII(ca), lowerASCII(cb)
		}
		if ca != cb {
			break
		}
	}
	// A non-ASCII byte where they differ, or a combining mark right
	// after, can change the order once composed.
	if nonASCIINear(a, i) || nonASCIINear(b, i) {
		ka, kb := NFC(a), NFC(b)
		if fold {
			ka, kb = FoldName(ka), FoldName(kb)
		}
		if c := compareBytes(ka, kb, slashFirst); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	}
	if i == n {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	}
	ca, cb := a[i], b[i]
	if fold {
		ca, cb = lowerASCII(ca), lowerASCII(cb)
	}
	return orderBytes(ca, cb, slashFirst)
}

func nonASCIINear(s string, i int) bool {
	return (i < len(s) && s[i] >= utf8.RuneSelf) || (i+1 < len(s) && s[i+1] >= utf8.RuneSelf)
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// compareBytes is strings.Compare, with '/' first when slashFirst.
func compareBytes(a, b string, slashFirst bool) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return orderBytes(a[i], b[i], slashFirst)
		}
	}
	return len(a) - len(b)
}

func orderBytes(ca, cb byte, slashFirst bool) int {
	switch {
	case ca == cb:
		return 0
	case slashFirst && ca == '/':
		return -1
	case slashFirst && cb == '/':
		return 1
	case ca < cb:
		return -1
	}
	return 1
}
