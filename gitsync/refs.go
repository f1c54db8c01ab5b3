package gitsync

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"vaultmcp/gitsync/internal/store"
)

// errRefMoved says a ref changed under us (someone ran git on the vault).
var errRefMoved = errors.New("the branch moved while committing (another git process?)")

// refLock is a ref update in progress: <ref>.lock holds the new value,
// checked against the old one.
type refLock struct {
	r         *Repo
	name      plumbing.ReferenceName
	path      string
	lock      *store.LockFile
	old, next plumbing.Hash
	msg       string
}

// lockRef starts moving ref name from old to next the way git does: create
// <ref>.lock exclusively, check the current value, write the new one (the
// caller flushes lockPath with the objects). The lock keeps the git CLI
// out until commit or abort, and the check makes the update a
// compare-and-swap.
func (r *Repo) lockRef(name plumbing.ReferenceName, next, old plumbing.Hash, msg string) (*refLock, error) {
	path := filepath.Join(r.gitDir, filepath.FromSlash(name.String()))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("update %s: %w", name, err)
	}
	lock, err := store.TakeLock(r.gitDir, path+".lock")
	if errors.Is(err, store.ErrLocked) {
		return nil, fmt.Errorf("lock %s: %s.lock exists (another git process? if none is running, delete the file)", name, name)
	}
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", name, err)
	}
	cur, err := r.refHash(name)
	if err == nil && cur != old {
		err = errRefMoved
	}
	if err == nil {
		err = lock.Write([]byte(next.String()+"\n"), false)
	}
	if err != nil {
		lock.Abort()
		return nil, fmt.Errorf("update %s: %w", name, err)
	}
	return &refLock{r: r, name: name, path: path, lock: lock, old: old, next: next, msg: msg}, nil
}

// commit renames the lock into place (the ref now has its new value) and
// appends the reflog line. The rename's folder is flushed by the caller
// (see dir).
func (l *refLock) commit() error {
	if err := l.lock.Commit(l.path); err != nil {
		return fmt.Errorf("update %s: %w", l.name, err)
	}
	l.r.appendReflog(l.name, l.old, l.next, l.msg)
	return nil
}

// abort drops the update.
func (l *refLock) abort() { l.lock.Abort() }

// dir is the folder of the ref file.
func (l *refLock) dir() string { return filepath.Dir(l.path) }

// lockPath is the lock file holding the new value.
func (l *refLock) lockPath() string { return l.lock.Path }

// updateRef moves ref name from old to next in one go (lockRef, commit,
// flush), appending a reflog line, so `git reflog` can bring back
// anything. The objects next refers to must already be flushed.
func (r *Repo) updateRef(name plumbing.ReferenceName, next, old plumbing.Hash, msg string) error {
	l, err := r.lockRef(name, next, old, msg)
	if err != nil {
		return err
	}
	if err := r.flush(l.lockPath()); err != nil {
		l.abort()
		return err
	}
	if err := l.commit(); err != nil {
		return err
	}
	return r.flush(l.dir())
}

// appendReflog records a ref move in logs/<ref> (and logs/HEAD for our
// branch). A failure is only logged: the reflog is a convenience.
func (r *Repo) appendReflog(name plumbing.ReferenceName, old, newHash plumbing.Hash, msg string) {
	now := r.opts.Now()
	line := fmt.Sprintf("%s %s %s <%s> %d %s\t%s\n", old, newHash, r.opts.AuthorName, r.opts.AuthorEmail,
		now.Unix(), now.Format("-0700"), msg)
	logs := []string{name.String()}
	if name == r.branch {
		logs = append(logs, "HEAD")
	}
	for _, l := range logs {
		p := filepath.Join(r.gitDir, "logs", filepath.FromSlash(l))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.log.Debug("reflog", "err", err)
			continue
		}
		f, err := store.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			r.log.Debug("reflog", "err", err)
			continue
		}
		f.WriteString(line)
		f.Close()
	}
}

// reflogTail is how much of a reflog upstreamTips reads: the newest
// entries, a few hundred lines.
const reflogTail = 32 << 10

// upstreamTips returns the heads the remote-tracking branch has had: its
// current value and the new values in its reflog (written by us on every
// push and integration, and by the git CLI on `git fetch`). Commits
// reachable from any of them are ones the remote had; a sync never
// replays them.
func (r *Repo) upstreamTips() []plumbing.Hash {
	var tips []plumbing.Hash
	seen := map[plumbing.Hash]bool{}
	addTip := func(h plumbing.Hash) {
		if !h.IsZero() && !seen[h] {
			seen[h] = true
			tips = append(tips, h)
		}
	}
	if h, err := r.refHash(r.trackingRef()); err == nil {
		addTip(h)
	}
	f, err := os.Open(filepath.Join(r.gitDir, "logs", filepath.FromSlash(r.trackingRef().String())))
	if err != nil {
		return tips
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > reflogTail {
		if _, err := f.Seek(fi.Size()-reflogTail, io.SeekStart); err != nil {
			return tips
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, reflogTail))
	if err != nil {
		return tips
	}
	lines := strings.Split(string(data), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		// "<old> <new> <who> <when>\t<msg>"; a partial first line after
		// the seek fails the length check.
		fields := strings.Fields(lines[i])
		if len(fields) >= 2 && len(fields[1]) == 40 {
			if h, ok := parseHash(fields[1]); ok {
				addTip(h)
			}
		}
	}
	return tips
}

// parseHash reads a full lowercase hex object name, as git writes it.
func parseHash(s string) (plumbing.Hash, bool) {
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
// our branch and a loose ref holding a hash, with one open and one read,
// and leave every other case (packed refs, a detached or other HEAD, a
// file being rewritten) to go-git.

// headIsBranch reports whether .git/HEAD holds exactly "ref: <our
// branch>", as git writes it.
func (r *Repo) headIsBranch() bool {
	var buf [256]byte
	b, ok := readSmall(filepath.Join(r.gitDir, "HEAD"), buf[:])
	return ok && string(b) == "ref: "+r.branch.String()+"\n"
}

// looseRef returns the hash a loose ref file holds, and false when the
// file is missing or holds anything else (an uppercase hash included:
// git writes lowercase, and go-git then reads whatever it is).
func (r *Repo) looseRef(name plumbing.ReferenceName) (plumbing.Hash, bool) {
	var buf [64]byte
	b, ok := readSmall(filepath.Join(r.gitDir, filepath.FromSlash(name.String())), buf[:])
	if !ok || len(b) != 41 || b[40] != '\n' {
		return plumbing.ZeroHash, false
	}
	return parseHash(string(b[:40]))
}

// readSmall reads a file of at most len(buf)-1 bytes into buf; ok is
// false when it cannot be read or is longer.
func readSmall(p string, buf []byte) ([]byte, bool) {
	f, err := store.OpenFile(p, os.O_RDONLY, 0)
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
