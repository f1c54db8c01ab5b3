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

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/internal/regularfile"
	"vaultmcp/internal/syncfs"
	"vaultmcp/vault/changes"
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

// A commit whose last flush failed still counts: the vault keeps it.
var _ changes.CommittedError = (*NotFlushedError)(nil)

// shortLen is the length of the abbreviated hashes handed to clients.
const shortLen = 7

func short(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()[:shortLen]
}

// Commit commits the given vault-relative paths with the message
// MessagePrefix+summary. Only the given paths are looked at (no worktree
// scan): each existing file is hashed and staged, each missing path is
// removed from the index and the tree (with everything under it when it
// was a folder), and a folder path stages the files inside it. Files
// matched by .gitignore are skipped unless already tracked. When the
// paths hold nothing new (the same content written again) no commit is
// made: Result.Created is false and Hash is HEAD's. On error the index
// and HEAD are unchanged, except for a *NotFlushedError: the commit was
// made and its result is returned with it. Like Prepare, it must be
// called with the vault lock held.
func (r *Repo) Commit(ctx context.Context, summary string, paths []string) (Result, error) {
	res, err := r.commitPaths(ctx, r.opts.MessagePrefix+summary, paths)
	if err != nil {
		// A *NotFlushedError keeps its result: the commit stands.
		return res, fmt.Errorf("commit %s: %w", strings.Join(paths, ", "), err)
	}
	return res, nil
}

// CommitExternal commits the given paths, changed outside the server (a
// file watcher saw them), as one ExternalChangesMessage commit, without
// waiting for the next sync's full scan. Like Prepare, it must be called
// with the vault lock held.
func (r *Repo) CommitExternal(ctx context.Context, paths []string) (Result, error) {
	paths = r.withoutMassDeletion(paths)
	res, err := r.commitPaths(ctx, ExternalChangesMessage, paths)
	if err != nil {
		// A *NotFlushedError keeps its result: the commit stands.
		return res, fmt.Errorf("commit external changes: %w", err)
	}
	return res, nil
}

// commitPaths commits exactly the given paths with message, in both
// phases at once (see prepare and pending.publish).
func (r *Repo) commitPaths(ctx context.Context, message string, paths []string) (Result, error) {
	p, err := r.prepare(ctx, message, paths, nil, nil)
	if err != nil {
		return Result{}, err
	}
	return p.publish()
}

// request is what one commit request brings beyond its message and
// paths, carried down the commit path. Its zero value is a plain commit of
// the worktree as it is, by the configured author.
type request struct {
	// written holds what the caller wrote (see Prepare); nil for none:
	// every file is read.
	written map[string]changes.File
	// placing is the file the caller puts into place between the two
	// phases (see Prepare); nil for none.
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

// commitLocked stages paths and commits them on top of HEAD, in both
// phases at once. r.mu is held, and stays held.
func (r *Repo) commitLocked(req request, message string, paths []string) (Result, error) {
	p, err := r.prepareLocked(req, message, paths)
	if err != nil {
		return Result{}, err
	}
	defer p.end()
	return p.publishLocked()
}

// prepareLocked stages paths and prepares their commit on top of HEAD
// (see pending). r.mu is held. The order of writes keeps a failure
// harmless: objects first (unreferenced objects are just garbage), then
// index.lock, then the branch ref's lock (see lockBranch), and, in the
// second phase, the ref, then the index.
func (r *Repo) prepareLocked(req request, message string, paths []string) (*pending, error) {
	idx, err := r.index.Load()
	if err != nil {
		return nil, err
	}
	head, err := r.headHash()
	if err != nil {
		return nil, err
	}
	baseTree, err := r.baseTreeOf(head)
	if err != nil {
		return nil, err
	}
	p := &pending{r: r, req: req, head: head, baseTree: baseTree}
	ready := false
	defer func() {
		if !ready { // an error, or a panic: nothing stays held
			p.end()
		}
	}()
	s := stage{tree: map[string]store.TreeChange{}, index: store.NewIndexUpdate()}
	if !r.opts.NoFsync {
		if s.bar = req.placing.barrierFor(r.gitDir); s.bar == nil {
			s.bar = syncfs.Open(r.gitDir)
			p.onRelease(s.bar.Close)
		}
	}
	r.obj.PinTrees() // the trees read and written stay for the history's diff
	p.onRelease(r.obj.UnpinTrees)
	ig := newIgnorer(r.dir)
	r.obj.BeginBlobs() // many new blobs, their trees and the commit go into one pack (see store.Objects.BeginBlobs)
	p.onRelease(r.obj.DropBlobs)
	for _, path := range paths {
		if err := r.stagePath(req, &s, idx, baseTree, ig, path); err != nil {
			return nil, err
		}
	}
	if err := r.obj.KeepLargeBatch(); err != nil {
		return nil, err
	}
	s.paths = paths
	p.s = s
	if err := p.build(message, r.opts.Now()); err != nil {
		return nil, err
	}
	ready = true
	return p, nil
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
// in place of old and applies upd to the index: lockBranch, then
// branchMove.commit.
func (r *Repo) moveBranch(upd *store.IndexUpdate, h, old plumbing.Hash, msg string, dirs []string) error {
	m, err := r.lockBranch(nil, nil, h, old, msg, dirs)
	if err != nil {
		return err
	}
	return m.commit(upd)
}

// branchMove is a move of the branch ready to be made: the objects and
// folders flushed, index.lock and the ref's lock held (see lockBranch).
// commit or abort ends it.
type branchMove struct {
	r     *Repo
	pl    *placing
	ref   *refLock
	took  bool // index.lock was taken for it
	h     plumbing.Hash
	ended bool // commit or abort ran
}

// lockBranch gets the move of the branch from old to commit h ready. The
// objects, the worktree folders in dirs, the ref lock and the temporary
// file of a placing change are flushed together (by bar where it covers
// them; nil for none); the index is held (index.lock, taken before the
// ref) and the ref locked. On an error nothing is held.
func (r *Repo) lockBranch(pl *placing, bar *syncfs.Barrier, h, old plumbing.Hash, msg string, dirs []string) (*branchMove, error) {
	// The objects and folders are complete: their flushes run while the
	// index is locked and the ref written.
	fl := r.startFlush(bar, append(r.obj.TakeWritten(), dirs...)...)
	if err := pl.flushWith(fl, bar); err != nil {
		fl.wait()
		return nil, err
	}
	mark, err := r.markIndexUnflushed()
	if err != nil {
		fl.wait()
		return nil, err
	}
	fl.add(mark...)
	took, err := r.index.Hold()
	if err != nil {
		fl.wait()
		return nil, err
	}
	m := &branchMove{r: r, pl: pl, took: took, h: h}
	m.ref, err = r.lockRef(r.branch, h, old, msg)
	if err != nil {
		fl.wait()
		m.giveBack()
		return nil, err
	}
	fl.add(m.ref.LockPath())
	if err := fl.wait(); err != nil {
		m.abort()
		return nil, err
	}
	return m, nil
}

// commit moves the branch and applies upd to the index (changed in
// memory, written later: see scheduleIndexWrite, unflushed: see
// indexmark.go), then flushes the folders of the ref's rename and of the
// placed file's: the commit, and the file in place, are durable when it
// returns. If the ref cannot move, index.lock is given back and the index
// is unchanged. Once the ref has moved, only the last flush can fail:
// that is a *NotFlushedError, the ref and the index staying as they now
// are.
func (m *branchMove) commit(upd *store.IndexUpdate) error {
	m.ended = true
	if err := m.ref.commit(); err != nil {
		m.giveBack()
		return err
	}
	m.pl.restat(upd)
	m.r.stageIndex(upd)
	if err := m.r.flush(m.ref.Dir(), m.pl.dir()); err != nil {
		return &NotFlushedError{Hash: short(m.h), Full: m.h, Err: err}
	}
	return nil
}

// abort drops the ref's lock and gives index.lock back: the branch and
// the index stay as they were. After commit or abort it does nothing.
func (m *branchMove) abort() {
	if m == nil || m.ended {
		return
	}
	m.ended = true
	m.ref.Abort()
	m.giveBack()
}

// giveBack releases index.lock when the move took it.
func (m *branchMove) giveBack() {
	if m.took {
		m.r.index.Release()
	}
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
