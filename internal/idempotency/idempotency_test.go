package idempotency

import (
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestDo(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	path := filepath.Join(t.TempDir(), "state", "keys.jsonl")
	s, err := Open(path, clock)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	call := func(answer string, keep bool) func() ([]byte, bool) {
		return func() ([]byte, bool) { calls++; return []byte(answer), keep }
	}
	if a, replayed, err := s.Do("token:a", "k1", "f1", call("first", true)); string(a) != "first" || replayed || err != nil {
		t.Fatalf("first call: %q %v %v", a, replayed, err)
	}
	if a, replayed, err := s.Do("token:a", "k1", "f1", call("second", true)); string(a) != "first" || !replayed || err != nil || calls != 1 {
		t.Fatalf("retry: %q %v %v, %d calls", a, replayed, err, calls)
	}
	var reused *ReusedError
	if _, _, err := s.Do("token:a", "k1", "f2", call("other", true)); !errors.As(err, &reused) || calls != 1 {
		t.Fatalf("same key, other arguments: %v, %d calls", err, calls)
	}
	// Another credential's key of the same name is its own.
	if a, replayed, _ := s.Do("token:b", "k1", "f2", call("b's", true)); string(a) != "b's" || replayed {
		t.Errorf("another credential's key: %q %v", a, replayed)
	}
	// An answer not kept (a refused change) runs again.
	s.Do("token:a", "k2", "f", call("refused", false))
	if a, replayed, _ := s.Do("token:a", "k2", "f", call("applied", true)); string(a) != "applied" || replayed {
		t.Errorf("retry of a refused call: %q %v", a, replayed)
	}
	s.Close()

	// Kept across a restart, until the day is over.
	s, err = Open(path, clock)
	if err != nil {
		t.Fatal(err)
	}
	if a, replayed, _ := s.Do("token:a", "k1", "f1", call("again", true)); string(a) != "first" || !replayed {
		t.Errorf("after a restart: %q %v", a, replayed)
	}
	s.Close()
	now = now.Add(TTL)
	s, err = Open(path, clock)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if a, replayed, _ := s.Do("token:a", "k1", "f1", call("a day later", true)); string(a) != "a day later" || replayed {
		t.Errorf("a day later: %q %v", a, replayed)
	}
}

// TestConcurrentRetriesApplyOnce: retries racing each other with one key
// run the call once, and all get its answer.
func TestConcurrentRetriesApplyOnce(t *testing.T) {
	var s Store
	var applied atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			a, _, err := s.Do("token:a", "k", "f", func() ([]byte, bool) {
				applied.Add(1)
				time.Sleep(time.Millisecond) // widen the race the lock closes
				return []byte("done"), true
			})
			if string(a) != "done" || err != nil {
				t.Errorf("answer %q %v", a, err)
			}
		})
	}
	wg.Wait()
	if n := applied.Load(); n != 1 {
		t.Errorf("applied %d times, want once", n)
	}
}
