package gitsync

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/vault/changes"
)

var _ changes.Recorder = (*Repo)(nil)

// Prepare is the first phase of recording a change of the server's own
// (see changes.Recorder). It builds the commit of c.Paths with the
// message MessagePrefix+c.Summary, taking the content of a file c.Written
// holds from there rather than reading it back, as long as the file on
// disk is still the one written (changes.File.Is): a rename that relinks
// 1,800 notes neither reads them again nor holds a second copy of their
// text. It writes the commit's objects, takes index.lock and the branch
// ref's lock, and flushes the objects, their folders and the ref lock.
//
// c.Placing is the file the caller wrote under a temporary name and puts
// into place once Prepare returns: its content is committed from the
// temporary file, and that file is flushed with the commit's own (by the
// caller's barrier where it covers the repository too), so the note and
// the commit share their flushes.
//
// Prepare returns holding the repository's lock (and the vault lock the
// caller holds around it); the caller then renames the placing file and
// calls Publish, or Abort. On an error nothing is held and nothing
// changed but unreferenced objects.
func (r *Repo) Prepare(ctx context.Context, c changes.Change) (changes.Pending, error) {
	p, err := r.prepare(ctx, r.opts.MessagePrefix+c.Summary, c.Paths, c.Written, c.Placing)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", changeLabel(c.Paths, c.Placing), err)
	}
	return p, nil
}

// changeLabel names a change in errors: its placing file, else its paths.
// It is worked out only for an error: a rename's 1,800 paths make a long
// string.
func changeLabel(paths []string, place *changes.Placing) string {
	if place != nil {
		return place.Rel
	}
	return strings.Join(paths, ", ")
}

// prepare is Prepare's work: it cleans the paths, takes r.mu and
// prepares the commit under it, returning with r.mu held; on an error
// r.mu is released.
func (r *Repo) prepare(ctx context.Context, message string, paths []string, written map[string]changes.File, place *changes.Placing) (*pending, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	clean := make([]string, 0, len(paths))
	for _, p := range paths {
		c, err := store.CleanPath(p)
		if err != nil {
			return nil, err
		}
		clean = append(clean, c)
	}
	req := request{written: written}
	if place != nil {
		pl, err := r.newPlacing(place)
		if err != nil {
			return nil, r.scrub(err)
		}
		req.placing = pl
	}
	if author, byClient := AuthorFrom(ctx); byClient {
		message = author.withTrailers(message)
		req.author = &author
	}
	r.mu.Lock()
	held := false
	defer func() {
		if !held { // an error, or a panic
			r.mu.Unlock()
		}
	}()
	p, err := r.prepareLocked(req, message, clean)
	if err != nil {
		return nil, r.scrub(err)
	}
	p.unlock, held = true, true
	p.paths, p.place = paths, place
	return p, nil
}

// pending is a prepared commit (see Prepare): its objects written and
// flushed, and, when it makes a new commit, index.lock and the ref's lock
// held (move). r.mu is held until it is published or aborted.
type pending struct {
	r     *Repo
	req   request
	s     stage
	paths []string         // the paths committed, for errors (see changeLabel)
	place *changes.Placing // the placing file as the caller named it, for errors

	head, baseTree plumbing.Hash // HEAD and its tree before the commit
	tree           plumbing.Hash // the new tree
	commit         *object.Commit
	h              plumbing.Hash // the new commit
	// move is the branch's move, ready; nil when the paths hold nothing
	// new and no commit is made.
	move *branchMove

	cleanup []func() // run, last first, when the commit is done or given up
	unlock  bool     // release r.mu when done (it was taken by prepare)
	done    bool     // published or aborted
}

// A pending commit ends once, by Publish (publish, then end) or Abort
// (end): end drops what the commit still holds, whatever happened before
// (an error, a panic): the branch's move if it was not made, the
// clean-ups (release), and r.mu when prepare took it.

var _ changes.Pending = (*pending)(nil)

// onRelease adds fn to what release runs.
func (p *pending) onRelease(fn func()) { p.cleanup = append(p.cleanup, fn) }

// release runs the clean-ups (the stage's own barrier closed, the trees
// unpinned, the blob batch dropped), last added first.
func (p *pending) release() {
	for i := len(p.cleanup) - 1; i >= 0; i-- {
		p.cleanup[i]()
	}
	p.cleanup = nil
}

// build writes the commit for the staged change and gets the branch's move
// ready; when the tree is HEAD's, it only flushes the placing file.
func (p *pending) build(message string, when time.Time) error {
	r, s := p.r, &p.s
	newTree, err := r.obj.ApplyTree(p.baseTree, s.tree)
	if err != nil {
		return err
	}
	if newTree.IsZero() {
		newTree = store.EmptyTree
	}
	p.tree = newTree
	if newTree == store.OrEmpty(p.baseTree) {
		r.obj.TakeWritten() // nothing will point at them
		fl := r.startFlush(s.bar)
		if err := p.req.placing.flushWith(fl, s.bar); err != nil {
			fl.wait()
			return err
		}
		return fl.wait()
	}
	if newTree == store.EmptyTree {
		if _, err := r.obj.WriteTree(nil); err != nil {
			return err
		}
	}
	sig := object.Signature{Name: r.opts.AuthorName, Email: r.opts.AuthorEmail, When: when}
	author := sig
	if a := p.req.author; a != nil {
		author.Name, author.Email = signatureText(a.Name), signatureText(a.Email)
		if author.Email == "" {
			author.Email = DisplayEmail(author.Name)
		}
	}
	c := &object.Commit{Author: author, Committer: sig, Message: withNewline(message), TreeHash: newTree}
	if !p.head.IsZero() {
		c.ParentHashes = []plumbing.Hash{p.head}
	}
	h, err := r.obj.WriteCommit(c)
	if err != nil {
		return err
	}
	if err := r.obj.EndBlobs(); err != nil { // a large commit's pack
		return err
	}
	p.commit, p.h = c, h
	pl := p.req.placing
	p.move, err = r.lockBranch(pl, s.bar, h, p.head, "commit: "+firstLine(message), r.worktreeDirs(pl.others(s.paths)))
	return err
}

// Publish is the second phase (see changes.Pending): the placing file is
// in place; the branch moves to the new commit, the index follows, and
// the folders of the renames are flushed. It returns the commit's short
// hash, HEAD's when nothing new was committed.
func (p *pending) Publish() (string, error) {
	res, err := p.publish()
	if err != nil {
		var nf *NotFlushedError
		if errors.As(err, &nf) {
			return res.Hash, fmt.Errorf("commit %s: %w", changeLabel(p.paths, p.place), err)
		}
		return "", fmt.Errorf("commit %s: %w", changeLabel(p.paths, p.place), err)
	}
	return res.Hash, nil
}

// Abort gives the prepared commit up (see changes.Pending): the ref's lock
// and index.lock are dropped, and the branch and the index stay as they
// were. After Publish it does nothing.
func (p *pending) Abort() {
	if p.done {
		return
	}
	p.done = true
	p.end()
}

// end aborts the branch's move unless it was made, runs the clean-ups, and
// releases r.mu when prepare took it.
func (p *pending) end() {
	p.move.abort()
	p.release()
	if p.unlock {
		p.unlock = false
		p.r.mu.Unlock()
	}
}

// publish is Publish with the full result: publishLocked, then r.mu
// released and the pusher told of the commit. A *NotFlushedError comes
// with the result of the commit made: the branch points at it, so the
// pusher is told of it too.
func (p *pending) publish() (Result, error) {
	if p.done {
		return Result{}, errors.New("the commit was already published or given up")
	}
	p.done = true
	res, err := func() (Result, error) {
		defer p.end()
		return p.publishLocked()
	}()
	var nf *NotFlushedError
	if err != nil && !errors.As(err, &nf) {
		return Result{}, p.r.scrub(err)
	}
	if res.Created {
		p.r.committed(res.Full)
	}
	if nf != nil {
		return res, &NotFlushedError{Hash: nf.Hash, Full: nf.Full, Err: p.r.scrub(nf.Err)}
	}
	return res, nil
}

// publishLocked moves the branch (see branchMove.commit), or, when nothing
// new was committed, brings the index's stat data up to date; r.mu is
// held and stays held. A placing file that is not in place fails it: a
// commit must never be acknowledged without its note.
func (p *pending) publishLocked() (Result, error) {
	r, pl := p.r, p.req.placing
	if err := pl.placed(); err != nil {
		p.move.abort()
		return Result{}, err
	}
	if p.move == nil {
		return p.unchanged()
	}
	// A *NotFlushedError means the branch moved all the same: the commit
	// is recorded as made, and returned with the error.
	moved := p.move.commit(p.s.index)
	var nf *NotFlushedError
	if moved != nil && !errors.As(moved, &nf) {
		return Result{}, moved
	}
	r.tip.commit, r.tip.tree = p.h, p.tree
	// The trees on both sides are at hand (the new ones cached, the old
	// ones pinned until this commit is done): the history takes
	// the commit and its changes from here instead of reading them back.
	if r.onCommit != nil {
		if d, err := r.obj.DiffTrees(store.OrEmpty(p.baseTree), p.tree); err == nil {
			r.onCommit(p.h, p.commit, d)
		}
	}
	return Result{Hash: short(p.h), Full: p.h, Created: true}, moved
}

// unchanged ends a change whose paths held nothing new: the placing
// file's folder is flushed, and the index entries staged take the files'
// stat data, so that `git status` does not have to hash them again.
func (p *pending) unchanged() (Result, error) {
	r, pl := p.r, p.req.placing
	pl.restat(p.s.index)
	if err := r.flush(pl.dir()); err != nil {
		return Result{}, err
	}
	if !p.s.index.Empty() {
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
		r.stageIndex(p.s.index)
	}
	return Result{Hash: short(p.head), Full: p.head}, nil
}
