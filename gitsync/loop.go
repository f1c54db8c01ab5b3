package gitsync

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"
)

// Push retry backoff.
const (
	minBackoff = time.Second
	maxBackoff = 5 * time.Minute
	// declinedBackoff is how long a push the remote declined (a hook, a
	// protected branch) waits before it is tried again: retrying sooner
	// would only be declined again.
	declinedBackoff = maxBackoff
	// pushDelay gathers a burst of commits into one push.
	pushDelay = 200 * time.Millisecond
)

// loop is the background sync: pull on start and every SyncInterval, push
// after commits, retry failed pushes with backoff, pack loose objects now
// and then. A panic in any of it is logged and the loop goes on.
func (r *Repo) loop(ctx context.Context) {
	defer close(r.done)
	defer r.gcRuns.Wait() // after cancel: a running gc is stopped first
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-r.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	go func() {
		defer r.recoverPanic("warming the history cache", nil)
		r.hist.Warm(ctx)
	}()

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
		var declined *PushDeclinedError
		switch {
		case err == nil:
			backoff = 0
			r.setNextPushRetry(time.Time{})
			return
		case ctx.Err() != nil:
			return
		case errors.As(err, &declined):
			backoff = declinedBackoff
			r.log.Error("the remote declined the push; the commits stay local", "in", backoff, "err", err)
		default:
			backoff = min(max(2*backoff, minBackoff), maxBackoff)
			r.log.Warn("push failed; retrying later", "in", backoff, "err", err)
		}
		retry = time.NewTimer(backoff)
		retryC = retry.C
		r.setNextPushRetry(time.Now().Add(backoff))
	}
	syncAndPush := func() {
		r.syncAndLog(ctx)
		if r.pushEnabled() && r.Status().Ahead > 0 {
			pushNow()
		}
		r.maybeGC(ctx)
	}
	step := func(fn func()) {
		defer r.recoverPanic("the sync loop", nil)
		fn()
	}
	step(syncAndPush)
	for {
		select {
		case <-ctx.Done():
			if retry != nil {
				retry.Stop()
			}
			return
		case <-tick:
			step(syncAndPush)
		case <-r.syncWake:
			step(func() { r.syncAndLog(ctx) })
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
			step(pushNow)
		case <-retryC:
			retry, retryC = nil, nil
			step(pushNow)
		}
	}
}

// recoverPanic, deferred, turns a panic into a logged error (stored in
// *err when err is not nil) so that one bad input never takes the server
// down with it. The locks taken below it are released by their defers.
func (r *Repo) recoverPanic(what string, err *error) {
	p := recover()
	if p == nil {
		return
	}
	r.log.Error("internal error (panic) recovered; the server goes on", "in", what, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	if err != nil {
		*err = fmt.Errorf("internal error in %s (logged): %v", what, p)
	}
}

func (r *Repo) setNextPushRetry(t time.Time) {
	r.statMu.Lock()
	r.state.nextPushRetry = t
	r.statMu.Unlock()
}

func (r *Repo) pushEnabled() bool { return r.remoteURL != "" && !r.opts.NoPush }

func (r *Repo) syncAndLog(ctx context.Context) {
	if err := r.Sync(ctx); err != nil && ctx.Err() == nil {
		var unsafe *UnsafeTreeError
		if errors.As(err, &unsafe) {
			r.log.Error("pull refused", "err", err)
			return
		}
		r.log.Warn("sync failed", "err", err)
	}
}

// pushWithPull pushes; a push the remote rejects because it moved on is
// followed by a pull (which replays our commits on top) and one more push.
// A push the remote declined for another reason (a hook, a protected
// branch) is returned as is: pulling would not change its answer.
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
