package vault

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// A file's version is the git blob id of its bytes: the SHA-1 of
// "blob <size>\x00" followed by the content, what `git hash-object`
// prints. A client that read a version can name it when it writes back,
// and the server compares it with the file's bytes under the write lock;
// the same id names the bytes in git's objects once they are committed,
// so the two versions can be diffed.

// Absent is the version of a file that does not exist: a write expecting
// it creates the file only if it is still missing.
const Absent = "absent"

// Version is the git blob id of data.
func Version(data []byte) string {
	h := NewVersionHash(int64(len(data)))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// NewVersionHash is a hash that, fed exactly size bytes, sums to their
// version (hex-encode its Sum); for reading a file and hashing it in one
// pass.
func NewVersionHash(size int64) hash.Hash {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.FormatInt(size, 10) + "\x00"))
	return h
}

// CheckVersion refuses a version a client cannot mean: a 40-digit hex
// blob id or Absent. field names the argument in the message.
func CheckVersion(field, version string) error {
	if version == Absent {
		return nil
	}
	if len(version) != 40 || !isLowerHex(strings.ToLower(version)) {
		return newError(ErrInvalidInput, "", "%s %q is not a version: give the 40-digit version a read returned, or %q to create the file only if it does not exist", field, version, Absent)
	}
	return nil
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

type expectedKey struct{}

// WithExpectedVersion makes every change made with the returned context
// conditional: the file it names (the source of a rename) must be at
// version (a blob id, or Absent for a file that does not exist), checked
// under the write lock before anything is written; otherwise the change
// fails with a *VersionConflictError and nothing is written or recorded.
// An empty version leaves ctx unconditional.
func WithExpectedVersion(ctx context.Context, version string) context.Context {
	if version == "" {
		return ctx
	}
	if version != Absent {
		version = strings.ToLower(version)
	}
	return context.WithValue(ctx, expectedKey{}, version)
}

// ExpectedVersion is the version ctx's changes are conditional on.
func ExpectedVersion(ctx context.Context) (string, bool) {
	v, ok := ctx.Value(expectedKey{}).(string)
	return v, ok
}

// VersionConflictError is a conditional change refused because the file
// is not at the version the client expected. Nothing was written.
type VersionConflictError struct {
	Path     string // vault-relative
	Expected string // the version the client gave
	Current  string // the file's version now, or Absent
	// Data is the file's content now (nil when Absent or not a regular
	// file), so the answer can show what changed.
	Data []byte
}

// Error says what was refused and what to do.
func (e *VersionConflictError) Error() string {
	switch {
	case e.Current == Absent:
		return fmt.Sprintf("Not written: %s does not exist now (it was expected at version %s); it was deleted or renamed since it was read. Nothing was written or committed.", e.Path, e.Expected)
	case e.Expected == Absent:
		return fmt.Sprintf("Not written: %s exists now (version %s) and if_version %q asked to create it only if missing. Nothing was written or committed; read it, merge by hand and retry with its version.", e.Path, e.Current, Absent)
	}
	return fmt.Sprintf("Not written: %s changed since version %s was read; it is now version %s. Nothing was written or committed; merge by hand and retry with if_version set to the current version.", e.Path, e.Expected, e.Current)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *VersionConflictError) Is(target error) bool { return target == ErrConflict }

// ErrConflict is the kind of a *VersionConflictError.
var ErrConflict = errors.New("version conflict")

// checkExpected compares ctx's expected version with the file at p; call
// it under the write lock before anything is written. data is p's
// content when the caller already read it whole (read true); otherwise
// the file is read here, and only when ctx carries an expectation.
func checkExpected(ctx context.Context, p Path, data []byte, read bool) error {
	want, ok := ExpectedVersion(ctx)
	if !ok {
		return nil
	}
	cur := Absent
	if read {
		cur = Version(data)
	} else {
		var err error
		if cur, data, err = currentVersion(p); err != nil {
			return osError(p.Given, err)
		}
	}
	if cur == want {
		return nil
	}
	return &VersionConflictError{Path: p.Rel, Expected: want, Current: cur, Data: data}
}

// currentVersion is the version of what is at p now: a regular file's
// bytes, a symbolic link's target (as git stores it), or Absent.
func currentVersion(p Path) (string, []byte, error) {
	fi, err := os.Lstat(p.Abs)
	switch {
	case errors.Is(err, fs.ErrNotExist) || isNotDir(err):
		return Absent, nil, nil
	case err != nil:
		return "", nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p.Abs)
		if err != nil {
			return "", nil, err
		}
		return Version([]byte(target)), nil, nil
	case fi.IsDir():
		return Absent, nil, nil
	}
	data, err := readRegular(p.Abs)
	if err != nil {
		return "", nil, err
	}
	return Version(data), data, nil
}

// expectMissing turns a not-found failure to find the file a conditional
// change names into a conflict: the client expected a version, and the
// file is gone.
func (v *Vault) expectMissing(ctx context.Context, given string, err error) error {
	want, ok := ExpectedVersion(ctx)
	if !ok || want == Absent || !errors.Is(err, ErrNotFound) {
		return err
	}
	rel := given
	if p, rerr := v.Resolve(given); rerr == nil {
		rel = p.Rel
	}
	return &VersionConflictError{Path: rel, Expected: want, Current: Absent}
}

type writtenKey struct{}

// WithWrittenVersion has the change made with the returned context call
// report with the file's version after it, under the write lock (so no
// later change is taken for it): rel is the file's vault-relative path.
// Writes, edits, modifications and creations report; deletions and
// renames do not.
func WithWrittenVersion(ctx context.Context, report func(rel, version string)) context.Context {
	return context.WithValue(ctx, writtenKey{}, report)
}

// reportWritten tells ctx's WithWrittenVersion callback the version of
// data, the content p holds after a change; nothing is hashed without one.
func reportWritten(ctx context.Context, p Path, data []byte) {
	if report, ok := ctx.Value(writtenKey{}).(func(rel, version string)); ok && report != nil {
		report(p.Rel, Version(data))
	}
}
