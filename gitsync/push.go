package gitsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/revlist"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"

	"vaultmcp/gitsync/internal/store"
)

// ErrRejected is returned by Push when the remote branch has commits we do
// not have: a pull must replay ours on top first. Pushes never force.
var ErrRejected = errors.New("push rejected: the remote has new commits (pull first)")

// PushDeclinedError is a push the remote refused for another reason than
// new commits: a server-side hook, a protected branch, a permission, a
// broken pack. Pulling does not change that answer, so it is not retried
// at once (see declinedBackoff).
type PushDeclinedError struct {
	// Reason is the remote's status for the branch ("pre-receive hook
	// declined", "protected branch hook declined", "unpack error: …").
	Reason string
	// Message is what the remote's hooks printed, if anything.
	Message string
}

func (e *PushDeclinedError) Error() string {
	msg := "the remote declined the push: " + e.Reason
	if e.Message != "" {
		msg += "; the remote said: " + e.Message
	}
	return msg
}

// RemoteLockedError is a push the remote could not apply because its
// branch's lock file exists: another push is updating the branch, or one
// was cut short (killed mid-update) and left the file behind. Pulling does
// not help; the loop tries again later, as after a network error. A lock
// left behind stays until someone removes it on the remote, so the error
// names the file.
type RemoteLockedError struct {
	// Lock is the lock file as the remote named it (a path on the remote
	// machine), or "" when it did not say.
	Lock string
	// Message is what the remote said.
	Message string
}

func (e *RemoteLockedError) Error() string {
	what := "its lock file"
	if e.Lock != "" {
		what = e.Lock
	}
	return "the remote could not update the branch: " + what + " exists (another push is running, or one was cut short; if nothing is pushing to the remote, remove that file there)"
}

// maxRemoteMessage caps the hook output kept in a PushDeclinedError.
const maxRemoteMessage = 2000

// movedOn reports whether a receive-pack status means the branch moved
// between its advertisement and our update (a pull helps), rather than a
// refusal.
func movedOn(reason string) bool {
	for _, s := range []string{"non-fast-forward", "fetch first", "failed to update ref", "failed to lock", "stale info", "is at"} {
		if strings.Contains(reason, s) {
			return true
		}
	}
	return false
}

// remoteText tidies the sideband text of a push: ANSI escapes and
// carriage-return progress lines dropped, whitespace folded, capped.
func remoteText(b []byte) string {
	var lines []string
	for _, line := range strings.Split(string(b), "\n") {
		if i := strings.LastIndexByte(line, '\r'); i >= 0 {
			line = line[i+1:]
		}
		line = strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\t' {
				return -1
			}
			return r
		}, line)
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "remote:"))
		if line != "" {
			lines = append(lines, line)
		}
	}
	out := strings.Join(lines, " / ")
	if len(out) > maxRemoteMessage {
		out = out[:maxRemoteMessage] + "…"
	}
	return out
}

// Push sends our branch to the remote if it is ahead, as a fast-forward
// only. It returns ErrRejected when the remote moved on. The background loop
// calls it; it is exported for tests and for a manual "sync now".
func (r *Repo) Push(ctx context.Context) error {
	if r.remoteURL == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.NetworkTimeout)
	defer cancel()
	pushed, err := func() (pushed bool, err error) {
		defer r.recoverPanic("push", &err)
		r.netMu.Lock()
		defer r.netMu.Unlock()
		return r.push(ctx)
	}()
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("push to %s: no answer within %s", redactURL(r.remoteURL), r.opts.NetworkTimeout)
	}
	r.statMu.Lock()
	if err != nil {
		r.state.lastPushErr = r.scrub(err).Error()
	} else {
		r.state.lastPushErr = ""
		if pushed {
			r.state.lastPush = r.opts.Now()
			r.state.pushes++
		}
	}
	r.statMu.Unlock()
	if err == nil {
		r.refreshCounts()
	}
	return r.scrub(err)
}

// push does the work of Push with netMu held. go-git's own push walks every
// object reachable from the remote's head to decide what to send, which on a
// 10,000-note vault costs seconds per push; here the objects to send are
// found by walking only our new commits and, in each, only the subtrees that
// differ from its parent.
func (r *Repo) push(ctx context.Context) (pushed bool, err error) {
	r.mu.Lock()
	local, err := r.headHash()
	r.mu.Unlock()
	if err != nil || local.IsZero() {
		return false, err
	}
	ep, err := transport.NewEndpoint(r.remoteURL)
	if err != nil {
		return false, fmt.Errorf("remote URL: %w", err)
	}
	cl, err := client.NewClient(ep)
	if err != nil {
		return false, fmt.Errorf("remote %s: %w", redactURL(r.remoteURL), err)
	}
	sess, err := cl.NewReceivePackSession(ep, r.auth)
	if err != nil {
		return false, fmt.Errorf("connect %s: %w", redactURL(r.remoteURL), err)
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return false, fmt.Errorf("connect %s: %w", redactURL(r.remoteURL), err)
	}
	var remote plumbing.Hash
	if ar != nil {
		if h, ok := ar.References[r.branch.String()]; ok {
			remote = h
		}
	}
	if remote == local {
		return false, r.setTracking(local)
	}
	// Push only onto the remote head we last integrated or pushed (a
	// lease, as --force-with-lease, kept even for fast-forwards): a remote
	// that moved since, forward or back, is pulled first. Pushing our
	// branch onto a remote rewound to an older commit would otherwise be
	// a fast-forward that puts back the commits the rewrite dropped.
	r.mu.Lock()
	known, err := r.refHash(r.trackingRef())
	r.mu.Unlock()
	if err != nil {
		return false, err
	}
	if !remote.IsZero() && remote != known {
		return false, fmt.Errorf("%w (it is at %s, last seen at %s)", ErrRejected, short(remote), orNone(short(known)))
	}
	// The objects to send may be in a pack a commit wrote since the
	// network storage read its pack list: go-git's encoder reads them
	// from that storage directly, without looking again on a miss.
	if n := r.packs.Load(); n != r.netPacks {
		r.netSt.ObjectStorage.Reindex()
		r.netPacks = n
	}
	obj := store.NewObjects(r.netSt, r.gitDir, store.ObjectsOptions{})
	if !remote.IsZero() && !obj.Has(remote) {
		return false, ErrRejected
	}
	hashes, err := r.objectsToPush(obj, local, remote)
	if err != nil {
		return false, err
	}
	caps := capability.NewList()
	if ar != nil {
		caps = ar.Capabilities
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(caps)
	req.Commands = []*packp.Command{{Name: r.branch, Old: remote, New: local}}
	// The side band carries what the remote's hooks print: the reason a
	// protected branch or a hook declines the push.
	var said bytes.Buffer
	if caps.Supports(capability.Sideband64k) {
		req.Capabilities.Set(capability.Sideband64k)
		req.Progress = &said
	} else if caps.Supports(capability.Sideband) {
		req.Capabilities.Set(capability.Sideband)
		req.Progress = &said
	}
	rd, wr := io.Pipe()
	req.Packfile = rd
	done := make(chan error, 1)
	go func() {
		e := packfile.NewEncoder(wr, r.netSt, caps != nil && !caps.Supports(capability.OFSDelta))
		_, err := e.Encode(hashes, 10)
		done <- wr.CloseWithError(err)
	}()
	rs, err := sess.ReceivePack(ctx, req)
	if rs != nil && rs.Error() != nil {
		rd.Close()
		<-done
		return false, pushRefusal(rs, said.Bytes())
	}
	if err != nil {
		rd.Close()
		<-done
		if msg := remoteText(said.Bytes()); msg != "" {
			return false, fmt.Errorf("push to %s: %w (the remote said: %s)", redactURL(r.remoteURL), err, msg)
		}
		return false, fmt.Errorf("push to %s: %w", redactURL(r.remoteURL), err)
	}
	if err := <-done; err != nil {
		return false, fmt.Errorf("pack objects: %w", err)
	}
	r.log.Info("pushed", "head", short(local), "objects", len(hashes))
	return true, r.setTracking(local)
}

// pushRefusal classifies a report whose status is not ok: the branch
// moved on (ErrRejected) or the remote declined (PushDeclinedError).
func pushRefusal(rs *packp.ReportStatus, said []byte) error {
	reason := rs.UnpackStatus
	if reason == "ok" {
		reason = ""
		for _, cs := range rs.CommandStatuses {
			if cs.Status != "ok" {
				reason = cs.Status
				break
			}
		}
	} else {
		reason = "unpack error: " + reason
	}
	// git's receive-pack says "failed to update ref" both when the branch
	// moved under the lease and when its lock file is in the way; only
	// what it printed tells them apart.
	if lock, ok := lockInTheWay(string(said)); ok {
		return &RemoteLockedError{Lock: lock, Message: remoteText(said)}
	}
	if movedOn(reason) {
		return fmt.Errorf("%w (%s)", ErrRejected, reason)
	}
	return &PushDeclinedError{Reason: reason, Message: remoteText(said)}
}

// lockInTheWay finds git's report of a ref lock file that already exists
// ("Unable to create '<path>.lock': File exists.") in what a remote said,
// and returns that path.
func lockInTheWay(said string) (string, bool) {
	const create = "Unable to create '"
	i := strings.Index(said, create)
	if i < 0 || !strings.Contains(said[i:], "File exists") {
		return "", false
	}
	rest := said[i+len(create):]
	end := strings.Index(rest, "'")
	if end < 0 || !strings.HasSuffix(rest[:end], ".lock") {
		return "", true
	}
	return strings.ReplaceAll(rest[:end], "/./", "/"), true
}

// setTracking records what the remote branch now is.
func (r *Repo) setTracking(h plumbing.Hash) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, err := r.refHash(r.trackingRef())
	if err != nil || old == h {
		return err
	}
	return r.updateRef(r.trackingRef(), h, old, "update by push")
}

// objectsToPush lists the objects the remote (at commit remote) lacks to
// have commit local. ErrRejected means local does not descend from remote.
func (r *Repo) objectsToPush(obj *store.Objects, local, remote plumbing.Hash) ([]plumbing.Hash, error) {
	var chain []plumbing.Hash
	linear := true
	found := remote.IsZero()
	for h := local; !h.IsZero(); {
		if h == remote {
			found = true
			break
		}
		c, err := obj.Commit(h)
		if err != nil {
			return nil, err
		}
		chain = append(chain, h)
		if len(c.ParentHashes) > 1 {
			linear = false
			break
		}
		if len(c.ParentHashes) == 0 {
			break
		}
		h = c.ParentHashes[0]
	}
	if linear && !found {
		return nil, ErrRejected
	}
	if !linear || remote.IsZero() {
		// A merge in the way, or a first push: let go-git work it out.
		var ignore []plumbing.Hash
		if !remote.IsZero() {
			ok, err := r.isAncestorIn(obj, remote, local)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, ErrRejected
			}
			ignore = []plumbing.Hash{remote}
		}
		hs, err := revlist.Objects(r.netSt, []plumbing.Hash{local}, ignore)
		if err != nil {
			return nil, fmt.Errorf("list objects to push: %w", err)
		}
		return hs, nil
	}
	// Oldest first: when a commit is reached, every object of its parent
	// is on the remote or already in out, so an object equal to the
	// parent's at the same path is safe to leave out, and a tree met again
	// (a folder changed and changed back) is complete already.
	slices.Reverse(chain)
	seen := map[plumbing.Hash]bool{}
	var out []plumbing.Hash
	for _, h := range chain {
		c, err := obj.Commit(h)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
		parentTree := store.EmptyTree
		if len(c.ParentHashes) > 0 {
			p, err := obj.Commit(c.ParentHashes[0])
			if err != nil {
				return nil, err
			}
			parentTree = p.TreeHash
		}
		if err := newTreeObjects(obj, parentTree, c.TreeHash, seen, &out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// newTreeObjects adds tree and its subtrees and blobs that differ from the
// same path in old, whose objects the remote has or out holds already.
func newTreeObjects(obj *store.Objects, old, tree plumbing.Hash, seen map[plumbing.Hash]bool, out *[]plumbing.Hash) error {
	if old == tree || seen[tree] {
		return nil
	}
	seen[tree] = true
	*out = append(*out, tree)
	oldEntries, err := obj.Tree(old)
	if err != nil {
		return err
	}
	prev := make(map[string]object.TreeEntry, len(oldEntries))
	for _, e := range oldEntries {
		prev[e.Name] = e
	}
	es, err := obj.Tree(tree)
	if err != nil {
		return err
	}
	for _, e := range es {
		if prev[e.Name].Hash == e.Hash || seen[e.Hash] {
			continue
		}
		switch e.Mode {
		case filemode.Dir:
			// Compare with the folder that was at this path; a file that
			// was there is no base (a note replaced by a folder).
			base := store.EmptyTree
			if p, ok := prev[e.Name]; ok && p.Mode == filemode.Dir {
				base = p.Hash
			}
			if err := newTreeObjects(obj, base, e.Hash, seen, out); err != nil {
				return err
			}
		case filemode.Submodule:
		default:
			seen[e.Hash] = true
			*out = append(*out, e.Hash)
		}
	}
	return nil
}

// isAncestorIn is isAncestor over another storage.
func (r *Repo) isAncestorIn(obj *store.Objects, anc, h plumbing.Hash) (bool, error) {
	seen := map[plumbing.Hash]bool{}
	stack := []plumbing.Hash{h}
	for len(stack) > 0 && len(seen) < walkLimit {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == anc {
			return true, nil
		}
		if seen[x] {
			continue
		}
		seen[x] = true
		c, err := obj.Commit(x)
		if err != nil {
			return false, err
		}
		stack = append(stack, c.ParentHashes...)
	}
	return false, nil
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}
