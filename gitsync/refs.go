package gitsync

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"vaultmcp/gitsync/internal/store"
)

// refLock is a ref update in progress (store.RefLock) that appends the
// reflog line once the ref has moved.
type refLock struct {
	*store.RefLock
	r         *Repo
	name      plumbing.ReferenceName
	old, next plumbing.Hash
	msg       string
}

// lockRef starts moving ref name from old to next the way git does (see
// store.LockRef), checking the ref's current value under the lock.
func (r *Repo) lockRef(name plumbing.ReferenceName, next, old plumbing.Hash, msg string) (*refLock, error) {
	l, err := store.LockRef(r.gitDir, name, next, old, r.refHash)
	if err != nil {
		return nil, err
	}
	return &refLock{RefLock: l, r: r, name: name, old: old, next: next, msg: msg}, nil
}

// commit renames the lock into place (the ref now has its new value) and
// appends the reflog line. The rename's folder is flushed by the caller
// (see Dir).
func (l *refLock) commit() error {
	if err := l.Commit(); err != nil {
		return err
	}
	l.r.appendReflog(l.name, l.old, l.next, l.msg)
	return nil
}

// updateRef moves ref name from old to next in one go (lockRef, commit,
// flush), appending a reflog line, so `git reflog` can bring back
// anything. The objects next refers to must already be flushed.
func (r *Repo) updateRef(name plumbing.ReferenceName, next, old plumbing.Hash, msg string) error {
	l, err := r.lockRef(name, next, old, msg)
	if err != nil {
		return err
	}
	if err := r.flush(l.LockPath()); err != nil {
		l.Abort()
		return err
	}
	if err := l.commit(); err != nil {
		return err
	}
	return r.flush(l.Dir())
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
		if err := store.AppendReflog(r.gitDir, l, line); err != nil {
			r.log.Debug("reflog", "err", err)
		}
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
			if h, ok := store.ParseHash(fields[1]); ok {
				addTip(h)
			}
		}
	}
	return tips
}

// headIsBranch reports whether .git/HEAD holds exactly "ref: <our
// branch>" (see store.HeadIsBranch).
func (r *Repo) headIsBranch() bool { return store.HeadIsBranch(r.gitDir, r.branch) }

// looseRef returns the hash the loose ref file of name holds (see
// store.LooseRef).
func (r *Repo) looseRef(name plumbing.ReferenceName) (plumbing.Hash, bool) {
	return store.LooseRef(r.gitDir, name)
}
