package gitsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// The mass-deletion guard. A failed checkout, a sync app evicting files,
// an unmounted or emptied folder: the external-changes scan then finds a
// large share of the tracked files gone at once, and committing that (and
// pushing it to every other device) is never what the user wants. Such a
// deletion is held back instead: not committed, not pushed, logged and
// shown in Status().HeldDeletion, while the server goes on serving. It is
// committed only when confirmed (ConfirmDeletion, or AllowMassDeletion),
// and dropped when the files come back. The rest of the external changes
// are committed as usual.

// minMassDeletion is the fewest files the percentage rule holds back: a
// handful of deletions in a small vault is ordinary work.
const minMassDeletion = 5

// maxHeldExamples is how many of the held paths Status lists.
const maxHeldExamples = 10

// HeldDeletion describes a mass deletion waiting for confirmation.
type HeldDeletion struct {
	// Files is how many tracked files are gone; Tracked how many the
	// branch has.
	Files   int
	Tracked int
	// Examples are a few of the missing paths, sorted.
	Examples []string
	// Since is when the deletion was first held back.
	Since time.Time
}

// heldDeletion is the guard's state, in syncState.
type heldDeletion struct {
	paths   []string // sorted
	tracked int
	since   time.Time
}

// ErrNoHeldDeletion is returned by ConfirmDeletion when no deletion waits.
var ErrNoHeldDeletion = errors.New("no mass deletion is waiting for confirmation")

// isMassDeletion applies the guard's thresholds to n files gone out of
// tracked.
func (r *Repo) isMassDeletion(n, tracked int) bool {
	if r.opts.AllowMassDeletion || n == 0 {
		return false
	}
	return n > r.opts.MassDeletionFiles ||
		(n >= minMassDeletion && n*100 > tracked*r.opts.MassDeletionPercent) ||
		(n == tracked && tracked >= 2)
}

// holdDeletion records (and logs, when it changed) a held deletion.
func (r *Repo) holdDeletion(paths []string, tracked int) {
	paths = slices.Clone(paths)
	slices.Sort(paths)
	r.statMu.Lock()
	prev := r.state.held
	h := &heldDeletion{paths: paths, tracked: tracked, since: r.opts.Now()}
	if prev != nil {
		h.since = prev.since
	}
	r.state.held = h
	r.statMu.Unlock()
	if prev == nil || len(prev.paths) != len(paths) {
		r.log.Error("mass deletion held back: not committed, not pushed; restore the files, or confirm the deletion (confirm_deletion tool, or git.allow_mass_deletion)",
			"files", len(paths), "tracked", tracked, "examples", examples(paths))
	}
}

// releaseDeletion clears a held deletion whose files came back.
func (r *Repo) releaseDeletion() {
	r.statMu.Lock()
	prev := r.state.held
	r.state.held = nil
	r.statMu.Unlock()
	if prev != nil {
		r.log.Info("the held-back mass deletion is over: the files are back (or few enough are still gone to be committed as usual)", "files", len(prev.paths))
	}
}

func examples(paths []string) []string {
	return slices.Clone(paths[:min(len(paths), maxHeldExamples)])
}

// heldStatus is the held deletion as Status shows it (nil when none).
func (s *syncState) heldStatus() *HeldDeletion {
	if s.held == nil {
		return nil
	}
	return &HeldDeletion{Files: len(s.held.paths), Tracked: s.held.tracked, Examples: examples(s.held.paths), Since: s.held.since}
}

// ConfirmDeletion commits the held mass deletion (see HeldDeletion). files
// must be the number of files Status reports, so that a deletion that
// grew since it was shown is not confirmed blindly. Files that came back
// meanwhile are kept. It takes the vault lock itself.
func (r *Repo) ConfirmDeletion(ctx context.Context, files int) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	var res Result
	err := r.withLocks(func() error {
		r.statMu.Lock()
		held := r.state.held
		r.statMu.Unlock()
		if held == nil {
			return ErrNoHeldDeletion
		}
		if files != len(held.paths) {
			return fmt.Errorf("%d files are waiting to be deleted, not %d: look at the sync state again and confirm the number it shows", len(held.paths), files)
		}
		var gone []string
		for _, p := range held.paths {
			if _, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(p))); errors.Is(err, fs.ErrNotExist) {
				gone = append(gone, p)
			}
		}
		var err error
		res, err = r.commitLocked(request{}, fmt.Sprintf("%s (confirmed deletion of %d files)", ExternalChangesMessage, len(gone)), gone)
		var nf *NotFlushedError
		if err != nil && !errors.As(err, &nf) {
			return err
		}
		// Committed, even if its last flush failed (err is then that).
		r.statMu.Lock()
		r.state.held = nil
		r.statMu.Unlock()
		r.log.Warn("mass deletion confirmed and committed", "files", len(gone), "commit", res.Hash)
		return err
	})
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

// withoutMassDeletion applies the guard to a list of changed paths (a
// file watcher's): when the missing ones among them are a mass deletion
// they are held back and the rest returned.
func (r *Repo) withoutMassDeletion(paths []string) []string {
	r.mu.Lock()
	idx, err := r.index.Load()
	tracked := 0
	if err == nil {
		tracked = len(idx.Entries)
	}
	r.mu.Unlock()
	var gone, kept []string
	for _, p := range paths {
		if _, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(p))); errors.Is(err, fs.ErrNotExist) {
			gone = append(gone, p)
		} else {
			kept = append(kept, p)
		}
	}
	if !r.isMassDeletion(len(gone), tracked) {
		return paths
	}
	r.holdDeletion(gone, tracked)
	return kept
}
