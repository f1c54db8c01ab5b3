package gitsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// Push retry backoff.
const (
	minBackoff = time.Second
	maxBackoff = 5 * time.Minute
	// pushDelay gathers a burst of commits into one push.
	pushDelay = 200 * time.Millisecond
)

// loop is the background sync: pull on start and every SyncInterval, push
// after commits, retry failed pushes with backoff.
func (r *Repo) loop(ctx context.Context) {
	defer close(r.done)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-r.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	go r.warmHistory(ctx)

	var tick <-chan time.Time
	if r.opts.SyncInterval > 0 {
		t := time.NewTicker(r.opts.SyncInterval)
		defer t.Stop()
		tick = t.C
	}
	backoff := time.Duration(0)
	var retry *time.Timer
	var retryC <-chan time.Time
	pushNow := func() {
		if retryC != nil {
			return // a retry is scheduled: wait for it
		}
		err := r.pushWithPull(ctx)
		switch {
		case err == nil:
			backoff = 0
		case ctx.Err() != nil:
		default:
			backoff = min(max(2*backoff, minBackoff), maxBackoff)
			r.log.Warn("push failed; retrying later", "in", backoff, "err", err)
			retry = time.NewTimer(backoff)
			retryC = retry.C
		}
	}
	r.syncAndLog(ctx)
	if r.pushEnabled() && r.Status().Ahead > 0 {
		pushNow()
	}
	for {
		select {
		case <-ctx.Done():
			if retry != nil {
				retry.Stop()
			}
			return
		case <-tick:
			r.syncAndLog(ctx)
			if r.pushEnabled() && r.Status().Ahead > 0 {
				pushNow()
			}
		case <-r.syncWake:
			r.syncAndLog(ctx)
		case <-r.pushWake:
			// Let a burst of writes land, then push them together.
			select {
			case <-time.After(pushDelay):
			case <-ctx.Done():
				continue
			}
			select {
			case <-r.pushWake:
			default:
			}
			pushNow()
		case <-retryC:
			retry, retryC = nil, nil
			pushNow()
		}
	}
}

func (r *Repo) pushEnabled() bool { return r.remoteURL != "" && !r.opts.NoPush }

func (r *Repo) syncAndLog(ctx context.Context) {
	if err := r.Sync(ctx); err != nil && ctx.Err() == nil {
		r.log.Warn("sync failed", "err", err)
	}
}

// pushWithPull pushes; a push the remote rejects because it moved on is
// followed by a pull (which replays our commits on top) and one more push.
func (r *Repo) pushWithPull(ctx context.Context) error {
	err := r.Push(ctx)
	if !errors.Is(err, ErrRejected) {
		return err
	}
	r.log.Info("push rejected: the remote moved on; pulling first")
	if err := r.Sync(ctx); err != nil {
		return err
	}
	return r.Push(ctx)
}

// SyncNow asks the background loop for a pull (and push) as soon as it can.
func (r *Repo) SyncNow() {
	select {
	case r.syncWake <- struct{}{}:
	default:
	}
}

// Sync pulls: it commits external changes, fetches the remote, and brings
// the branch up to date with it: a fast-forward when we have nothing
// unpushed, else our unpushed commits are replayed on top of the remote
// head, merging notes both sides changed (see merge3) and keeping both
// versions where the same lines collide. Only the worktree files that
// change are written, with the vault lock held, and reported to Changed.
// Without a remote it only commits external changes.
func (r *Repo) Sync(ctx context.Context) error {
	err := r.sync(ctx)
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
	return r.scrub(err)
}

func (r *Repo) sync(ctx context.Context) error {
	if r.remoteURL != "" {
		if err := r.fetch(ctx); err != nil {
			return err
		}
	}
	r.opts.Locker.Lock()
	defer r.opts.Locker.Unlock()
	r.mu.Lock()
	changed, conflicts, err := r.integrateLocked()
	r.mu.Unlock()
	r.addConflicts(conflicts)
	if len(changed) > 0 && r.opts.Changed != nil {
		r.opts.Changed(changed)
	}
	return err
}

// fetch updates the remote-tracking branch. A remote without commits or
// without our branch is not an error: the first push creates it.
func (r *Repo) fetch(ctx context.Context) error {
	r.netMu.Lock()
	defer r.netMu.Unlock()
	spec := config.RefSpec(fmt.Sprintf("+%s:%s", r.branch, r.trackingRef()))
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
		return nil
	case errors.Is(err, transport.ErrEmptyRemoteRepository), errors.As(err, &noRef):
		return nil
	}
	return fmt.Errorf("fetch %s: %w", redactURL(r.remoteURL), err)
}

// integrateLocked commits external changes, then replays our commits that
// the remote lacks on top of the remote-tracking branch and updates the
// worktree. It returns the worktree paths it changed and the conflict copies
// it made. r.mu and the vault lock are held.
func (r *Repo) integrateLocked() (changed, conflicts []string, err error) {
	if res, ext, err := r.commitExternal(); err != nil {
		return nil, nil, fmt.Errorf("commit external changes: %w", err)
	} else if res.Created {
		r.log.Info("committed external changes", "commit", res.Hash, "files", len(ext))
		r.statMu.Lock()
		r.state.head = res.Full
		r.statMu.Unlock()
	}
	if r.remoteURL == "" {
		return nil, nil, nil
	}
	local, err := r.headHash()
	if err != nil {
		return nil, nil, err
	}
	remote, err := r.refHash(r.trackingRef())
	if err != nil || remote.IsZero() || remote == local {
		return nil, nil, err
	}
	ahead, behind, base, err := r.compare(local, remote)
	if err != nil {
		return nil, nil, err
	}
	if behind == 0 {
		return nil, nil, nil // we are ahead: the push brings the remote along
	}
	chain, err := r.unpushed(local, base)
	if err != nil {
		return nil, nil, err
	}
	rp := &replay{r: r, head: remote, stamp: r.opts.Now(), copies: map[string]string{}}
	if rp.tree, err = r.treeOf(remote); err != nil {
		return nil, nil, err
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
	if err != nil {
		return nil, nil, err
	}
	if ahead > 0 {
		r.log.Info("replayed local commits on top of the remote", "commits", len(chain), "remote", short(remote), "head", short(rp.head))
	} else {
		r.log.Info("fast-forwarded to the remote", "head", short(rp.head), "files", len(changed))
	}
	for _, c := range rp.conflicts {
		r.log.Warn("conflict: the remote's version kept at the path, ours saved next to it", "path", c[0], "copy", c[1])
		conflicts = append(conflicts, c[1])
	}
	return changed, conflicts, nil
}

// treeOf returns a commit's tree (the empty tree for the zero hash).
func (r *Repo) treeOf(h plumbing.Hash) (plumbing.Hash, error) {
	if h.IsZero() {
		return emptyTree, nil
	}
	c, err := r.obj.commit(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// unpushed lists the commits from base (exclusive) to local along first
// parents, oldest first. A merge commit among them is replayed as its diff
// against its first parent.
func (r *Repo) unpushed(local, base plumbing.Hash) ([]*object.Commit, error) {
	var chain []*object.Commit
	for h := local; !h.IsZero() && h != base; {
		c, err := r.obj.commit(h)
		if err != nil {
			return nil, err
		}
		chain = append(chain, c)
		if len(c.ParentHashes) == 0 {
			break
		}
		h = c.ParentHashes[0]
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain, nil
}

// replay rebuilds our commits one by one on top of the remote head.
type replay struct {
	r     *Repo
	head  plumbing.Hash // the last commit made (starts at the remote head)
	tree  plumbing.Hash // its tree
	stamp time.Time     // names conflict copies
	// copies maps a path that collided to the conflict copy that now
	// carries our side of it, so later commits of ours follow it there.
	copies    map[string]string
	conflicts [][2]string // path, copy
}

// apply replays one commit: each path it changed is taken as is when the
// remote left it alone, merged when both changed it, and saved to a
// conflict copy when the merge collides. A commit whose changes are all
// upstream already is dropped, as git rebase does.
func (rp *replay) apply(c *object.Commit) error {
	r := rp.r
	parentTree := emptyTree
	if len(c.ParentHashes) > 0 {
		var err error
		if parentTree, err = r.treeOf(c.ParentHashes[0]); err != nil {
			return err
		}
	}
	diffs, err := r.obj.diffTrees(parentTree, c.TreeHash)
	if err != nil {
		return err
	}
	changes := map[string]treeChange{}
	set := func(p string, e fileEntry) {
		if e.Hash.IsZero() {
			changes[p] = treeChange{del: true}
		} else {
			changes[p] = treeChange{hash: e.Hash, mode: e.Mode}
		}
	}
	for _, d := range diffs {
		p := d.Path
		if cp, ok := rp.copies[p]; ok {
			set(cp, d.To)
			continue
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
		te, ok, err := r.obj.lookup(rp.tree, p)
		if err != nil {
			return err
		}
		var cur fileEntry
		if ok && te.Mode != filemode.Dir {
			cur = fileEntry{Path: p, Hash: te.Hash, Mode: te.Mode}
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
			// The remote deleted a note we changed: keep ours.
			r.log.Info("kept a note we edited and the remote deleted", "path", p)
			set(p, d.To)
		default:
			if err := rp.merge(p, d.From, d.To, cur, changes); err != nil {
				return err
			}
		}
	}
	newTree, err := r.obj.applyTree(rp.tree, changes)
	if err != nil {
		return err
	}
	if newTree.IsZero() {
		newTree = emptyTree
		if _, err := r.obj.writeTree(nil); err != nil {
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
	h, err := r.obj.writeCommit(nc)
	if err != nil {
		return err
	}
	rp.head, rp.tree = h, newTree
	return nil
}

// merge handles a path both sides changed: a clean three-way merge of the
// text, or the remote's version at the path and ours in a conflict copy.
func (rp *replay) merge(p string, base, ours, theirs fileEntry, changes map[string]treeChange) error {
	r := rp.r
	var baseText []byte
	if !base.Hash.IsZero() {
		var err error
		if baseText, err = r.obj.blob(base.Hash); err != nil {
			return err
		}
	}
	oursText, err := r.obj.blob(ours.Hash)
	if err != nil {
		return err
	}
	theirsText, err := r.obj.blob(theirs.Hash)
	if err != nil {
		return err
	}
	if !isBinary(baseText) && !isBinary(oursText) && !isBinary(theirsText) &&
		ours.Mode != filemode.Symlink && theirs.Mode != filemode.Symlink {
		if merged, ok := merge3(string(baseText), string(oursText), string(theirsText)); ok {
			h, err := r.obj.writeBlob([]byte(merged))
			if err != nil {
				return err
			}
			changes[p] = treeChange{hash: h, mode: ours.Mode}
			r.log.Info("merged a note changed on both sides", "path", p)
			return nil
		}
	}
	cp, err := rp.conflictName(p, changes)
	if err != nil {
		return err
	}
	changes[cp] = treeChange{hash: ours.Hash, mode: ours.Mode}
	rp.copies[p] = cp
	rp.conflicts = append(rp.conflicts, [2]string{p, cp})
	return nil
}

// structureConflict checks whether our file at p collides with the shape
// of the remote's tree: a folder at p, or a file at one of p's parent
// folders. It then returns the path ours goes to instead (a conflict copy
// of p, or p under a conflict-named copy of that parent folder) and records
// it; "" means no collision.
func (rp *replay) structureConflict(p string, changes map[string]treeChange) (string, error) {
	r := rp.r
	te, ok, err := r.obj.lookup(rp.tree, p)
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
		te, ok, err := r.obj.lookup(rp.tree, parent)
		if err != nil {
			return "", err
		}
		if !ok || te.Mode == filemode.Dir {
			continue
		}
		if _, ours := changes[parent]; ours && changes[parent].del {
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
func (rp *replay) conflictName(p string, changes map[string]treeChange) (string, error) {
	var lookupErr error
	name := conflictPath(p, rp.stamp, func(cand string) bool {
		if _, ok := changes[cand]; ok {
			return true
		}
		if _, ok, err := rp.r.obj.lookup(rp.tree, cand); err != nil {
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
	diffs, err := r.obj.diffTrees(from, to)
	if err != nil {
		return nil, err
	}
	idx, err := r.index.load()
	if err != nil {
		return nil, err
	}
	upd := newIndexUpdate()
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
			upd.remove[d.Path] = true
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
		content, err := r.obj.blob(d.To.Hash)
		if err != nil {
			return nil, err
		}
		fi, err := writeWorktreeFile(full, content, d.To.Mode)
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", d.Path, err)
		}
		e := &index.Entry{Name: d.Path, Hash: d.To.Hash, Mode: d.To.Mode}
		fillStat(e, fi)
		upd.set[d.Path] = e
		changed = append(changed, d.Path)
	}
	lock, err := r.index.prepare(upd.apply(idx))
	if err != nil {
		return nil, err
	}
	if err := r.updateRef(r.branch, newHead, old, "pull: replay onto "+r.opts.RemoteName); err != nil {
		lock.abort()
		return nil, err
	}
	if err := lock.commit(); err != nil {
		return nil, err
	}
	r.statMu.Lock()
	r.state.head = newHead
	r.statMu.Unlock()
	return changed, nil
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
	e := entryFor(idx, p)
	if e != nil && statUnchanged(e, fi) {
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
	tmp, err := os.CreateTemp(filepath.Dir(full), ".vaultmcp-*")
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
