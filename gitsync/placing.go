package gitsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/internal/syncfs"
)

// A change's last written note and its commit share their flushes. The
// caller (the vault) writes the note's new content to a temporary file
// beside it, without flushing it, and keeps the bytes; RecordPlacing
// builds the commit from those bytes, flushes the temporary file together
// with the commit's objects, their folders and the ref lock (one barrier
// where there is one), then calls back to rename the note into place,
// renames the ref into place, and flushes the folders of both renames.
// Two device flushes instead of three: the note's own fsync before its
// rename is gone.
//
// Who owns what: the vault writes the temporary file, keeps what undoes
// the change (the old note's backup, the temporary file's removal) and
// does the rename when called; gitsync decides when the rename happens
// and makes it durable. If the commit fails before the rename, the
// temporary file is still there and the vault removes it; if it fails
// after (the ref could not be renamed), the vault puts the old note back,
// as for any change whose recording failed. Once the ref has moved the
// change stands: a failure to flush the folders of the renames is a
// *NotFlushedError, and the vault keeps the note as committed.

// placing is a file the caller of RecordPlacing wrote under a temporary
// name and has yet to rename into place. A nil *placing stands for none:
// its methods do nothing.
type placing struct {
	rel   string          // the vault path, as committed
	tmp   string          // the temporary file holding its new content
	bar   *syncfs.Barrier // opened before tmp was written; may be nil
	place func() error    // renames tmp to rel
	done  bool            // place succeeded
	full  string          // rel, absolute
	dirAt string          // rel's folder, absolute
}

// RecordPlacing is RecordWritten for a change whose file rel the caller
// wrote to the temporary file tmp (beside rel, not flushed) and has not
// yet renamed into place: the commit takes rel's content from tmp (the
// bytes known holds, as RecordWritten does), tmp is flushed with the
// commit's files, and place is called to rename tmp over rel once they
// are all on disk and before the branch moves. bar, when not nil, is a
// barrier opened before tmp was written (see package syncfs), so that
// one syncfs covers tmp and, on the same file system, the commit.
//
// When RecordPlacing returns nil, rel is in place and durable, and so is
// the commit (or HEAD, when the content was already committed). When it
// returns a *NotFlushedError, the commit was made and the branch points
// at it, rel is in place, but the last flush failed: the caller keeps the
// change. On any other error, place may or may not have been called: the
// caller undoes the change either way.
func (r *Repo) RecordPlacing(ctx context.Context, summary string, paths []string, known Written, rel, tmp string, bar *syncfs.Barrier, place func() error) (string, error) {
	c, err := store.CleanPath(rel)
	if err != nil {
		return "", err
	}
	full := filepath.Join(r.dir, filepath.FromSlash(c))
	pl := &placing{rel: c, tmp: tmp, bar: bar, place: place, full: full, dirAt: filepath.Dir(full)}
	res, err := r.commitPaths(ctx, r.opts.MessagePrefix+summary, paths, known, pl)
	if err != nil {
		// The branch moves only once the note is in place: a
		// *NotFlushedError comes with the note placed and the commit made.
		var nf *NotFlushedError
		if errors.As(err, &nf) {
			return res.Hash, fmt.Errorf("commit %s: %w", rel, err)
		}
		return "", fmt.Errorf("commit %s: %w", rel, err)
	}
	if !pl.done {
		// Every path through commitPaths that succeeds places the file:
		// a commit must never be acknowledged without its note.
		return "", fmt.Errorf("commit %s: the note was not put into place", rel)
	}
	return res.Hash, nil
}

// at returns where the worktree file p is to be read and looked at for
// staging: the temporary file for the file being placed, full otherwise.
func (pl *placing) at(p, full string) string {
	if pl != nil && !pl.done && p == pl.rel {
		return pl.tmp
	}
	return full
}

// others returns paths without the one being placed, whose folder is
// flushed after its rename rather than with the commit.
func (pl *placing) others(paths []string) []string {
	if pl == nil {
		return paths
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if p != pl.rel {
			out = append(out, p)
		}
	}
	return out
}

// barrierFor returns the caller's barrier when it covers the repository
// at gitDir, so that the commit's files go into the same syncfs as the
// temporary file; nil otherwise.
func (pl *placing) barrierFor(gitDir string) *syncfs.Barrier {
	if pl == nil || pl.bar == nil {
		return nil
	}
	fi, err := os.Stat(gitDir)
	if err != nil || !pl.bar.Covers(fi) {
		return nil
	}
	return pl.bar
}

// flushWith adds the temporary file to the commit's flushes: to the
// barrier bar when it is the caller's (opened before the file was
// written), else to an fsync of its own. The note's content is flushed
// before its rename whatever git.fsync says, as the vault's own writes
// are: with durability off it is flushed here and now.
func (pl *placing) flushWith(fl *flusher, bar *syncfs.Barrier) error {
	if pl == nil {
		return nil
	}
	if fl.off {
		return fsyncPath(pl.tmp)
	}
	if bar != nil && bar == pl.bar {
		fl.add(pl.tmp)
		return nil
	}
	fl.addOwn(pl.tmp)
	return nil
}

// rename puts the file into place.
func (pl *placing) rename() error {
	if pl == nil || pl.done {
		return nil
	}
	if err := pl.place(); err != nil {
		return fmt.Errorf("put %s into place: %w", pl.rel, err)
	}
	pl.done = true
	return nil
}

// restat gives the index entry staged for the file placed the stat data
// it has in place: the rename changed its ctime, and an entry holding the
// temporary file's would make `git status` and the scan for outside
// changes hash the note again. A file no longer the one staged keeps the
// entry as it is (the scan then hashes it, as it should).
func (pl *placing) restat(upd *store.IndexUpdate) {
	if pl == nil || !pl.done {
		return
	}
	e, ok := upd.Set[pl.rel]
	if !ok {
		return
	}
	fi, err := os.Lstat(pl.full)
	// The index keeps an inode's low 32 bits, as git does.
	if err != nil || uint32(store.InodeOf(fi)) != e.Inode || uint32(fi.Size()) != e.Size {
		return
	}
	store.FillStat(e, fi)
}

// dir returns the folder of the file placed, to flush after its rename;
// "" for none.
func (pl *placing) dir() string {
	if pl == nil || !pl.done {
		return ""
	}
	return pl.dirAt
}

// placeUnchanged puts the file into place for a change that makes no new
// commit (its content is already HEAD's): the temporary file is flushed
// (by the stage's barrier, the caller's or none), renamed, and its
// folder flushed; the index entry staged for it takes its stat data in
// place; pl nil is none. r.mu is held.
func (r *Repo) placeUnchanged(pl *placing, s *stage) error {
	if pl == nil {
		return nil
	}
	fl := r.startFlush(s.bar)
	if err := pl.flushWith(fl, s.bar); err != nil {
		return err
	}
	if err := fl.wait(); err != nil {
		return err
	}
	if err := pl.rename(); err != nil {
		return err
	}
	pl.restat(s.index)
	return r.flush(pl.dir())
}
