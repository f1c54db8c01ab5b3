package changes

import (
	"context"
	"io/fs"
	"os"

	"vaultmcp/internal/syncfs"
)

// Batch is one announcement: the paths that changed and, for a change of
// the server's own, what it wrote.
type Batch struct {
	// Paths are vault-relative, '/'-separated paths: files or folders,
	// existing or gone.
	Paths []string
	// Written holds, by path, the files the change wrote as it wrote
	// them; nil for a pull or an outside edit. A listener that keeps
	// derived state takes a file's content from here instead of reading
	// it back, once it has checked the file on disk is still this one
	// (File.Is).
	Written map[string]File
}

// File is a file as a change of the server's own wrote it.
type File struct {
	// Data is the content written. Nobody modifies it: the writer hands
	// it over, and every reader shares it.
	Data []byte
	// Info is the file's stat data right after the write: identity,
	// size, modification time.
	Info fs.FileInfo
	// Abs is where it was written, resolved under the vault's write
	// lock.
	Abs string
}

// Is reports whether fi, the stat data of the file at f.Abs taken now,
// is still the file as written: the same identity, size and
// modification time. A file changed since in a way the stat data cannot
// show (the same size within one clock tick) passes; the watcher's
// report of that edit then compares the bytes.
func (f File) Is(fi fs.FileInfo) bool {
	return fi != nil && f.Info != nil && fi.Mode().IsRegular() && os.SameFile(fi, f.Info) &&
		fi.Size() == f.Info.Size() && fi.ModTime().Equal(f.Info.ModTime()) && int64(len(f.Data)) == fi.Size()
}

// Change is a change of the server's own as the vault hands it to its
// recorder, to be made durable: what it touched and wrote, and the file
// it left for the recorder's flush.
type Change struct {
	// Summary says what the change was, e.g. "write notes/daily.md".
	Summary string
	Batch
	// Placing is the change's last written file, which the vault wrote
	// under a temporary name and puts into place between the recorder's
	// two phases; nil for none.
	Placing *Placing
}

// Placing is a file the vault wrote to a temporary file beside it and has
// not flushed or renamed yet: its flush goes with the commit's (one
// barrier for both where there is one), and the vault renames it into
// place once Prepare returns, before Publish moves the branch.
type Placing struct {
	// Rel is the vault path; Written holds its content.
	Rel string
	// Tmp is the temporary file holding the new content.
	Tmp string
	// Barrier, when not nil, was opened before Tmp was written (see
	// package syncfs), so that one syncfs flushes Tmp and the commit.
	Barrier *syncfs.Barrier
}

// Recorder makes a change of the server's own durable in history (a git
// commit), in two phases. Prepare builds and flushes everything the change
// needs and returns holding the locks that keep anybody else from
// committing meanwhile; the vault then puts the placing file into place
// and calls Publish, or Abort when it could not. Every path through the
// vault ends in one of them, Abort deferred, so a panic cannot leave the
// locks held. Prepare returns a Pending exactly when its error is nil.
type Recorder interface {
	Prepare(ctx context.Context, c Change) (Pending, error)
}

// Pending is a prepared change (see Recorder).
type Pending interface {
	// Publish makes the change count (moves the branch) and flushes what
	// that did, then releases the locks. It returns the commit's short
	// hash; HEAD's when the change held nothing new. On an error that is
	// a CommittedError the change counts all the same; on any other, it
	// does not, and the vault undoes its files.
	Publish() (commit string, err error)
	// Abort gives the prepared change up and releases the locks. After
	// Publish it does nothing, so it can be deferred.
	Abort()
}

// CommittedError is Publish's error for a change that counts all the
// same: Committed is the commit's hash, and Unwrap gives what failed
// after the commit counted (flushing it to disk).
type CommittedError interface {
	error
	Committed() string
	Unwrap() error
}
