package gitsync

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// SyncStatus is the state of the repository and its sync with the remote,
// as get_vault_info shows it.
type SyncStatus struct {
	// Branch is the branch the server commits to; Head its short hash ("" in
	// a repository without commits).
	Branch string
	Head   string
	// RemoteConfigured is false for a local-only vault; Remote is the remote
	// name and RemoteURL its URL with any password hidden.
	RemoteConfigured bool
	Remote           string
	RemoteURL        string
	// PushEnabled is false when pushing is turned off in the config.
	PushEnabled bool
	// LastSync is when the last pull finished without error; LastPush when
	// the last push did. Zero means never (since the server started).
	LastSync time.Time
	LastPush time.Time
	// Ahead counts local commits the remote does not have yet; Behind remote
	// commits not yet replayed here (both as of the last sync or commit).
	Ahead  int
	Behind int
	// LastPushError and LastPullError are the latest failures, "" once an
	// attempt succeeds again.
	LastPushError string
	LastPullError string
	// PendingConflicts lists the "(conflict …)" copies sync made that are
	// still in the vault: our side of a note that both sides changed in the
	// same lines. Deleting the copy (after merging it by hand) resolves it.
	PendingConflicts []string
	// HeldDeletion is a mass deletion held back until it is confirmed;
	// nil when there is none.
	HeldDeletion *HeldDeletion
	// NextPushRetry is when a failed push is tried again; zero when none
	// is waiting. A push the remote declined waits several minutes.
	NextPushRetry time.Time
}

// syncState is the mutable part of SyncStatus, guarded by Repo.statMu.
type syncState struct {
	head                     plumbing.Hash
	lastSync, lastPush       time.Time
	lastPushErr, lastPullErr string
	ahead, behind            int
	conflicts                []string
	pushes                   int       // successful pushes, for tests
	lastGC                   time.Time // when the loop last ran gc
	nextPushRetry            time.Time
	held                     *heldDeletion   // a mass deletion held back
	warned                   map[string]bool // unsafe names already logged
}

// Status returns the sync state. It never waits for a running commit, pull
// or push.
func (r *Repo) Status() SyncStatus {
	r.statMu.Lock()
	defer r.statMu.Unlock()
	// A conflict copy the user deleted is resolved.
	kept := r.state.conflicts[:0]
	for _, p := range r.state.conflicts {
		if _, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(p))); err == nil {
			kept = append(kept, p)
		}
	}
	if len(kept) != len(r.state.conflicts) {
		r.state.conflicts = kept
		r.saveConflicts(kept)
	} else {
		r.state.conflicts = kept
	}
	s := r.state
	return SyncStatus{
		Branch:           r.opts.Branch,
		Head:             short(s.head),
		RemoteConfigured: r.remoteURL != "",
		Remote:           r.remoteName(),
		RemoteURL:        redactURL(r.remoteURL),
		PushEnabled:      r.remoteURL != "" && !r.opts.NoPush,
		LastSync:         s.lastSync,
		LastPush:         s.lastPush,
		Ahead:            s.ahead,
		Behind:           s.behind,
		LastPushError:    s.lastPushErr,
		LastPullError:    s.lastPullErr,
		PendingConflicts: slices.Clone(s.conflicts),
		HeldDeletion:     r.state.heldStatus(),
		NextPushRetry:    s.nextPushRetry,
	}
}

func (r *Repo) remoteName() string {
	if r.remoteURL == "" {
		return ""
	}
	return r.opts.RemoteName
}

// committed notes a new local commit and wakes the pusher.
func (r *Repo) committed(head plumbing.Hash) {
	r.statMu.Lock()
	// A refreshCounts that ran between the commit and this call has
	// counted the commit already.
	if r.state.head != head {
		r.state.head = head
		if r.remoteURL != "" {
			r.state.ahead++
		}
	}
	r.statMu.Unlock()
	r.wakePush()
}

func (r *Repo) wakePush() {
	if r.remoteURL == "" || r.opts.NoPush {
		return
	}
	select {
	case r.pushWake <- struct{}{}:
	default:
	}
}

// refreshCounts recomputes head and ahead/behind against the remote-tracking
// branch.
func (r *Repo) refreshCounts() {
	// The counts are stored before r.mu is released, so no commit can
	// land between counting and storing and be lost or counted twice.
	r.mu.Lock()
	defer r.mu.Unlock()
	head, err := r.refHash(r.branch)
	var ahead, behind int
	if err == nil && r.remoteURL != "" {
		var remote plumbing.Hash
		remote, err = r.refHash(r.trackingRef())
		if err == nil {
			ahead, behind, err = r.compare(head, remote)
		}
	}
	if err != nil {
		r.log.Warn("counting commits ahead/behind", "err", err)
		return
	}
	r.statMu.Lock()
	r.state.head, r.state.ahead, r.state.behind = head, ahead, behind
	r.statMu.Unlock()
}

// conflictsFile keeps the pending conflict copies across restarts.
func (r *Repo) conflictsFile() string { return filepath.Join(r.gitDir, "vaultmcp-conflicts") }

func (r *Repo) loadConflicts() []string {
	data, err := os.ReadFile(r.conflictsFile())
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

func (r *Repo) saveConflicts(list []string) {
	var err error
	if len(list) == 0 {
		err = os.Remove(r.conflictsFile())
		if errors.Is(err, os.ErrNotExist) {
			err = nil
		}
	} else {
		err = r.writeFileAtomic(r.conflictsFile(), []byte(strings.Join(list, "\n")+"\n"))
	}
	if err != nil {
		r.log.Warn("saving the pending conflict list", "err", err)
	}
}

// addConflicts records new conflict copies.
func (r *Repo) addConflicts(paths []string) {
	if len(paths) == 0 {
		return
	}
	r.statMu.Lock()
	defer r.statMu.Unlock()
	for _, p := range paths {
		if !slices.Contains(r.state.conflicts, p) {
			r.state.conflicts = append(r.state.conflicts, p)
		}
	}
	r.saveConflicts(r.state.conflicts)
}
