package oauth

import (
	"sync"
	"time"
)

// Wrong passwords are limited per address by the sign-in rate limit, and
// per user here: after a few, each further attempt for that user name
// waits twice as long as the last, whatever address it comes from, so
// guessing from many addresses gains little. A right password, or an
// hour without a wrong one, starts over.
const (
	backoffFree    = 5
	backoffMax     = 15 * time.Minute
	backoffForget  = time.Hour
	backoffTracked = 10000
)

type backoff struct {
	mu    sync.Mutex
	users map[string]*failures
}

type failures struct {
	n    int
	last time.Time
}

func newBackoff() *backoff { return &backoff{users: map[string]*failures{}} }

// wait is how long a sign-in for user must still wait; 0 when it may go
// on.
func (b *backoff) wait(user string, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.users[user]
	if f == nil || f.n < backoffFree || now.Sub(f.last) > backoffForget {
		return 0
	}
	d := min(time.Second<<min(f.n-backoffFree, 12), backoffMax)
	if rem := f.last.Add(d).Sub(now); rem > 0 {
		return rem
	}
	return 0
}

func (b *backoff) failed(user string, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.users[user]
	if f == nil {
		if len(b.users) >= backoffTracked {
			b.forgetOldest(now)
		}
		f = &failures{}
		b.users[user] = f
	}
	if now.Sub(f.last) > backoffForget {
		f.n = 0
	}
	f.n++
	f.last = now
}

func (b *backoff) succeeded(user string) {
	b.mu.Lock()
	delete(b.users, user)
	b.mu.Unlock()
}

// forgetOldest makes room: the entries no longer in force first, else
// the one failed longest ago.
func (b *backoff) forgetOldest(now time.Time) {
	var oldest string
	for u, f := range b.users {
		if now.Sub(f.last) > backoffForget {
			delete(b.users, u)
			continue
		}
		if oldest == "" || f.last.Before(b.users[oldest].last) {
			oldest = u
		}
	}
	if len(b.users) >= backoffTracked {
		delete(b.users, oldest)
	}
}
