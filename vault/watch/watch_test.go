package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"vaultmcp/vault"
)

// collector gathers reported paths.
type collector struct {
	mu    sync.Mutex
	paths []string
	ch    chan struct{}
}

func newCollector() *collector { return &collector{ch: make(chan struct{}, 100)} }

func (c *collector) report(paths []string) {
	c.mu.Lock()
	c.paths = append(c.paths, paths...)
	c.mu.Unlock()
	c.ch <- struct{}{}
}

// waitFor waits until want has been reported. The generous deadline only
// guards against a hang; nothing here measures speed.
func (c *collector) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		c.mu.Lock()
		ok := slices.Contains(c.paths, want)
		got := slices.Clone(c.paths)
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-c.ch:
		case <-deadline:
			t.Fatalf("never reported %q; got %q", want, got)
		}
	}
}

func (c *collector) has(p string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Contains(c.paths, p)
}

func TestWatcher(t *testing.T) {
	for _, polling := range []bool{false, true} {
		name := "fsnotify"
		if polling {
			name = "polling"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "notes"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755); err != nil {
				t.Fatal(err)
			}
			v, err := vault.Open(dir, vault.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c := newCollector()
			w := New(v, c.report, Options{ForcePolling: polling, PollInterval: 50 * time.Millisecond, Debounce: 10 * time.Millisecond})
			if err := w.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer w.Close()

			write := func(rel, content string) {
				t.Helper()
				p := filepath.Join(dir, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(".obsidian/workspace.json", "{}")
			write("notes/a.md", "hello")
			c.waitFor(t, "notes/a.md")
			// A new folder's files are reported whether they were put there
			// before its watch was added (found by walking it) or after
			// (an event), and so are files written there later.
			write("new/deep/b.md", "in a new folder")
			c.waitFor(t, "new/deep/b.md")
			write("new/deep/c.md", "later")
			c.waitFor(t, "new/deep/c.md")
			// Editors save by writing a temp file and renaming it over the
			// note: the note itself is reported.
			write("notes/.a.md.swp", "draft")
			if err := os.Rename(filepath.Join(dir, "notes", ".a.md.swp"), filepath.Join(dir, "notes", "saved.md")); err != nil {
				t.Fatal(err)
			}
			c.waitFor(t, "notes/saved.md")
			if err := os.Remove(filepath.Join(dir, "notes", "a.md")); err != nil {
				t.Fatal(err)
			}
			c.waitFor(t, "notes/a.md")
			if c.has(".obsidian/workspace.json") {
				t.Error("reported a change inside .obsidian")
			}
		})
	}
}

func TestBatcherCoalesces(t *testing.T) {
	b := newBatcher(time.Hour, time.Hour)
	for _, p := range []string{"a.md", "b.md", "a.md"} {
		b.add(p)
	}
	got := b.flush()
	slices.Sort(got)
	if !slices.Equal(got, []string{"a.md", "b.md"}) {
		t.Errorf("flush = %q, want [a.md b.md]", got)
	}
	if b.flush() != nil {
		t.Error("second flush not empty")
	}
}

func TestDiff(t *testing.T) {
	t0 := time.Unix(100, 0)
	prev := map[string]stamp{"same": {1, t0}, "changed": {1, t0}, "gone": {1, t0}}
	cur := map[string]stamp{"same": {1, t0}, "changed": {2, t0}, "new": {1, t0}}
	got := diff(prev, cur)
	slices.Sort(got)
	if want := []string{"changed", "gone", "new"}; !slices.Equal(got, want) {
		t.Errorf("diff = %q, want %q", got, want)
	}
}
