package edit

import (
	"errors"
	"fmt"
	"strings"
)

// Kinds of edit errors, for errors.Is.
var (
	// ErrNotFound: the heading, block or property named does not exist.
	ErrNotFound = errors.New("target not found")
	// ErrAmbiguous: the target names more than one heading or block.
	ErrAmbiguous = errors.New("target is ambiguous")
	// ErrInvalid: the request cannot be applied to this note (a bad
	// operation, a frontmatter that does not parse, a value of the wrong
	// type).
	ErrInvalid = errors.New("invalid edit")
)

// maxCandidates caps the candidates an error lists, so it stays short on
// a note with hundreds of headings.
const maxCandidates = 50

// Error is a failed edit, phrased for the client. Candidates lists what
// the target could have been (headings as "A::B" paths, "^ids", property
// keys) when it was not found or ambiguous.
type Error struct {
	Kind       error
	Msg        string
	Candidates []string
	// More counts candidates left out of the list.
	More int
}

// Error returns the message, with the first candidates spelled out for
// clients that show only the message.
func (e *Error) Error() string {
	if len(e.Candidates) == 0 {
		return e.Msg
	}
	shown := e.Candidates
	if len(shown) > 10 {
		shown = shown[:10]
	}
	q := make([]string, len(shown))
	for i, c := range shown {
		q[i] = fmt.Sprintf("%q", c)
	}
	more := len(e.Candidates) - len(shown) + e.More
	tail := ""
	if more > 0 {
		tail = fmt.Sprintf(" and %d more", more)
	}
	return e.Msg + ": " + strings.Join(q, ", ") + tail
}

// Unwrap returns the error's kind.
func (e *Error) Unwrap() error { return e.Kind }

func invalid(format string, args ...any) *Error {
	return &Error{Kind: ErrInvalid, Msg: fmt.Sprintf(format, args...)}
}

// withCandidates builds a not-found or ambiguous error, keeping at most
// maxCandidates of them.
func withCandidates(kind error, candidates []string, format string, args ...any) *Error {
	e := &Error{Kind: kind, Msg: fmt.Sprintf(format, args...), Candidates: candidates}
	if len(candidates) > maxCandidates {
		e.Candidates, e.More = candidates[:maxCandidates], len(candidates)-maxCandidates
	}
	if e.Candidates == nil {
		e.Candidates = []string{}
	}
	return e
}
