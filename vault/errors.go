package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
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
		return newError(ErrInvalidPath, given, "Path is too long: %s", given)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return newError(ErrInvalidInput, given, "%s %s: %v", pe.Op, given, pe.Err)
	}
	return newError(ErrInvalidInput, given, "%s: %v", given, err)
}
