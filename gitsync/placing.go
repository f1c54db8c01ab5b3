package gitsync

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/internal/syncfs"
	"vaultmcp/vault/changes"
)

// A change's last written note and its commit share their flushes. The
// caller (the vault) writes the note's new content to a temporary file
// beside it, without flushing it, and keeps the bytes; Prepare builds the
// commit from those bytes and flushes the temporary file together with
// the commit's objects, their folders and the ref lock (one barrier where
// there is one); the caller renames the note into place; Publish renames
// the ref into place and flushes the folders of both renames. Two device
// flushes instead of three: the note's own fsync before its rename is
// gone.
//
// Who owns what: the vault writes the temporary file, renames it, and
// keeps what undoes the change (the old note's backup, the temporary
// file's removal); gitsync makes the rename durable and decides nothing
// about it. If the commit fails before the rename, the temporary file is
// still there and the vault removes it; if it fails after (the ref could
// not be renamed), the vault puts the old note back, as for any change
// whose recording failed. Once the ref has moved the change stands: a
// failure to flush the folders of the renames is a *NotFlushedError, and
// the vault keeps the note as committed.

// placing is the file of a change the caller wrote under a temporary name
// and puts into place between Prepare and Publish. A nil *placing stands
// for none: its methods do nothing.
type placing struct {
	rel   string          // the vault path, as committed
	tmp   string          // the temporary file holding its new content
	bar   *syncfs.Barrier // opened before tmp was written; may be nil
	full  string          // rel, absolute
	dirAt string          // rel's folder, absolute
	done  bool            // Publish found it in place
}

// newPlacing takes the caller's placing file, whose path must be clean.
func (r *Repo) newPlacing(c *changes.Placing) (*placing, error) {
	rel, err := store.CleanPath(c.Rel)
	if err != nil {
		return nil, err
	}
	full := filepath.Join(r.dir, filepath.FromSlash(rel))
	return &placing{rel: rel, tmp: c.Tmp, bar: c.Barrier, full: full, dirAt: filepath.Dir(full)}, nil
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

// placed checks, as Publish starts, that the caller put the file into
// place: its temporary file is gone and the note is there. An error says
// it did not; nothing may then be committed. (The note is not compared
// with the temporary file: an editor saving over it a moment after the
// rename must not turn into a rollback over that save.)
func (pl *placing) placed() error {
	if pl == nil || pl.done {
		return nil
	}
	_, tmpErr := os.Lstat(pl.tmp)
	if _, err := os.Lstat(pl.full); err != nil || !errors.Is(tmpErr, fs.ErrNotExist) {
		return fmt.Errorf("%s was not put into place before its commit", pl.rel)
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
