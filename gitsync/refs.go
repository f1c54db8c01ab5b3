package gitsync

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// errRefMoved says a ref changed under us (someone ran git on the vault).
var errRefMoved = errors.New("the branch moved while committing (another git process?)")

// updateRef moves ref name from old to new the way git does: create
// <ref>.lock exclusively, check the current value, write, rename. The lock
// keeps the git CLI out meanwhile, the rename makes the change atomic for
// readers, and the check makes it a compare-and-swap. A reflog line is
// appended, so `git reflog` can bring back anything.
func (r *Repo) updateRef(name plumbing.ReferenceName, newHash, old plumbing.Hash, msg string) error {
	path := filepath.Join(r.gitDir, filepath.FromSlash(name.String()))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("update %s: %w", name, err)
	}
	lockPath := path + ".lock"
	deadline := time.Now().Add(lockWait)
	var f *os.File
	for {
		var err error
		f, err = os.OpenFile(lockPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("lock %s: %w", name, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("lock %s: %s.lock exists (another git process?)", name, name)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cur, err := r.refHash(name)
	if err == nil && cur != old {
		err = errRefMoved
	}
	if err == nil {
		_, err = f.WriteString(newHash.String() + "\n")
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(lockPath, path)
	}
	if err != nil {
		os.Remove(lockPath)
		return fmt.Errorf("update %s: %w", name, err)
	}
	r.appendReflog(name, old, newHash, msg)
	return nil
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
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			r.log.Debug("reflog", "err", err)
			continue
		}
		f.WriteString(line)
		f.Close()
	}
}
