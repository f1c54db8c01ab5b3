package gitsync

import (
	"time"

	"vaultmcp/gitsync/internal/store"
)

// When the git index is written. A commit changes the index in memory,
// under index.lock (see indexFile); the file follows once commits pause
// for indexIdle, and at the latest indexMaxAge after the first change
// it lacks, so a burst of writes pays for one 1 MB index instead of one
// each. Until then `git status` run beside the server shows the last
// writes as changes the index undoes, and `git add` or `git commit`
// stop at the lock; Close and a clean stop write it at once.
//
// A kill in between leaves the file behind HEAD and index.lock with a
// dead owner: the next start removes the lock (store.RecoverLocks) and, since the
// process's mark is left (indexmark.go), rebuilds the index from HEAD.
const (
	indexIdle   = 50 * time.Millisecond
	indexMaxAge = 500 * time.Millisecond
)

// stageIndex applies upd to the index, index.lock held, and sees that the
// file follows. r.mu is held.
func (r *Repo) stageIndex(upd *store.IndexUpdate) {
	r.index.Update(upd, time.Now())
	if r.testHooks.Load().indexEachCommit() {
		r.writeIndex()
		return
	}
	r.scheduleIndexWrite(r.indexWait(indexIdle))
}

// indexWait is d, or a test's longer wait (testHooks.indexDelay).
func (r *Repo) indexWait(d time.Duration) time.Duration {
	return max(d, r.testHooks.Load().minIndexWait())
}

// scheduleIndexWrite arms the timer of the index write, unless it is
// armed already. r.mu is held.
func (r *Repo) scheduleIndexWrite(after time.Duration) {
	if r.indexTimerArmed {
		return
	}
	r.indexTimerArmed = true
	time.AfterFunc(after, r.indexTimerFired)
}

// indexTimerFired writes the index if commits paused long enough or it
// waited long enough, and arms the timer again otherwise.
func (r *Repo) indexTimerFired() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.indexTimerArmed = false
	if !r.index.Dirty() {
		return
	}
	now := time.Now()
	idle := now.Sub(r.index.LastChange)
	age := now.Sub(r.index.DirtySince)
	wantIdle, wantAge := r.indexWait(indexIdle), r.indexWait(indexMaxAge)
	if idle < wantIdle && age < wantAge {
		r.scheduleIndexWrite(min(wantIdle-idle, wantAge-age))
		return
	}
	r.writeIndex()
}

// writeIndex writes the index now if it is newer than the file. It is
// not flushed (see indexmark.go). A failure is logged: the commits are
// durable without it, and the next commit or the next start's rebuild
// brings the file up to date. r.mu is held.
func (r *Repo) writeIndex() {
	if err := r.index.Write(false); err != nil {
		r.log.Warn("could not write the git index; it is written again with the next commit", "err", err)
	}
}

// FlushIndex writes the git index now if commits left it newer in memory
// than on disk (it is otherwise written once commits pause), so that a
// git command run next sees it. It does not flush it to disk.
func (r *Repo) FlushIndex() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writeIndex()
}
