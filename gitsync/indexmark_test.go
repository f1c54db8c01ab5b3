package gitsync

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vaultmcp/internal/testutil"
)

// wholeIndex returns the index file of a small repository git wrote.
func wholeIndex(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	for i := range 40 {
		writeFile(t, dir, "notes/n"+itoa(i)+".md", "note "+itoa(i)+"\n")
	}
	git(t, dir, "add", "-A")
	data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func zeroed(data []byte, from, to int) []byte {
	out := append([]byte(nil), data...)
	for i := from; i < to; i++ {
		out[i] = 0
	}
	return out
}

// TestTornIndex: what a power loss leaves of an unflushed index (empty,
// cut short, zeros where data was) is torn; a whole index is not. A
// checksum of zeros is torn too, unless the repository has
// index.skipHash on: its indexes have none, and the two cannot be told
// apart.
func TestTornIndex(t *testing.T) {
	whole := wholeIndex(t)
	n := len(whole)
	for _, c := range []struct {
		name     string
		data     []byte
		skipHash bool
		torn     bool
	}{
		{"whole", whole, false, false},
		{"whole, index.skipHash on", whole, true, false},
		{"empty", nil, false, true},
		{"shorter than a header and checksum", whole[:20], false, true},
		{"cut in half", whole[:n/2], false, true},
		{"cut by one byte", whole[:n-1], false, true},
		{"zeros in the middle", zeroed(whole, n/3, n/2), false, true},
		{"all zeros", make([]byte, n), false, true},
		{"all zeros, index.skipHash on", make([]byte, n), true, true},
		{"zeros from the middle on", zeroed(whole, n/2, n), false, true},
		{"zeros from the middle on, index.skipHash on (no checksum to check)", zeroed(whole, n/2, n), true, false},
		{"no checksum, index.skipHash off", zeroed(whole, n-20, n), false, true},
		{"no checksum, index.skipHash on", zeroed(whole, n-20, n), true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := tornIndex(c.data, c.skipHash) != ""; got != c.torn {
				t.Errorf("torn = %v (%q), want %v", got, tornIndex(c.data, c.skipHash), c.torn)
			}
		})
	}
}

// leaveDeadMark leaves the unflushed-index mark of a process that has
// exited, as a server that lost power leaves it.
func leaveDeadMark(t *testing.T, gitDir string) string {
	t.Helper()
	p := filepath.Join(gitDir, "vaultmcp-"+strconv.Itoa(testutil.DeadPID(t))+markSuffix)
	if err := os.WriteFile(p, []byte(markText), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tornVault is a vault of a few commits whose server stopped cleanly,
// then had its index damaged by damage.
func tornVault(t *testing.T, damage func(whole []byte) []byte) (dir, head string) {
	t.Helper()
	dir = t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	record(t, r, "write a.md", "a.md", "a\n")
	record(t, r, "write b.md", "notes/deep/b.md", "b\n")
	record(t, r, "edit a.md", "a.md", "a, edited\n")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, ".git", "index")
	whole, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, damage(whole), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, git(t, dir, "rev-parse", "HEAD")
}

// TestTornIndexIsRebuilt: an index a power loss tore while a vaultmcp
// process had left it unflushed (its mark is there) is rebuilt from HEAD
// at start, logged, and the first sync stages the worktree against it
// without a commit; the dead process's mark is removed.
func TestTornIndexIsRebuilt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"empty", func([]byte) []byte { return nil }},
		{"cut in half", func(b []byte) []byte { return b[:len(b)/2] }},
		{"zeros in the middle", func(b []byte) []byte { return zeroed(b, 40, len(b)/2) }},
		{"all zeros", func(b []byte) []byte { return make([]byte, len(b)) }},
		{"zeros from the middle on, the checksum too", func(b []byte) []byte { return zeroed(b, len(b)/2, len(b)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, head := tornVault(t, c.damage)
			gitDir := filepath.Join(dir, ".git")
			mark := leaveDeadMark(t, gitDir)
			var logs logBuffer
			r := openDurableRepo(t, Options{Dir: dir, Logger: logs.logger()})
			if !strings.Contains(logs.String(), "rebuilt it from HEAD") {
				t.Errorf("the rebuild is not logged:\n%s", logs.String())
			}
			if _, err := os.Stat(mark); err == nil {
				t.Error("the dead process's mark is still there")
			}
			if err := r.Sync(context.Background()); err != nil {
				t.Fatal(err)
			}
			assertClean(t, dir)
			if got := git(t, dir, "rev-parse", "HEAD"); got != head {
				t.Errorf("the repair made a commit: %s", git(t, dir, "log", "--stat", "-1"))
			}
			if res := record(t, r, "write c.md", "notes/c.md", "c\n"); !res.Created {
				t.Error("no commit after the repair")
			}
			assertClean(t, dir)
		})
	}
}

// TestDamagedIndexStops: an index is rebuilt only when it is torn and a
// mark shows that a vaultmcp process left it unflushed. A torn index
// nobody marked, one go-git cannot read though whole (a split index, or
// no checksum where index.skipHash is on), and a torn one in a sparse checkout (whose skip-worktree bits HEAD
// cannot restore) stop Open with an error that says how to fix it, and
// are left as they are.
func TestDamagedIndexStops(t *testing.T) {
	t.Parallel()
	half := func(b []byte) []byte { return b[:len(b)/2] }
	for _, c := range []struct {
		name  string
		setup func(t *testing.T) string
		want  string
	}{
		{"torn, no mark", func(t *testing.T) string {
			dir, _ := tornVault(t, half)
			return dir
		}, "rm .git/index && git -c index.skipHash=false reset"},
		{"no checksum, index.skipHash on, marked", func(t *testing.T) string {
			dir, _ := tornVault(t, func(b []byte) []byte { return zeroed(b, len(b)-20, len(b)) })
			git(t, dir, "config", "index.skipHash", "true")
			leaveDeadMark(t, filepath.Join(dir, ".git"))
			return dir
		}, "git config index.skipHash false && git update-index --force-write-index"},
		{"split index, marked", func(t *testing.T) string {
			dir, _ := tornVault(t, func(b []byte) []byte { return b })
			git(t, dir, "update-index", "--split-index")
			leaveDeadMark(t, filepath.Join(dir, ".git"))
			return dir
		}, "split index"},
		{"torn sparse checkout, marked", func(t *testing.T) string {
			dir, _ := tornVault(t, half)
			git(t, dir, "config", "core.sparseCheckout", "true")
			leaveDeadMark(t, filepath.Join(dir, ".git"))
			return dir
		}, "sparse-checkout reapply"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := c.setup(t)
			p := filepath.Join(dir, ".git", "index")
			before, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Open(context.Background(), Options{Dir: dir, NoFsync: true, Logger: testLogger(t)})
			if err == nil {
				r.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
			if after, _ := os.ReadFile(p); string(after) != string(before) {
				t.Error("the index was changed")
			}
		})
	}
}

// TestIndexMarkLifecycle: a process marks the index before its first
// unflushed index reaches the disk, holds the mark while it runs (a start
// beside it keeps it), and a clean Close flushes the index and removes
// the mark. A dead process's mark is removed at the next start once the
// index reads whole.
func TestIndexMarkLifecycle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gitDir := filepath.Join(dir, ".git")
	r := openDurableRepo(t, Options{Dir: dir})
	marks := func() []string {
		m, _ := filepath.Glob(filepath.Join(gitDir, "*"+markSuffix))
		return m
	}
	if m := marks(); len(m) != 0 {
		t.Fatalf("marks before any commit: %q", m)
	}
	record(t, r, "write a.md", "a.md", "a\n")
	own := filepath.Join(gitDir, "vaultmcp-"+strconv.Itoa(os.Getpid())+markSuffix)
	if m := marks(); len(m) != 1 || m[0] != own {
		t.Fatalf("marks after a commit: %q, want %q", m, own)
	}
	// A second start beside the running one leaves the live mark alone.
	dead := leaveDeadMark(t, gitDir)
	r2 := openRepo(t, Options{Dir: dir})
	if _, err := os.Stat(own); err != nil {
		t.Error("a live process's mark was removed")
	}
	if _, err := os.Stat(dead); err == nil {
		t.Error("a dead process's mark was kept")
	}
	r2.Close()
	record(t, r, "write b.md", "b.md", "b\n")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if m := marks(); len(m) != 0 {
		t.Errorf("marks after a clean close: %q", m)
	}
	assertClean(t, dir)
}

func TestGitTrue(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{
		"": true, "true": true, "TRUE": true, "yes": true, "on": true, "1": true, "2": true, "0x1": true,
		"false": false, "no": false, "off": false, "0": false, "maybe": false,
	} {
		if got := gitTrue(v); got != want {
			t.Errorf("gitTrue(%q) = %v, want %v", v, got, want)
		}
	}
}
