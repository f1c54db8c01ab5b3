// Package ratelimit keeps per-caller token buckets (golang.org/x/time/rate)
// for the HTTP side: a Rule says how many requests a minute a caller gets
// and how many may come at once (the burst); a Limiter holds one bucket
// per key (a user, a token, an IP address) and forgets keys idle long
// enough to have refilled, so memory stays bounded by the callers of the
// last few minutes.
package ratelimit

import (
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Rule is one limit: PerMinute requests a minute, Burst at once.
type Rule struct {
	PerMinute int
	Burst     int
}

// String is the limit as the 429 body states it: "60 per 1 minute".
func (r Rule) String() string { return fmt.Sprintf("%d per 1 minute", r.PerMinute) }

// Decision is the outcome of one request against a bucket, with what the
// X-RateLimit-* headers report.
type Decision struct {
	Allowed bool
	// Limit is the rule's requests per minute.
	Limit int
	// Remaining is how many more requests the bucket holds now.
	Remaining int
	// Reset is when the bucket is full again.
	Reset time.Time
	// RetryAfter is how long until the next request would be allowed
	// (0 when allowed).
	RetryAfter time.Duration
}

// Limiter applies one Rule per key. The zero value is not usable; use New.
type Limiter struct {
	rule  Rule
	limit rate.Limit
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// New returns a Limiter for rule. now is the clock (nil: time.Now).
func New(rule Rule, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	if rule.Burst < 1 {
		rule.Burst = 1
	}
	return &Limiter{
		rule:    rule,
		limit:   rate.Limit(float64(rule.PerMinute) / 60),
		now:     now,
		buckets: map[string]*bucket{},
	}
}

// Rule returns the limiter's rule.
func (l *Limiter) Rule() Rule { return l.rule }

// Allow takes one request from key's bucket.
func (l *Limiter) Allow(key string) Decision {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.rule.Burst)}
		l.buckets[key] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	d := Decision{Limit: l.rule.PerMinute}
	if delay := r.DelayFrom(now); delay > 0 {
		r.CancelAt(now)
		d.RetryAfter = delay
	} else {
		d.Allowed = true
	}
	tokens := b.lim.TokensAt(now)
	d.Remaining = max(0, int(math.Floor(tokens)))
	missing := float64(l.rule.Burst) - tokens
	d.Reset = now.Add(time.Duration(missing / float64(l.limit) * float64(time.Second)))
	return d
}

// sweep forgets buckets idle long enough to be full again: a new bucket
// for them would be the same. Caller holds mu.
func (l *Limiter) sweep(now time.Time) {
	refill := time.Duration(float64(l.rule.Burst) / float64(l.limit) * float64(time.Second))
	if now.Sub(l.swept) < refill {
		return
	}
	l.swept = now
	for k, b := range l.buckets {
		if now.Sub(b.seen) >= refill {
			delete(l.buckets, k)
		}
	}
}

// Len reports how many keys have a bucket (tests).
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
