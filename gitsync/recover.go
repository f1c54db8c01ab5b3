package gitsync

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"vaultmcp/gitsync/internal/store"
)

// recoverLocks runs at Open: lock files a vaultmcp process left when it
// was killed are removed (see store.RecoverLocks for how ours are told from a
// live git command's), and the others are reported, since every commit will
// wait for them and fail. It never fails Open: the worst case is the
// error a commit would give anyway.
func (r *Repo) recoverLocks() {
	candidates := []string{
		filepath.Join(r.gitDir, "index.lock"),
		filepath.Join(r.gitDir, "HEAD.lock"),
		filepath.Join(r.gitDir, "packed-refs.lock"),
		filepath.Join(r.gitDir, "config.lock"),
	}
	_ = filepath.WalkDir(filepath.Join(r.gitDir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".lock") {
			candidates = append(candidates, p)
		}
		return nil
	})
	removed, foreign, err := store.RecoverLocks(r.gitDir, candidates)
	if err != nil {
		r.log.Warn("checking for stale lock files", "err", err)
		return
	}
	for _, p := range removed {
		r.log.Warn("removed a stale lock file left by a vaultmcp process that was stopped mid-commit", "lock", r.gitRel(p))
	}
	for _, p := range foreign {
		r.log.Warn("a lock file is in the way: another git command is running, or one crashed (then delete the file)", "lock", r.gitRel(p))
	}
}

// gitRel names a file inside .git for logs.
func (r *Repo) gitRel(p string) string {
	if rel, err := filepath.Rel(r.gitDir, p); err == nil {
		return ".git/" + filepath.ToSlash(rel)
	}
	return p
}

// writeFileAtomic replaces a small file inside .git (temp file, flush,
// rename), so that a crash leaves the old or the new content.
func (r *Repo) writeFileAtomic(p string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(p), filepath.Base(p)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil && !r.opts.NoFsync {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
