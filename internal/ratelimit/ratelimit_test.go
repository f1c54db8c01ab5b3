package ratelimit

import (
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestLoginRule(t *testing.T) {
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	l := New(Rule{PerMinute: 5, Burst: 2}, c.now)
	for i := range 2 {
		d := l.Allow("1.2.3.4")
		if !d.Allowed || d.Limit != 5 || d.Remaining != 1-i {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	d := l.Allow("1.2.3.4")
	if d.Allowed || d.Remaining != 0 || d.RetryAfter <= 0 || d.RetryAfter > 12*time.Second {
		t.Fatalf("third request: %+v", d)
	}
	if !d.Reset.After(c.t) {
		t.Errorf("reset %v not after now %v", d.Reset, c.t)
	}
	if other := l.Allow("5.6.7.8"); !other.Allowed {
		t.Error("another key shares the bucket")
	}
	c.t = c.t.Add(12 * time.Second) // 5 a minute: one token every 12 s
	if d := l.Allow("1.2.3.4"); !d.Allowed {
		t.Errorf("after refill: %+v", d)
	}
	if got := (Rule{PerMinute: 60, Burst: 10}).String(); got != "60 per 1 minute" {
		t.Errorf("String = %q", got)
	}
}

func TestSweep(t *testing.T) {
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	l := New(Rule{PerMinute: 60, Burst: 10}, c.now)
	for _, k := range []string{"a", "b", "c"} {
		l.Allow(k)
	}
	c.t = c.t.Add(time.Minute)
	l.Allow("d")
	if n := l.Len(); n != 1 {
		t.Errorf("%d buckets after every other key idled past a refill, want 1", n)
	}
}
