package gitsync

import (
	"context"
	"os"
	"path/filepath"
)

// Written is what a caller that just wrote a file knows of it: the bytes
// it wrote and the file's stat data right after (identity, size,
// modification time). See RecordWritten.
type Written = func(rel string) (content []byte, fi os.FileInfo, ok bool)

// RecordWritten is Record for a change whose files the caller wrote and
// still holds: for a path known answers for, the commit takes the bytes
// held instead of reading the file back, as long as the file on disk is
// still the one written (same identity, size and modification time).
// A rename that relinks 1,800 notes so neither reads them again nor
// allocates a second copy of their text. A file changed since in a way
// the stat data cannot show (the same size within one clock tick) is
// committed as written; the file watcher's report of that outside change
// then compares the bytes and commits the file as it is (see
// CommitExternal), as it does for any outside edit.
func (r *Repo) RecordWritten(ctx context.Context, summary string, paths []string, known Written) (string, error) {
	res, err := r.commitWith(ctx, summary, paths, known)
	return res.Hash, err
}

// readStaged returns the content of the worktree file p, for staging:
// the bytes the caller of RecordWritten holds when the file is still the
// one it wrote, else the file read.
func (r *Repo) readStaged(req request, p string) ([]byte, os.FileInfo, error) {
	full := req.placing.at(p, filepath.Join(r.dir, filepath.FromSlash(p)))
	if req.written != nil {
		if content, was, ok := req.written(p); ok {
			fi, err := os.Lstat(full)
			if err == nil && fi.Mode().IsRegular() && os.SameFile(fi, was) &&
				fi.Size() == was.Size() && fi.ModTime().Equal(was.ModTime()) && int64(len(content)) == fi.Size() {
				return content, fi, nil
			}
		}
	}
	return readWorktreeFile(full)
}

// writtenRecorder restates the vault's WrittenRecorder interface, which
// gitsync does not import.
type writtenRecorder interface {
	recorder
	RecordWritten(ctx context.Context, summary string, paths []string, known func(rel string) ([]byte, os.FileInfo, bool)) (string, error)
}

var _ writtenRecorder = (*Repo)(nil)
