package gitsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/gitsync/internal/textmerge"
)

// fetchedRef is where a fetch puts the remote's branch head. The
// remote-tracking branch moves to it only once it is verified and
// integrated, so a refused pull leaves the tracking branch (and `git
// status` on the command line) as it was, and its old value still tells
// which commits the remote had (the fork point).
func (r *Repo) fetchedRef() plumbing.ReferenceName {
	return plumbing.ReferenceName("refs/vaultmcp/fetched/" + r.opts.Branch)
}

// Sync pulls. First, with no network involved, files changed outside the
// server (or written by a server that crashed before committing) are
// committed, so they are safe even while the remote is down. Then the
// remote is fetched and its head checked (verifyTree: a tree that would
// write into .git or outside the vault is refused whole, nothing of it is
// written) and integrated: a fast-forward when we have nothing unpushed,
// else our commits that the remote never had are replayed on top of its
// head, merging notes both sides changed (see textmerge.Merge3) and keeping both
// versions where the same lines collide. Only the worktree files that
// change are written, with the vault lock held, and reported to Changed.
// Without a remote it only commits external changes.
func (r *Repo) Sync(ctx context.Context) (err error) {
	defer func() {
		r.statMu.Lock()
		if err != nil {
			r.state.lastPullErr = r.scrub(err).Error()
		} else {
			r.state.lastPullErr = ""
			r.state.lastSync = r.opts.Now()
		}
		r.statMu.Unlock()
		r.refreshCounts()
		if err == nil && r.pushEnabled() && r.Status().Ahead > 0 {
			r.wakePush()
		}
		err = r.scrub(err)
	}()
	defer r.recoverPanic("sync", &err)
	return r.sync(ctx)
}

func (r *Repo) sync(ctx context.Context) error {
	if err := r.withLocks(func() error {
		_, err := r.commitExternalLocked()
		return err
	}); err != nil {
		return err
	}
	if r.remoteURL == "" {
		return nil
	}
	fetched, err := r.fetch(ctx)
	if err != nil {
		return err
	}
	var changed, conflicts []string
	r.opts.Locker.Lock()
	defer r.opts.Locker.Unlock()
	err = func() error {
		r.mu.Lock()
		defer r.mu.Unlock()
		var err error
		changed, conflicts, err = r.integrateLocked(fetched)
		return err
	}()
	r.addConflicts(conflicts)
	if len(changed) > 0 && r.opts.Changed != nil {
		r.opts.Changed(changed)
	}
	return err
}

// withLocks runs fn with the vault lock and the repository lock held.
func (r *Repo) withLocks(fn func() error) error {
	r.opts.Locker.Lock()
	defer r.opts.Locker.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	return fn()
}

// commitExternalLocked commits external changes (see commitExternal) and
// notes the new head. r.mu and the vault lock are held.
func (r *Repo) commitExternalLocked() (Result, error) {
	res, ext, err := r.commitExternal()
	var nf *NotFlushedError
	if err != nil && !errors.As(err, &nf) {
		return Result{}, fmt.Errorf("commit external changes: %w", err)
	}
	// A commit whose last flush failed was made all the same: the branch
	// points at it, so the head follows it.
	if res.Created {
		r.log.Info("committed external changes", "commit", res.Hash, "files", len(ext))
		r.statMu.Lock()
		r.state.head = res.Full
		r.statMu.Unlock()
	}
	if err != nil {
		return res, fmt.Errorf("commit external changes: %w", err)
	}
	return res, nil
}

// fetch brings the remote's branch into fetchedRef and returns its head:
// zero when the remote has no commits or no such branch, which is not an
// error (the first push creates it). It gives up after NetworkTimeout.
// The pack it received is flushed to disk before the head is used.
func (r *Repo) fetch(ctx context.Context) (plumbing.Hash, error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.NetworkTimeout)
	defer cancel()
	r.netMu.Lock()
	defer r.netMu.Unlock()
	r.dropEmptyFetchedRef()
	packDir := filepath.Join(r.gitDir, "objects", "pack")
	before := packFiles(packDir)
	spec := config.RefSpec(fmt.Sprintf("+%s:%s", r.branch, r.fetchedRef()))
	err := r.net.FetchContext(ctx, &gogit.FetchOptions{
		RemoteName: r.opts.RemoteName,
		RemoteURL:  r.remoteURL,
		RefSpecs:   []config.RefSpec{spec},
		Auth:       r.auth,
		Tags:       gogit.NoTags,
	})
	var noRef gogit.NoMatchingRefSpecError
	switch {
	case err == nil, errors.Is(err, gogit.NoErrAlreadyUpToDate):
	case errors.Is(err, transport.ErrEmptyRemoteRepository), errors.As(err, &noRef):
		return plumbing.ZeroHash, nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return plumbing.ZeroHash, fmt.Errorf("fetch %s: no answer within %s", redactURL(r.remoteURL), r.opts.NetworkTimeout)
	default:
		return plumbing.ZeroHash, fmt.Errorf("fetch %s: %w", redactURL(r.remoteURL), err)
	}
	var fresh []string
	for f := range packFiles(packDir) {
		if !before[f] {
			fresh = append(fresh, filepath.Join(packDir, f))
		}
	}
	if len(fresh) > 0 {
		if err := r.flush(append(fresh, packDir)...); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("fetch: %w", err)
		}
	}
	ref, err := r.netSt.Reference(r.fetchedRef())
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("fetch: read %s: %w", r.fetchedRef(), err)
	}
	return ref.Hash(), nil
}

// dropEmptyFetchedRef removes fetchedRef when its file is empty. go-git
// writes the refs a fetch updates in place (truncate, then write), so a
// kill between the two leaves an empty file, on which every later fetch
// fails ("ref file is empty"; the crash test ended so once). The ref is
// only our copy of the remote's head, which the fetch writes again.
func (r *Repo) dropEmptyFetchedRef() {
	p := filepath.Join(r.gitDir, filepath.FromSlash(r.fetchedRef().String()))
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
		if err := os.Remove(p); err == nil {
			r.log.Info("removed a fetched ref left empty by an interrupted fetch", "ref", r.fetchedRef().String())
		}
	}
}

// packFiles lists the names in the pack folder, as a set.
func packFiles(dir string) map[string]bool {
	out := map[string]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		out[e.Name()] = true
	}
	return out
}

// integrateLocked brings the branch up to date with remote, the head just
// fetched: it verifies remote's tree, commits external changes, replays
// our commits that the remote never had (see oursOnly) on top of it and
// updates the worktree, then moves the remote-tracking branch to remote.
// It returns the worktree paths it changed and the conflict copies it
// made. r.mu and the vault lock are held.
func (r *Repo) integrateLocked(remote plumbing.Hash) (changed, conflicts []string, err error) {
	if remote.IsZero() {
		return nil, nil, nil
	}
	remoteTree, err := r.treeOf(remote)
	if err != nil {
		return nil, nil, err
	}
	if err := r.obj.VerifyTree(remoteTree); err != nil {
		var unsafe *UnsafeTreeError
		if errors.As(err, &unsafe) {
			unsafe.Commit = remote
		}
		return nil, nil, err
	}
	local, err := r.headHash()
	if err != nil {
		return nil, nil, err
	}
	if remote == local {
		return nil, nil, r.setTrackingLocked(remote)
	}
	if res, err := r.commitExternalLocked(); err != nil {
		return nil, nil, err
	} else if res.Created {
		local = res.Full
	}
	ahead, behind, err := r.compare(local, remote)
	if err != nil {
		return nil, nil, err
	}
	chain, err := r.oursOnly(local, append([]plumbing.Hash{remote}, r.upstreamTips()...))
	if err != nil {
		return nil, nil, err
	}
	if behind == 0 && len(chain) == ahead {
		// We are ahead: the push brings the remote along.
		return nil, nil, r.setTrackingLocked(remote)
	}
	rp := &replay{r: r, head: remote, tree: remoteTree, stamp: r.opts.Now(), copies: map[string]string{}, followed: map[string]string{}, remote: remoteTree, base: store.EmptyTree}
	if len(chain) > 0 && len(chain[0].ParentHashes) > 0 {
		if rp.base, err = r.treeOf(chain[0].ParentHashes[0]); err != nil {
			return nil, nil, err
		}
	}
	for _, c := range chain {
		if err := rp.apply(c); err != nil {
			return nil, nil, fmt.Errorf("replay %s: %w", short(c.Hash), err)
		}
	}
	localTree, err := r.treeOf(local)
	if err != nil {
		return nil, nil, err
	}
	changed, err = r.checkout(localTree, rp.tree, rp.head, local)
	// The branch moved and the files are checked out even when the last
	// flush failed: the pull's conflicts and tracking ref still count, and
	// the error says what may not be on disk.
	var notFlushed error
	if nf := (*NotFlushedError)(nil); errors.As(err, &nf) {
		notFlushed = fmt.Errorf("pull: the branch moved to %s and the pulled files are in place, but flushing them to disk failed, so they may not survive a power loss: %w", nf.Hash, nf.Err)
	} else if err != nil {
		return nil, nil, err
	}
	if dropped := ahead - len(chain); dropped > 0 {
		r.log.Warn("the remote's history was rewritten: commits it had are gone from it; following the remote, they are not pushed again (the reflog keeps them)",
			"commits", dropped, "remote", short(remote))
	}
	switch {
	case len(chain) > 0:
		r.log.Info("replayed local commits on top of the remote", "commits", len(chain), "remote", short(remote), "head", short(rp.head))
	default:
		r.log.Info("fast-forwarded to the remote", "head", short(rp.head), "files", len(changed))
	}
	for _, c := range rp.conflicts {
		r.log.Warn("conflict: the remote's version kept at the path, ours saved next to it", "path", c[0], "copy", c[1])
		conflicts = append(conflicts, c[1])
	}
	return changed, conflicts, errors.Join(notFlushed, r.setTrackingLocked(remote))
}

// setTrackingLocked moves the remote-tracking branch to h (what the remote
// has). A concurrent `git fetch` on the command line that moved it first
// wins; the next sync catches up. r.mu is held.
func (r *Repo) setTrackingLocked(h plumbing.Hash) error {
	old, err := r.refHash(r.trackingRef())
	if err != nil || old == h {
		return err
	}
	err = r.updateRef(r.trackingRef(), h, old, "sync with "+r.opts.RemoteName)
	if errors.Is(err, store.ErrRefMoved) {
		return nil
	}
	return err
}

// treeOf returns a commit's tree (the empty tree for the zero hash).
func (r *Repo) treeOf(h plumbing.Hash) (plumbing.Hash, error) {
	if h.IsZero() {
		return store.EmptyTree, nil
	}
	c, err := r.obj.Commit(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// replay rebuilds our commits one by one on top of the remote head.
type replay struct {
	r     *Repo
	head  plumbing.Hash // the last commit made (starts at the remote head)
	tree  plumbing.Hash // its tree
	stamp time.Time     // names conflict copies
	// copies maps a path that collided to the conflict copy that now
	// carries our side of it, so later commits of ours follow it there.
	copies map[string]string
	// followed maps a note the remote moved unchanged to its new name,
	// where our changes to it go (movedTo), so later commits of ours
	// follow it there too.
	followed map[string]string
	// base is the tree our replayed commits started from (the first one's
	// parent) and remote the remote's tree: what the remote moved is
	// read from the two once, on first need (moves).
	base, remote plumbing.Hash
	moves        *remoteMoves
	conflicts    [][2]string // path, copy
}

// apply replays one commit: each path it changed is taken as is when the
// remote left it alone, merged when both changed it, and saved to a
// conflict copy when the merge collides. A commit whose changes are all
// upstream already is dropped, as git rebase does.
func (rp *replay) apply(c *object.Commit) error {
	r := rp.r
	parentTree := store.EmptyTree
	if len(c.ParentHashes) > 0 {
		var err error
		if parentTree, err = r.treeOf(c.ParentHashes[0]); err != nil {
			return err
		}
	}
	diffs, err := r.obj.DiffTrees(parentTree, c.TreeHash)
	if err != nil {
		return err
	}
	if len(c.ParentHashes) > 1 {
		if diffs, err = rp.ownChanges(c, diffs); err != nil {
			return err
		}
	}
	changes := map[string]store.TreeChange{}
	set := func(p string, e store.FileEntry) {
		if e.Hash.IsZero() {
			changes[p] = store.TreeChange{Del: true}
		} else {
			changes[p] = store.TreeChange{Hash: e.Hash, Mode: e.Mode}
		}
	}
	for _, d := range diffs {
		p := d.Path
		if cp, ok := rp.copies[p]; ok {
			set(cp, d.To)
			continue
		}
		if to, ok := rp.followed[p]; ok {
			if !d.From.Hash.IsZero() {
				set(to, d.To)
				continue
			}
			// A new note under the old name is another note: it stays
			// there.
			delete(rp.followed, p)
		}
		if !d.To.Hash.IsZero() {
			// Our file where the remote now has a folder, or under a path
			// the remote made a file: keep ours beside it, lose nothing.
			moved, err := rp.structureConflict(p, changes)
			if err != nil {
				return err
			}
			if moved != "" {
				set(moved, d.To)
				continue
			}
		}
		te, ok, err := r.obj.Lookup(rp.tree, p)
		if err != nil {
			return err
		}
		var cur store.FileEntry
		if ok && te.Mode != filemode.Dir {
			cur = store.FileEntry{Path: p, Hash: te.Hash, Mode: te.Mode}
		}
		switch {
		case cur.Hash == d.To.Hash && (cur.Hash.IsZero() || cur.Mode == d.To.Mode):
			// Already there.
		case cur.Hash == d.From.Hash:
			set(p, d.To) // the remote did not touch it
		case d.To.Hash.IsZero():
			// We deleted a note the remote changed: keep the remote's edit.
			r.log.Info("kept a note the remote edited and we deleted", "path", p)
		case cur.Hash.IsZero():
			moved, err := rp.movedTo(p, d.From, diffs)
			if err != nil {
				return err
			}
			if moved != "" {
				// The remote moved the note as it was (renamed in Obsidian
				// on another device): our change follows it there, as it
				// does with git rebase, instead of bringing the old name
				// back beside the new one. Later commits of ours follow it
				// too.
				r.log.Info("followed a note the remote renamed", "path", p, "to", moved)
				rp.followed[p] = moved
				set(moved, d.To)
				break
			}
			// The remote deleted a note we changed: keep ours.
			r.log.Info("kept a note we edited and the remote deleted", "path", p)
			set(p, d.To)
		default:
			if err := rp.merge(p, d.From, d.To, cur, changes); err != nil {
				return err
			}
		}
	}
	newTree, err := r.obj.ApplyTree(rp.tree, changes)
	if err != nil {
		return err
	}
	if newTree.IsZero() {
		newTree = store.EmptyTree
		if _, err := r.obj.WriteTree(nil); err != nil {
			return err
		}
	}
	if newTree == rp.tree {
		return nil
	}
	nc := &object.Commit{
		Author:       c.Author,
		Committer:    object.Signature{Name: r.opts.AuthorName, Email: r.opts.AuthorEmail, When: r.opts.Now()},
		Message:      c.Message,
		TreeHash:     newTree,
		ParentHashes: []plumbing.Hash{rp.head},
	}
	h, err := r.obj.WriteCommit(nc)
	if err != nil {
		return err
	}
	rp.head, rp.tree = h, newTree
	return nil
}

// remoteMoves is what the remote did since our replayed commits began,
// seen as moves: the files it removed and the files it added, by content.
type remoteMoves struct {
	gone, added map[fileKey][]string
}

// fileKey is a file's content and mode.
type fileKey struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

// movedTo returns where the remote moved the note that was at p, with the
// content was, when our commit (its change diffs) changed it: the one new
// file holding that content, when p is the one file that left with it.
// Nothing ("") when the remote deleted the note, changed it as it moved
// it, or when several files left or came with that content (notes made
// from one template, empty notes), when our commit writes the new path
// itself, or when another note of ours already went there: a guess there
// could put our change into a note it was never made to.
func (rp *replay) movedTo(p string, was store.FileEntry, diffs []store.FileDiff) (string, error) {
	if was.Hash.IsZero() || was.Hash == emptyBlob {
		return "", nil
	}
	if rp.moves == nil {
		theirs, err := rp.r.obj.DiffTrees(rp.base, rp.remote)
		if err != nil {
			return "", err
		}
		m := &remoteMoves{gone: map[fileKey][]string{}, added: map[fileKey][]string{}}
		for _, d := range theirs {
			switch {
			case d.To.Hash.IsZero() && !d.From.Hash.IsZero():
				k := fileKey{d.From.Hash, d.From.Mode}
				m.gone[k] = append(m.gone[k], d.Path)
			case d.From.Hash.IsZero() && !d.To.Hash.IsZero():
				k := fileKey{d.To.Hash, d.To.Mode}
				m.added[k] = append(m.added[k], d.Path)
			}
		}
		rp.moves = m
	}
	k := fileKey{was.Hash, was.Mode}
	gone, added := rp.moves.gone[k], rp.moves.added[k]
	if len(gone) != 1 || gone[0] != p || len(added) != 1 {
		return "", nil
	}
	to := added[0]
	for _, d := range diffs {
		if d.Path == to {
			return "", nil
		}
	}
	for _, taken := range rp.followed {
		if taken == to {
			return "", nil
		}
	}
	// Still as the remote left it: no commit of ours replayed before
	// wrote there.
	if te, ok, err := rp.r.obj.Lookup(rp.tree, to); err != nil || !ok || te.Hash != was.Hash {
		return "", err
	}
	return to, nil
}

// emptyBlob is the hash of the empty file.
var emptyBlob = plumbing.NewHash("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")

// ownChanges keeps, of a merge commit's diff against its first parent,
// the paths where the merge differs from every parent: its own conflict
// resolutions. What a path holds as another parent has it came from that
// parent, whose own commits are replayed when they are ours, and are the
// remote's business (edited since, or deleted) when they are not; so a
// merge made with `git pull` on the command line replays as the little it
// really changed, never as a copy of the other side.
func (rp *replay) ownChanges(c *object.Commit, diffs []store.FileDiff) ([]store.FileDiff, error) {
	others := make([]plumbing.Hash, 0, len(c.ParentHashes)-1)
	for _, p := range c.ParentHashes[1:] {
		t, err := rp.r.treeOf(p)
		if err != nil {
			return nil, err
		}
		others = append(others, t)
	}
	kept := diffs[:0]
	for _, d := range diffs {
		fromOther := false
		for _, t := range others {
			te, ok, err := rp.r.obj.Lookup(t, d.Path)
			if err != nil {
				return nil, err
			}
			inOther := ok && te.Mode != filemode.Dir
			if (!inOther && d.To.Hash.IsZero()) || (inOther && te.Hash == d.To.Hash && te.Mode == d.To.Mode) {
				fromOther = true
				break
			}
		}
		if !fromOther {
			kept = append(kept, d)
		}
	}
	return kept, nil
}

// merge handles a path both sides changed: a clean three-way merge of the
// text, or the remote's version at the path and ours in a conflict copy.
func (rp *replay) merge(p string, base, ours, theirs store.FileEntry, changes map[string]store.TreeChange) error {
	r := rp.r
	if ours.Mode != filemode.Symlink && theirs.Mode != filemode.Symlink {
		merged, ok, why := rp.mergeText(base, ours, theirs)
		if ok {
			h, err := r.obj.WriteBlob([]byte(merged))
			if err != nil {
				return err
			}
			changes[p] = store.TreeChange{Hash: h, Mode: ours.Mode}
			r.log.Info("merged a note changed on both sides", "path", p)
			return nil
		}
		if why != "" {
			r.log.Warn("no line merge; both versions kept", "path", p, "why", why)
		}
	}
	cp, err := rp.conflictName(p, changes)
	if err != nil {
		return err
	}
	changes[cp] = store.TreeChange{Hash: ours.Hash, Mode: ours.Mode}
	rp.copies[p] = cp
	rp.conflicts = append(rp.conflicts, [2]string{p, cp})
	return nil
}

// Limits of the line merge: past them both versions are kept whole (a
// conflict copy), which loses nothing. go-diff's line mode maps each
// distinct line to one rune and breaks past about 1.1 million of them;
// long before that, a merge of texts this size is no help to anyone.
const (
	maxMergeBytes = 8 << 20
	maxMergeLines = 200000
)

// mergeText reads the three versions and merges them line by line. ok is
// false when the sides collide, and then why is empty; why says why no
// merge was tried (binary, too big, an unreadable object as in a partial
// clone, a panic in the diff) and the caller keeps both versions.
func (rp *replay) mergeText(base, ours, theirs store.FileEntry) (merged string, ok bool, why string) {
	r := rp.r
	var texts [3][]byte
	for i, e := range []store.FileEntry{base, ours, theirs} {
		if e.Hash.IsZero() {
			continue
		}
		data, err := r.obj.Blob(e.Hash)
		if err != nil {
			return "", false, "unreadable version: " + err.Error()
		}
		if len(data) > maxMergeBytes {
			return "", false, "too big for a line merge"
		}
		if textmerge.IsBinary(data) {
			return "", false, ""
		}
		texts[i] = data
	}
	lines := 0
	for _, t := range texts {
		lines += bytes.Count(t, []byte{'\n'})
	}
	if lines > maxMergeLines {
		return "", false, "too many lines for a line merge"
	}
	defer func() {
		if p := recover(); p != nil {
			merged, ok, why = "", false, fmt.Sprintf("the line diff failed: %v", p)
		}
	}()
	merged, ok = textmerge.Merge3(string(texts[0]), string(texts[1]), string(texts[2]))
	return merged, ok, ""
}

// structureConflict checks whether our file at p collides with the shape
// of the remote's tree: a folder at p, or a file at one of p's parent
// folders. It then returns the path ours goes to instead (a conflict copy
// of p, or p under a conflict-named copy of that parent folder) and records
// it; "" means no collision.
func (rp *replay) structureConflict(p string, changes map[string]store.TreeChange) (string, error) {
	r := rp.r
	te, ok, err := r.obj.Lookup(rp.tree, p)
	if err != nil {
		return "", err
	}
	if ok && te.Mode == filemode.Dir {
		cp, err := rp.conflictName(p, changes)
		if err != nil {
			return "", err
		}
		rp.copies[p] = cp
		rp.conflicts = append(rp.conflicts, [2]string{p, cp})
		return cp, nil
	}
	for i := strings.IndexByte(p, '/'); i > 0; i = nextSlash(p, i) {
		parent := p[:i]
		te, ok, err := r.obj.Lookup(rp.tree, parent)
		if err != nil {
			return "", err
		}
		if !ok || te.Mode == filemode.Dir {
			continue
		}
		if _, ours := changes[parent]; ours && changes[parent].Del {
			continue // our own commit deletes that file
		}
		dir, err := rp.conflictName(parent, changes)
		if err != nil {
			return "", err
		}
		moved := dir + p[i:]
		rp.copies[p] = moved
		rp.conflicts = append(rp.conflicts, [2]string{p, moved})
		return moved, nil
	}
	return "", nil
}

func nextSlash(p string, i int) int {
	j := strings.IndexByte(p[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// conflictName returns a free path "name (conflict YYYY-MM-DD HHMM).ext"
// next to p (free in the replayed tree, in this commit's changes and on
// disk).
func (rp *replay) conflictName(p string, changes map[string]store.TreeChange) (string, error) {
	var lookupErr error
	name := conflictPath(p, rp.stamp, func(cand string) bool {
		if _, ok := changes[cand]; ok {
			return true
		}
		if _, ok, err := rp.r.obj.Lookup(rp.tree, cand); err != nil {
			lookupErr = err
			return false
		} else if ok {
			return true
		}
		_, err := os.Lstat(filepath.Join(rp.r.dir, filepath.FromSlash(cand)))
		return err == nil
	})
	return name, lookupErr
}

// conflictPath names the copy that keeps our side of a collision:
// "notes/plan.md" becomes "notes/plan (conflict 2026-02-08 1230).md", with
// " 2", " 3"… added while taken(candidate) says the name is in use.
func conflictPath(p string, when time.Time, taken func(string) bool) string {
	dir, file := path.Split(p)
	ext := path.Ext(file)
	stem := strings.TrimSuffix(file, ext)
	if stem == "" { // ".hidden" files: the whole name is the stem
		stem, ext = file, ""
	}
	label := "conflict " + when.Format("2006-01-02 1504")
	for n := 1; ; n++ {
		suffix := label
		if n > 1 {
			suffix = fmt.Sprintf("%s %d", label, n)
		}
		cand := fmt.Sprintf("%s%s (%s)%s", dir, stem, suffix, ext)
		if !taken(cand) {
			return cand
		}
	}
}

// checkout moves the worktree, the index and the branch from commit old
// (tree from) to commit newHead (tree to), touching only the files that
// differ. Files are written first, then the index and the branch, so a crash
// half-way leaves files that the next external-change scan commits and the
// next replay finds already upstream. A file that no longer matches the
// index (edited outside at this very moment) is saved as a conflict copy
// before it is replaced: nothing is lost.
func (r *Repo) checkout(from, to, newHead, old plumbing.Hash) ([]string, error) {
	// The tree may hold our own commits made with the git CLI: it passes
	// the same check as the remote's before anything is written.
	if err := r.obj.VerifyTree(to); err != nil {
		return nil, err
	}
	diffs, err := r.obj.DiffTrees(from, to)
	if err != nil {
		return nil, err
	}
	idx, err := r.index.Load()
	if err != nil {
		return nil, err
	}
	// Nothing is written through a symbolic link: checked for every path
	// before the first write. A tracked link this checkout removes is no
	// obstacle (deletions go first).
	goingLinks := map[string]bool{}
	for _, d := range diffs {
		if d.From.Mode == filemode.Symlink && d.To.Mode != filemode.Symlink {
			goingLinks[d.Path] = true
		}
	}
	for _, d := range diffs {
		if err := r.noSymlinkAbove(d.Path, goingLinks); err != nil {
			return nil, err
		}
	}
	upd := store.NewIndexUpdate()
	var changed []string
	// Deletions first, so that a file replaced by a folder (or back) works.
	sort.SliceStable(diffs, func(i, j int) bool {
		return diffs[i].To.Hash.IsZero() && !diffs[j].To.Hash.IsZero()
	})
	for _, d := range diffs {
		if d.From.Mode == filemode.Submodule || d.To.Mode == filemode.Submodule {
			continue
		}
		full := filepath.Join(r.dir, filepath.FromSlash(d.Path))
		if err := r.saveIfEdited(idx, d.Path, full); err != nil {
			return nil, err
		}
		if d.To.Hash.IsZero() {
			if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("remove %s: %w", d.Path, err)
			}
			removeEmptyParents(r.dir, filepath.Dir(full))
			upd.Remove[d.Path] = true
			changed = append(changed, d.Path)
			continue
		}
		if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
			// A folder (holding untracked files) where the file goes:
			// move it aside rather than delete anything.
			aside := conflictPath(d.Path, r.opts.Now(), r.existsInWorktree)
			if err := os.Rename(full, filepath.Join(r.dir, filepath.FromSlash(aside))); err != nil {
				return nil, fmt.Errorf("move %s aside: %w", d.Path, err)
			}
			r.log.Warn("a folder was in the way of a pulled file; moved it", "path", d.Path, "to", aside)
			r.addConflicts([]string{aside})
		}
		content, err := r.obj.Blob(d.To.Hash)
		if err != nil {
			return nil, err
		}
		fi, err := writeWorktreeFile(full, content, d.To.Mode)
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", d.Path, err)
		}
		e := &index.Entry{Name: d.Path, Hash: d.To.Hash, Mode: d.To.Mode}
		store.FillStat(e, fi)
		upd.Set[d.Path] = e
		changed = append(changed, d.Path)
	}
	moved := r.moveBranch(upd, newHead, old, "pull: replay onto "+r.opts.RemoteName, r.worktreeFiles(changed))
	var nf *NotFlushedError
	if moved != nil && !errors.As(moved, &nf) {
		return nil, moved
	}
	// A *NotFlushedError: the branch moved all the same (see moveBranch).
	r.statMu.Lock()
	r.state.head = newHead
	r.statMu.Unlock()
	return changed, moved
}

// saveIfEdited copies a worktree file that differs from its index entry
// (or is untracked) to a conflict copy, so that a checkout never destroys an
// edit it has not seen.
func (r *Repo) saveIfEdited(idx *index.Index, p, full string) error {
	fi, err := os.Lstat(full)
	if err != nil {
		return nil // nothing there to lose
	}
	if fi.IsDir() {
		return nil
	}
	e := store.EntryFor(idx, p)
	if e != nil && store.StatUnchanged(e, fi) {
		return nil
	}
	content, _, err := readWorktreeFile(full)
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	if e != nil && plumbing.ComputeHash(plumbing.BlobObject, content) == e.Hash {
		return nil
	}
	rel := conflictPath(p, r.opts.Now(), r.existsInWorktree)
	if err := os.WriteFile(filepath.Join(r.dir, filepath.FromSlash(rel)), content, 0o644); err != nil {
		return fmt.Errorf("save %s: %w", p, err)
	}
	r.log.Warn("a file changed outside the server during a pull; saved it", "path", p, "copy", rel)
	r.addConflicts([]string{rel})
	return nil
}

// noSymlinkAbove refuses to write p when one of its parent folders in the
// worktree is a symbolic link (git's "beyond a symbolic link" check): the
// write would land wherever the link points, maybe outside the vault.
// Links in going are removed by the checkout before anything is written.
func (r *Repo) noSymlinkAbove(p string, going map[string]bool) error {
	dir := r.dir
	parts := strings.Split(p, "/")
	for i, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		if err != nil {
			return nil // missing: created as a real folder
		}
		if fi.Mode()&os.ModeSymlink != 0 && !going[strings.Join(parts[:i+1], "/")] {
			return &UnsafeTreeError{Path: p, Reason: "lies beyond a symbolic link in the vault"}
		}
	}
	return nil
}

func (r *Repo) existsInWorktree(rel string) bool {
	_, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(rel)))
	return err == nil
}

// writeWorktreeFile writes a file atomically (temp file in the same folder,
// rename) and returns its stat data.
func writeWorktreeFile(full string, content []byte, mode filemode.FileMode) (os.FileInfo, error) {
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return nil, err
	}
	if mode == filemode.Symlink {
		os.Remove(full)
		if err := os.Symlink(filepath.FromSlash(string(content)), full); err != nil {
			return nil, err
		}
		return os.Lstat(full)
	}
	perm := os.FileMode(0o644)
	if mode == filemode.Executable {
		perm = 0o755
	}
	tmp, err := os.CreateTemp(filepath.Dir(full), tempPrefix+strconv.Itoa(os.Getpid())+"-pull-*.tmp")
	if err != nil {
		return nil, err
	}
	_, err = tmp.Write(content)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), full)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	return os.Lstat(full)
}

// removeEmptyParents removes dir and its parents up to root while they are
// empty, as git does when the last file of a folder goes.
func removeEmptyParents(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root) {
		if err := os.Remove(dir); err != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}
