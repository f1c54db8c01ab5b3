// Package pattern bounds what clients send to be matched: search text,
// globs and regular expressions. Any credential that may search, a
// read-only or folder-scoped one included, can send them, and a pattern
// is prepared before a single file is read, so its size alone must not
// cost the server seconds or hundreds of megabytes: a 3.5 MB grep query
// took 4.7 s and 480 MB to compile, and `[ab]{0,1000}` written 340 times
// (4 KB) compiles to 680,000 instructions and 420 MB.
//
// The limits live here once: the search engines (vault/search,
// vault/query, vault/rank) check them, and the tools publish them in
// their input schemas as maxLength. Lengths count characters (Unicode code
// points), as JSON Schema's maxLength does, so a schema check and the
// engine's own check agree on every string.
package pattern

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

const (
	// MaxQuery is the longest search text or regular expression, in
	// characters: grep's query and search_notes' query. A real search is
	// a phrase or a regular expression of a line or two.
	MaxQuery = 4096
	// MaxGlob is the longest glob or file-name filter, in characters:
	// search_files' pattern, grep's include_pattern, find_files' name and
	// query_notes' path globs. A path is rarely longer than a few hundred
	// characters.
	MaxGlob = 1024
	// MaxGlobAlternatives caps the patterns a glob's {…} groups expand
	// to. The glob matcher tries each expansion against each name by
	// backtracking, so "{?,??}" written 22 times (4 million expansions)
	// takes seconds per file name; 128 keeps the worst case near 40 µs per
	// name, while "*.{md,png,jpg}" or "{2024,2025}-{01,02,…,12}*" stay well
	// inside.
	MaxGlobAlternatives = 128
	// MaxProgram caps a regular expression's compiled size, in
	// instructions of Go's regexp machine (about one per character of a
	// literal, one per class, and a repeat's body once per count: `\w{50}`
	// is about 50). Compiling costs about 600 bytes per instruction and
	// matching slows with the size; 10,000 holds any literal of MaxQuery
	// characters and every real expression, and refuses
	// `[ab]{0,1000}` written five times (four pass).
	MaxProgram = 10_000
)

// Error is a pattern refused for its size, phrased for the client.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// CheckLength refuses s when it is longer than limit characters; what
// names the argument in the message ("query", "pattern").
func CheckLength(what, s string, limit int) error {
	if len(s) <= limit {
		return nil // never more characters than bytes
	}
	if n := utf8.RuneCountInString(s); n > limit {
		return &Error{Msg: fmt.Sprintf("%s is %s characters long; the limit is %s", what, Group(n), Group(limit))}
	}
	return nil
}

// Group writes n with thousands separators: 3,500,000.
func Group(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
