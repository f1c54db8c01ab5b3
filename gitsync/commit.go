package gitsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/internal/regularfile"
	"vaultmcp/internal/syncfs"
)

// Result says what a commit did.
type Result struct {
	// Hash is the short hash of the commit made, or of HEAD when there was
	// nothing to commit ("" in a repository without commits).
	Hash string
	// Full is the full hash behind Hash.
	Full plumbing.Hash
	// Created is false when the paths already matched HEAD (the same content
	// written again): no commit was made.
	Created bool
}

// NotFlushedError says a commit was made, and the branch points at it,
// but flushing the folders of its renames to disk failed after the branch
// moved: the change stands (the worktree holds it, as the branch does),
// but it may not survive a power loss. Before the branch moves, every
// failure leaves the branch where it was and is an ordinary error.
type NotFlushedError struct {
	Hash string        // the commit's short hash
	Full plumbing.Hash // the commit
	Err  error         // why the flush failed
}

// Error says what was committed and what failed.
func (e *NotFlushedError) Error() string {
	return fmt.Sprintf("commit %s was made, but flushing it to disk failed: %v", e.Hash, e.Err)
}

// Unwrap returns why the flush failed.
func (e *NotFlushedError) Unwrap() error { return e.Err }

// Committed returns the commit's short hash: the change stands.
func (e *NotFlushedError) Committed() string { return e.Hash }

// recorder is the shape of the vault's Recorder interface; gitsync does not
// import the vault, so the guard restates it.
type recorder interface {
	Record(ctx context.Context, summary string, paths []string) (commit string, err error)
}

var _ recorder = (*Repo)(nil)

// shortLen is the length of the abbreviated hashes handed to clients.
const shortLen = 7

func short(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()[:shortLen]
}

// Record commits the given vault-relative paths with the message
// MessagePrefix+summary and returns the short hash; it satisfies the vault's
// Recorder interface. When the paths hold nothing new (the same content
// written again) no commit is made and HEAD's short hash is returned with a
// nil error: the change is already durable. Use Commit to tell the cases
// apart. On error the index and HEAD are unchanged, except for a
// *NotFlushedError: the commit was made and its hash is returned with it.
func (r *Repo) Record(ctx context.Context, summary string, paths []string) (string, error) {
	res, err := r.Commit(ctx, summary, paths)
	return res.Hash, err
}

// Commit is Record with the full result. Only the given paths are looked at
// (no worktree scan): each existing file is hashed and staged, each missing
// path is removed from the index and the tree (with everything under it when
// it was a folder), and a folder path stages the files inside it. Files
// matched by .gitignore are skipped unless already tracked.
func (r *Repo) Commit(ctx context.Context, summary string, paths []string) (Result, error) {
	return r.commitWith(ctx, summary, paths, nil)
}

// commitWith is Commit, taking what known answers for instead of reading
// it (see RecordWritten).
func (r *Repo) commitWith(ctx context.Context, summary string, paths []string, known Written) (Result, error) {
	res, err := r.commitPaths(ctx, r.opts.MessagePrefix+summary, paths, known, nil)
	if err != nil {
		// A *NotFlushedError keeps its result: the commit stands.
		return res, fmt.Errorf("commit %s: %w", strings.Join(paths, ", "), err)
	}
	return res, nil
}

// CommitExternal commits the given paths, changed outside the server (a
// file watcher saw them), as one ExternalChangesMessage commit, without
// waiting for the next sync's full scan. Like Record, it must be called
// with the vault lock held.
func (r *Repo) CommitExternal(ctx context.Context, paths []string) (Result, error) {
	paths = r.withoutMassDeletion(paths)
	res, err := r.commitPaths(ctx, ExternalChangesMessage, paths, nil, nil)
	if err != nil {
		// A *NotFlushedError keeps its result: the commit stands.
		return res, fmt.Errorf("commit external changes: %w", err)
	}
	return res, nil
}

// commitPaths commits exactly the given paths with message, and tells the
// pusher when a commit was made. known, when not nil, holds what the
// caller wrote (see RecordWritten); pl, when not nil, the file it has yet
// to rename into place (see RecordPlacing). A *NotFlushedError comes with
// the result of the commit made: the branch points at it, so the pusher
// is told of it too.
func (r *Repo) commitPaths(ctx context.Context, message string, paths []string, known Written, pl *placing) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	clean := make([]string, 0, len(paths))
	for _, p := range paths {
		c, err := store.CleanPath(p)
		if err != nil {
			return Result{}, err
		}
		clean = append(clean, c)
	}
	req := request{written: known, placing: pl}
	if author, byClient := AuthorFrom(ctx); byClient {
		message = author.withTrailers(message)
		req.author = &author
	}
	r.mu.Lock()
	res, err := r.commitLocked(req, message, clean)
	r.mu.Unlock()
	var nf *NotFlushedError
	if err != nil && !errors.As(err, &nf) {
		return Result{}, r.scrub(err)
	}
	if res.Created {
		r.committed(res.Full)
	}
	if nf != nil {
		return res, &NotFlushedError{Hash: nf.Hash, Full: nf.Full, Err: r.scrub(nf.Err)}
	}
	return res, nil
}

// request is what one commit request brings beyond its message and
// paths, carried down the commit path. Its zero value is a plain commit of
// the worktree as it is, by the configured author.
type request struct {
	// written holds what the caller wrote (see RecordWritten); nil for
	// none: every file is read.
	written Written
	// placing is the file the caller has yet to rename into place (see
	// RecordPlacing); nil for none.
	placing *placing
	// author is the client the commit is authored for (see WithAuthor);
	// nil for the configured author.
	author *Author
}

// stage is the staged form of a set of paths: the tree changes and the
// index changes that go with them.
type stage struct {
	tree  map[string]store.TreeChange
	index *store.IndexUpdate
	paths []string // the worktree paths staged, for flushing their folders
	// bar, when not nil, flushes the commit's files and folders (see
	// package syncfs); it was opened before any of them was written.
	bar *syncfs.Barrier
}

// commitLocked stages paths and commits them on top of HEAD. r.mu is held.
// The order of writes keeps a failure harmless: objects first (unreferenced
// objects are just garbage), then index.lock, then the branch ref, then the
// index. If the ref update fails the lock is dropped; if the index rename
// fails the ref is put back.
func (r *Repo) commitLocked(req request, message string, paths []string) (Result, error) {
	idx, err := r.index.Load()
	if err != nil {
		return Result{}, err
	}
	head, err := r.headHash()
	if err != nil {
		return Result{}, err
	}
	baseTree, err := r.baseTreeOf(head)
	if err != nil {
		return Result{}, err
	}
	s := stage{tree: map[string]store.TreeChange{}, index: store.NewIndexUpdate()}
	if !r.opts.NoFsync {
		if s.bar = req.placing.barrierFor(r.gitDir); s.bar == nil {
			s.bar = syncfs.Open(r.gitDir)
			defer s.bar.Close()
		}
	}
	r.obj.PinTrees() // the trees read and written stay for the history's diff
	defer r.obj.UnpinTrees()
	ig := newIgnorer(r.dir)
	r.obj.BeginBlobs() // many new blobs, their trees and the commit go into one pack (see store.Objects.BeginBlobs)
	defer r.obj.DropBlobs()
	for _, p := range paths {
		if err := r.stagePath(req, &s, idx, baseTree, ig, p); err != nil {
			return Result{}, err
		}
	}
	if err := r.obj.KeepLargeBatch(); err != nil {
		return Result{}, err
	}
	s.paths = paths
	return r.commitStage(req, message, head, baseTree, idx, s, r.opts.Now())
}

// commitStage writes the commit for a staged change (or none when the tree
// is unchanged) and updates ref and index.
func (r *Repo) commitStage(req request, message string, head, baseTree plumbing.Hash, idx *index.Index, s stage, when time.Time) (Result, error) {
	newTree, err := r.obj.ApplyTree(baseTree, s.tree)
	if err != nil {
		return Result{}, err
	}
	if newTree.IsZero() {
		newTree = store.EmptyTree
	}
	if newTree == store.OrEmpty(baseTree) {
		r.obj.TakeWritten() // nothing will point at them
		if err := r.placeUnchanged(req.placing, &s); err != nil {
			return Result{}, err
		}
		// Nothing new; still refresh the stat data of the index entries so
		// that `git status` does not have to re-hash the files.
		if !s.index.Empty() {
			mark, err := r.markIndexUnflushed()
			if err == nil {
				err = r.flush(mark...)
			}
			if err != nil {
				return Result{}, err
			}
			if _, err := r.index.Hold(); err != nil {
				return Result{}, err
			}
			r.stageIndex(s.index)
		}
		return Result{Hash: short(head), Full: head}, nil
	}
	if newTree == store.EmptyTree {
		if _, err := r.obj.WriteTree(nil); err != nil {
			return Result{}, err
		}
	}
	sig := object.Signature{Name: r.opts.AuthorName, Email: r.opts.AuthorEmail, When: when}
	author := sig
	if a := req.author; a != nil {
		author.Name, author.Email = signatureText(a.Name), signatureText(a.Email)
		if author.Email == "" {
			author.Email = DisplayEmail(author.Name)
		}
	}
	c := &object.Commit{Author: author, Committer: sig, Message: withNewline(message), TreeHash: newTree}
	if !head.IsZero() {
		c.ParentHashes = []plumbing.Hash{head}
	}
	h, err := r.obj.WriteCommit(c)
	if err != nil {
		return Result{}, err
	}
	if err := r.obj.EndBlobs(); err != nil { // a large commit's pack
		return Result{}, err
	}
	// A *NotFlushedError means the branch moved all the same: the commit
	// is recorded as made, and returned with the error.
	moved := r.moveBranch(req.placing, s.bar, idx, s.index, h, head, "commit: "+firstLine(message), r.worktreeDirs(req.placing.others(s.paths)))
	var nf *NotFlushedError
	if moved != nil && !errors.As(moved, &nf) {
		return Result{}, moved
	}
	r.tip.commit, r.tip.tree = h, newTree
	// The trees on both sides are at hand (the new ones cached, the old
	// ones pinned until this commit is done): the history takes
	// the commit and its changes from here instead of reading them back.
	if r.onCommit != nil {
		if d, err := r.obj.DiffTrees(store.OrEmpty(baseTree), newTree); err == nil {
			r.onCommit(h, c, d)
		}
	}
	return Result{Hash: short(h), Full: h, Created: true}, moved
}

// baseTreeOf returns the tree of commit head (zero for an unborn branch),
// from r.tip when head is the last commit made here. r.mu is held.
func (r *Repo) baseTreeOf(head plumbing.Hash) (plumbing.Hash, error) {
	if head.IsZero() {
		return plumbing.ZeroHash, nil
	}
	if head == r.tip.commit {
		return r.tip.tree, nil
	}
	c, err := r.obj.Commit(head)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// moveBranch makes commit h (written, with its objects) the branch head
// in place of old and applies upd to the index. The objects, the worktree
// folders in dirs, the ref lock and the temporary file of a RecordPlacing
// change are flushed together (by bar where it covers them; nil for
// none), then that file is renamed into place and the ref after it, and
// the folders of both renames are flushed: the commit, and the note in
// place, are durable when moveBranch returns. The index is changed in
// memory under index.lock, taken before the ref, and written later (see
// scheduleIndexWrite),
// unflushed (see indexmark.go). If the ref update fails, a lock taken for
// it is given back and the index is unchanged. Once the ref has moved,
// only the last flush can fail: that is a *NotFlushedError, the ref and
// the index staying as they now are.
func (r *Repo) moveBranch(pl *placing, bar *syncfs.Barrier, idx *index.Index, upd *store.IndexUpdate, h, old plumbing.Hash, msg string, dirs []string) error {
	// The objects and folders are complete: their flushes run while the
	// index is locked and the ref written.
	fl := r.startFlush(bar, append(r.obj.TakeWritten(), dirs...)...)
	if err := pl.flushWith(fl, bar); err != nil {
		fl.wait()
		return err
	}
	mark, err := r.markIndexUnflushed()
	if err != nil {
		fl.wait()
		return err
	}
	fl.add(mark...)
	took, err := r.index.Hold()
	if err != nil {
		fl.wait()
		return err
	}
	giveBack := func() {
		if took {
			r.index.Release()
		}
	}
	ref, err := r.lockRef(r.branch, h, old, msg)
	if err != nil {
		fl.wait()
		giveBack()
		return err
	}
	fl.add(ref.LockPath())
	if err := fl.wait(); err != nil {
		ref.Abort()
		giveBack()
		return err
	}
	// The note goes into place before the ref: a kill between the two
	// leaves the new note with the old commit, which the next start
	// commits as an outside change, rather than a commit the worktree
	// does not hold.
	if err := pl.rename(); err != nil {
		ref.Abort()
		giveBack()
		return err
	}
	if err := ref.commit(); err != nil {
		giveBack()
		return err
	}
	pl.restat(upd)
	r.stageIndex(upd)
	if err := r.flush(ref.Dir(), pl.dir()); err != nil {
		return &NotFlushedError{Hash: short(h), Full: h, Err: err}
	}
	return nil
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// headHash returns the commit our branch points at (zero when unborn). It
// refuses to go on when someone switched the worktree to another branch.
func (r *Repo) headHash() (plumbing.Hash, error) {
	if r.headIsBranch() {
		return r.refHash(r.branch)
	}
	head, err := r.st.Reference(plumbing.HEAD)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read HEAD: %w", err)
	}
	if head.Type() != plumbing.SymbolicReference || head.Target() != r.branch {
		return plumbing.ZeroHash, fmt.Errorf("the vault repository is no longer on branch %s", r.opts.Branch)
	}
	return r.refHash(r.branch)
}

// refHash resolves a ref; a missing ref is the zero hash.
func (r *Repo) refHash(name plumbing.ReferenceName) (plumbing.Hash, error) {
	if h, ok := r.looseRef(name); ok {
		return h, nil
	}
	ref, err := r.st.Reference(name)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read %s: %w", name, err)
	}
	return ref.Hash(), nil
}

// stagePath adds the current state of one path to s. Every path that
// enters a commit passes checkPath here, whoever asked for the commit.
func (r *Repo) stagePath(req request, s *stage, idx *index.Index, baseTree plumbing.Hash, ig *ignorer, p string) error {
	if err := store.CheckPath(p, filemode.Regular); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	full := filepath.Join(r.dir, filepath.FromSlash(p))
	fi, err := os.Lstat(req.placing.at(p, full))
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir() && !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0) {
		s.tree[p] = store.TreeChange{Del: true}
		s.index.Remove[p] = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat %s: %w", p, err)
	}
	if !fi.IsDir() {
		return r.stageFile(req, s, idx, baseTree, ig, p)
	}
	// A folder: stage what is in it now, and drop what was tracked under it
	// and is gone.
	onDisk := map[string]bool{}
	err = filepath.WalkDir(full, func(fp string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.dir, fp)
		rel = filepath.ToSlash(rel)
		if fp != full && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if fp != full && (isTempName(d.Name()) || store.CheckName(d.Name(), modeOfEntry(d)) != nil) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil // never committed: a temporary or unsafe name
		}
		if d.IsDir() {
			if d.Name() == ".git" || (fp != full && isNestedRepo(fp)) {
				return filepath.SkipDir
			}
			if fp != full && ig.ignored(rel, true) && !store.HasEntriesUnder(idx, rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil // a FIFO, socket or device is never read: as if absent
		}
		onDisk[rel] = true
		return r.stageFile(req, s, idx, baseTree, ig, rel)
	})
	if err != nil {
		return fmt.Errorf("stage folder %s: %w", p, err)
	}
	for _, e := range store.EntriesUnder(idx, p) {
		if !onDisk[e.Name] {
			s.tree[e.Name] = store.TreeChange{Del: true}
			s.index.Remove[e.Name] = true
		}
	}
	if te, ok, err := r.obj.Lookup(baseTree, p); err != nil {
		return err
	} else if ok && te.Mode == filemode.Dir {
		err := r.obj.Walk(te.Hash, p, func(fe store.FileEntry) {
			if !onDisk[fe.Path] && fe.Mode != filemode.Submodule {
				s.tree[fe.Path] = store.TreeChange{Del: true}
			}
		})
		if err != nil {
			return err
		}
	} else if ok {
		// A file became a folder.
		s.index.Remove[p] = true
	}
	return nil
}

func isNestedRepo(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// stageFile hashes one file (or symlink) and stages it, writing its blob
// when it is new. An untracked file matched by .gitignore is left out.
func (r *Repo) stageFile(req request, s *stage, idx *index.Index, baseTree plumbing.Hash, ig *ignorer, p string) error {
	old := store.EntryFor(idx, p)
	if old == nil {
		if _, tracked, err := r.obj.Lookup(baseTree, p); err != nil {
			return err
		} else if !tracked && ig.ignored(p, false) {
			return nil
		}
	}
	content, fi, err := r.readStaged(req, p)
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		if err := store.CheckLinkTarget(p, string(content)); err != nil {
			// Left out, not an error: the rest of the commit goes on, and
			// a link the remote brought keeps its committed version.
			r.warnUnsafe(p, err)
			return nil
		}
	}
	h := plumbing.ComputeHash(plumbing.BlobObject, content)
	if old == nil || old.Hash != h || !r.obj.Has(h) {
		if err := r.obj.WriteBlobHashed(h, content); err != nil {
			return err
		}
	}
	mode := store.ModeOf(fi)
	if mode == filemode.Symlink {
		if err := store.CheckName(path.Base(p), mode); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	e := &index.Entry{Name: p, Hash: h, Mode: mode}
	store.FillStat(e, fi)
	if old != nil && old.SkipWorktree {
		e.SkipWorktree = true
	}
	s.tree[p] = store.TreeChange{Hash: h, Mode: mode}
	if old == nil || old.Hash != h || old.Mode != mode || !store.StatUnchanged(old, fi) {
		s.index.Set[p] = e
	}
	if i, ok := store.FindEntry(idx.Entries, p); ok && idx.Entries[i].Stage != 0 {
		s.index.Set[p] = e // resolves an unmerged path left by the git CLI
	}
	return nil
}

// hashWorktreeFile returns the blob hash of a worktree file (a symlink's
// target), reading the file in pieces rather than whole.
func hashWorktreeFile(full string) (plumbing.Hash, error) {
	fi, err := os.Lstat(full)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(full)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		return plumbing.ComputeHash(plumbing.BlobObject, []byte(filepath.ToSlash(target))), nil
	}
	f, fi, err := regularfile.Open(full)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer f.Close()
	hs := plumbing.NewHasher(plumbing.BlobObject, fi.Size())
	n, err := io.Copy(hs, io.LimitReader(f, fi.Size()))
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if n != fi.Size() {
		return plumbing.ZeroHash, fmt.Errorf("%s shrank while it was read", full)
	}
	return hs.Sum(), nil
}

// readWorktreeFile returns a file's content (a symlink's target) and the
// stat data of what was read.
func readWorktreeFile(full string) ([]byte, os.FileInfo, error) {
	fi, err := os.Lstat(full)
	if err != nil {
		return nil, nil, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(full)
		if err != nil {
			return nil, nil, err
		}
		return []byte(filepath.ToSlash(target)), fi, nil
	}
	f, fi, err := regularfile.Open(full)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	// ReadFrom wants MinRead bytes free before each read: with less, the
	// buffer would be reallocated at twice the size for the last read.
	buf.Grow(int(fi.Size()) + bytes.MinRead)
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), fi, nil
}
