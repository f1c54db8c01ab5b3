package watch

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"vaultmcp/vault"
)

// safeBuffer is a log sink for a watcher's goroutine.
type safeBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *safeBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *safeBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A callback that panics is logged and the watcher goes on reporting.
func TestCallbackPanicSurvived(t *testing.T) {
	for _, polling := range []bool{false, true} {
		t.Run(map[bool]string{false: "fsnotify", true: "polling"}[polling], func(t *testing.T) {
			dir := t.TempDir()
			v, err := vault.Open(dir, vault.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c := newCollector()
			var logs safeBuffer
			// Only the first report of boom.md panics: writing it makes a
			// create and a write event, and on a loaded machine the second
			// can come after the first batch, in after.md's batch.
			var panicked atomic.Bool
			report := func(paths []string) {
				if slices.Contains(paths, "boom.md") && panicked.CompareAndSwap(false, true) {
					panic("boom")
				}
				c.report(paths)
			}
			w := New(v, report, Options{ForcePolling: polling, PollInterval: 50 * time.Millisecond, Debounce: 10 * time.Millisecond,
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err := w.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := os.WriteFile(filepath.Join(dir, "boom.md"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for !strings.Contains(logs.String(), "panicked") {
				if time.Now().After(deadline) {
					t.Fatalf("panic not logged:\n%s", logs.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := os.WriteFile(filepath.Join(dir, "after.md"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			c.waitFor(t, "after.md")
		})
	}
}

// count returns how many times p was reported.
func (c *collector) count(p string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, q := range c.paths {
		if q == p {
			n++
		}
	}
	return n
}

// waitForCount waits until p has been reported n times.
func (c *collector) waitForCount(t *testing.T, p string, n int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for c.count(p) < n {
		select {
		case <-c.ch:
		case <-deadline:
			t.Fatalf("%q reported %d times, want %d", p, c.count(p), n)
		}
	}
}

// The vault folder deleted, then created again: the watcher reports the
// whole vault gone (""), waits, reports it whole again when it is back,
// and watches the new folder.
func TestRootDeletedAndBack(t *testing.T) {
	for _, how := range []string{"deleted", "moved away"} {
		t.Run(how, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "vault")
			if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			v, err := vault.Open(dir, vault.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c := newCollector()
			w := New(v, c.report, Options{PollInterval: 20 * time.Millisecond, Debounce: 10 * time.Millisecond})
			if err := w.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if how == "deleted" {
				err = os.RemoveAll(dir)
			} else {
				err = os.Rename(dir, filepath.Join(base, "aside"))
			}
			if err != nil {
				t.Fatal(err)
			}
			c.waitForCount(t, "", 1)
			if err := os.MkdirAll(filepath.Join(dir, "new"), 0o755); err != nil {
				t.Fatal(err)
			}
			c.waitForCount(t, "", 2)
			if err := os.WriteFile(filepath.Join(dir, "new", "n.md"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			c.waitFor(t, "new/n.md")
		})
	}
}

// While a batch waits to be delivered (a delivery holds or waits for the
// vault lock, which a large change of the server's own keeps for a while),
// the events that follow are still read, so the kernel's queue does not
// fill up, and they are delivered after it.
func TestReadingGoesOnDuringDelivery(t *testing.T) {
	dir := t.TempDir()
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector()
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	report := func(paths []string) {
		once.Do(func() {
			close(entered)
			<-release
		})
		c.report(paths)
	}
	read := make(chan string, 100)
	w := New(v, report, Options{Debounce: 10 * time.Millisecond})
	w.read = func(rel string) {
		select {
		case read <- rel:
		default:
		}
	}
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	<-entered // the first delivery is under way and will not end yet
	if err := os.WriteFile(filepath.Join(dir, "b.md"), []byte("b"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(60 * time.Second) // guards against a hang only
	for got := ""; got != "b.md"; {
		select {
		case got = <-read:
		case <-deadline:
			close(release)
			t.Fatal("no event read while a delivery was under way")
		}
	}
	close(release)
	c.waitFor(t, "a.md")
	c.waitFor(t, "b.md")
}
