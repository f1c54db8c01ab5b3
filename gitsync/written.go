package gitsync

import (
	"os"
	"path/filepath"
)

// readStaged returns the content of the worktree file p, for staging:
// the bytes the caller of Prepare wrote when the file is still the one
// it wrote (see changes.File.Is), else the file read. The placing file is
// read at its temporary name.
func (r *Repo) readStaged(req request, p string) ([]byte, os.FileInfo, error) {
	full := req.placing.at(p, filepath.Join(r.dir, filepath.FromSlash(p)))
	if w, ok := req.written[p]; ok {
		if fi, err := os.Lstat(full); err == nil && w.Is(fi) {
			return w.Data, fi, nil
		}
	}
	return readWorktreeFile(full)
}
