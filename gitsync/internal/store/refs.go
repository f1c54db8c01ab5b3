package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrRefMoved says a ref changed under us (someone ran git on the vault).
var ErrRefMoved = errors.New("the branch moved while committing (another git process?)")

// RefLock is a ref update in progress: <ref>.lock holds the new value,
// checked against the old one.
type RefLock struct {
	name plumbing.ReferenceName
	path string
	lock *LockFile
}

// LockRef starts moving ref name of the repository at gitDir from old to
// next the way git does: create <ref>.lock exclusively, check the current
// value (read by current, with the lock held), write the new one (the
// caller flushes LockPath with the objects). The lock keeps the git CLI
// out until Commit or Abort, and the check makes the update a
// compare-and-swap.
func LockRef(gitDir string, name plumbing.ReferenceName, next, old plumbing.Hash, current func(plumbing.ReferenceName) (plumbing.Hash, error)) (*RefLock, error) {
	path := filepath.Join(gitDir, filepath.FromSlash(name.String()))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("update %s: %w", name, err)
	}
	lock, err := TakeLock(gitDir, path+".lock")
	if errors.Is(err, ErrLocked) {
		return nil, fmt.Errorf("lock %s: %s.lock exists (another git process? if none is running, delete the file)", name, name)
	}
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", name, err)
	}
	cur, err := current(name)
	if err == nil && cur != old {
		err = ErrRefMoved
	}
	if err == nil {
		err = lock.Write([]byte(next.String()+"\n"), false)
	}
	if err != nil {
		lock.Abort()
		return nil, fmt.Errorf("update %s: %w", name, err)
	}
	return &RefLock{name: name, path: path, lock: lock}, nil
}

// Commit renames the lock into place: the ref now has its new value. The
// rename's folder is flushed by the caller (see Dir).
func (l *RefLock) Commit() error {
	if err := l.lock.Commit(l.path); err != nil {
		return fmt.Errorf("update %s: %w", l.name, err)
	}
	return nil
}

// Abort drops the update.
func (l *RefLock) Abort() { l.lock.Abort() }

// Dir is the folder of the ref file.
func (l *RefLock) Dir() string { return filepath.Dir(l.path) }

// LockPath is the lock file holding the new value.
func (l *RefLock) LockPath() string { return l.lock.Path }

// AppendReflog appends line to the reflog of ref (logs/<ref>; "HEAD"
// for logs/HEAD) in the repository at gitDir.
func AppendReflog(gitDir, ref, line string) error {
	p := filepath.Join(gitDir, "logs", filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	f.WriteString(line)
	f.Close()
	return nil
}

// ParseHash reads a full lowercase hex object name, as git writes it.
func ParseHash(s string) (plumbing.Hash, bool) {
	if len(s) != 40 {
		return plumbing.ZeroHash, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return plumbing.ZeroHash, false
		}
	}
	return plumbing.NewHash(s), true
}

// Every commit reads HEAD and the branch ref (twice: for its parent and
// under the ref's lock). go-git's storage stats each file before opening
// it through os.Open; these read the common case, a symbolic HEAD naming
// a branch and a loose ref holding a hash, with one open and one read,
// and leave every other case (packed refs, a detached or other HEAD, a
// file being rewritten) to go-git.

// HeadIsBranch reports whether the HEAD of the repository at gitDir holds
// exactly "ref: <branch>", as git writes it.
func HeadIsBranch(gitDir string, branch plumbing.ReferenceName) bool {
	var buf [256]byte
	b, ok := readSmall(filepath.Join(gitDir, "HEAD"), buf[:])
	return ok && string(b) == "ref: "+branch.String()+"\n"
}

// LooseRef returns the hash a loose ref file holds, and false when the
// file is missing or holds anything else (an uppercase hash included:
// git writes lowercase, and go-git then reads whatever it is).
func LooseRef(gitDir string, name plumbing.ReferenceName) (plumbing.Hash, bool) {
	var buf [64]byte
	b, ok := readSmall(filepath.Join(gitDir, filepath.FromSlash(name.String())), buf[:])
	if !ok || len(b) != 41 || b[40] != '\n' {
		return plumbing.ZeroHash, false
	}
	return ParseHash(string(b[:40]))
}

// readSmall reads a file of at most len(buf)-1 bytes into buf; ok is
// false when it cannot be read or is longer.
func readSmall(p string, buf []byte) ([]byte, bool) {
	f, err := OpenFile(p, os.O_RDONLY, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf)
	if err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, false // longer than buf, or a read error
	}
	return buf[:n], true
}
