package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Sentinel kinds of vault errors. Every *Error unwraps to exactly one of
// them, so callers branch with errors.Is and never on message text.
var (
	ErrInvalidPath  = errors.New("invalid path")
	ErrOutside      = errors.New("outside the vault")
	ErrHidden       = errors.New("hidden directory")
	ErrNotFound     = errors.New("not found")
	ErrExists       = errors.New("already exists")
	ErrIsDir        = errors.New("is a directory")
	ErrNotDir       = errors.New("not a directory")
	ErrPermission   = errors.New("permission denied")
	ErrNoMatch      = errors.New("text not found")
	ErrAmbiguous    = errors.New("text matches more than once")
	ErrInvalidInput = errors.New("invalid input")
	ErrVaultMissing = errors.New("vault not found")
	ErrTooLarge     = errors.New("too large")
)

// Error is a failed vault operation, phrased for the client. Path is the
// path as the client gave it, never the server's absolute path, so the
// message can be shown to any client as it is.
type Error struct {
	Kind error  // one of the Err* sentinels
	Path string // as the client gave it
	Msg  string // the complete client-facing message
}

// Error returns the client-facing message.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the error's kind, for errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

func newError(kind error, path, format string, args ...any) *Error {
	return &Error{Kind: kind, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// osError turns an error from the os package into a client-safe *Error
// naming the given path. Raw *fs.PathError values carry absolute paths and
// must never reach a client.
func osError(given string, err error) error {
	var ve *Error
	if errors.As(err, &ve) {
		return ve
	}
	var nr errNotRegular
	if errors.As(err, &nr) {
		return notRegularError(given, nr.mode)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newError(ErrNotFound, given, "File not found: %s", given)
	case errors.Is(err, fs.ErrExist):
		return newError(ErrExists, given, "Already exists: %s", given)
	case errors.Is(err, fs.ErrPermission):
		return newError(ErrPermission, given, "Permission denied: %s", given)
	case errors.Is(err, syscall.ENOTDIR):
		return newError(ErrNotDir, given, "A parent of %s is a file, not a folder", given)
	case errors.Is(err, syscall.EISDIR):
		return newError(ErrIsDir, given, "Is a directory: %s", given)
	case errors.Is(err, syscall.ENOSPC):
		return newError(ErrInvalidInput, given, "No space left on the vault's disk while writing %s", given)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return newError(ErrInvalidPath, given, "%s", tooLong(given))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return newError(ErrInvalidInput, given, "%s %s: %v", pe.Op, given, pe.Err)
	}
	return newError(ErrInvalidInput, given, "%s: %v", given, err)
}

// tooLong says why the file system refused given as too long: one of its
// names is over the 255 bytes a name may have (on the file systems vaults
// live on), or else the whole path is too long. The path is shown cut, so
// that the error about a 5 KB path is not itself 5 KB.
func tooLong(given string) string {
	const maxName = 255
	longest := ""
	for name := range strings.SplitSeq(given, "/") {
		if len(name) > len(longest) {
			longest = name
		}
	}
	if len(longest) > maxName {
		return fmt.Sprintf("Path is too long: the name %s is %d bytes, and a file or folder name may have at most %d", shorten(longest), len(longest), maxName)
	}
	return fmt.Sprintf("Path is too long: %s is %d bytes, more than the file system takes", shorten(given), len(given))
}

// shorten quotes s, cut in its middle when it is long.
func shorten(s string) string {
	const keep = 40
	if len(s) <= 2*keep+10 {
		return strconv.Quote(s)
	}
	head, tail := s[:keep], s[len(s)-keep:]
	for len(head) > 0 && !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	for len(tail) > 0 && !utf8.ValidString(tail) {
		tail = tail[1:]
	}
	return strconv.Quote(head) + "…" + strconv.Quote(tail)
}
