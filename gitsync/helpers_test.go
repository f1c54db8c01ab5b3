package gitsync

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/internal/testutil"
)

// gitEnv isolates the git CLI from the machine's configuration.
func gitEnv(home string) []string {
	env := []string{
		"HOME=" + home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Laptop", "GIT_AUTHOR_EMAIL=laptop@example.com",
		"GIT_COMMITTER_NAME=Laptop", "GIT_COMMITTER_EMAIL=laptop@example.com",
		"GIT_TERMINAL_PROMPT=0",
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	return env
}

// git runs the git CLI in dir and returns its trimmed output; it fails the
// test on error.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitErr(dir, args...)
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return out
}

func gitErr(dir string, args ...string) (string, error) {
	waitIndexWritten(dir)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(filepath.Join(os.TempDir(), "gitsync-test-home"))
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// writeFile writes a vault file, creating folders.
func writeFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// openRepo opens a Repo on dir with test defaults and closes it at cleanup.
// Commits are not flushed to disk (NoFsync): on a loaded machine fsync
// dominates the run time, and the flushing itself is covered by the tests
// that use openDurableRepo and by the e2e tests (the binary flushes).
func openRepo(t testing.TB, opts Options) *Repo {
	t.Helper()
	opts.NoFsync = true
	return openDurableRepo(t, opts)
}

// openDurableRepo is openRepo with durability as configured in opts (on
// by default).
func openDurableRepo(t testing.TB, opts Options) *Repo {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	r, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	openRepos.Store(r.Dir(), r)
	t.Cleanup(func() {
		openRepos.CompareAndDelete(r.Dir(), r)
		r.Close()
	})
	return r
}

// record writes content to rel and records it, as the vault does.
func record(t testing.TB, r *Repo, summary, rel, content string) Result {
	t.Helper()
	writeFile(t, r.Dir(), rel, content)
	res, err := r.Commit(context.Background(), summary, []string{rel})
	if err != nil {
		t.Fatalf("Commit %s: %v", rel, err)
	}
	return res
}

// assertClean checks what a person running git on the vault would see: no
// changes in `git status` and no fsck errors.
func assertClean(t testing.TB, dir string) {
	t.Helper()
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status not clean:\n%s", st)
	}
	if out, err := gitErr(dir, "fsck", "--full", "--strict", "--no-dangling"); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
}

// testLogger sends the package's logs to the test log (until the test ends:
// background goroutines may still log while shutting down).
func testLogger(t testing.TB) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

// waitIndexWritten has the Repo the test helpers opened on dir write its
// index now, unless its lock is taken (a git command run from a callback
// under it), and then waits as testutil.WaitIndexWritten does for any
// server's index.
func waitIndexWritten(dir string) {
	if abs, err := filepath.Abs(dir); err == nil {
		if r, ok := openRepos.Load(abs); ok && r.(*Repo).mu.TryLock() {
			r.(*Repo).writeIndex()
			r.(*Repo).mu.Unlock()
		}
	}
	testutil.WaitIndexWritten(dir)
}

// openRepos maps each vault folder to the Repo openDurableRepo last
// opened on it, for waitIndexWritten.
var openRepos sync.Map

// ownLock reports whether the lock file fi in gitDir is the same file as
// one of the owner files there: a vaultmcp process's lock.
func ownLock(gitDir string, fi os.FileInfo) bool {
	owners, _ := filepath.Glob(filepath.Join(gitDir, "vaultmcp-*"+store.OwnerSuffix))
	for _, o := range owners {
		if ofi, err := os.Lstat(o); err == nil && os.SameFile(ofi, fi) {
			return true
		}
	}
	return false
}

// failRefFlush is a testHooks.flushFault that fails, with fault, only the
// flush of the branch ref's folder: the last flush of a commit or pull,
// after the branch has moved.
func failRefFlush(fault error) func(paths []string) error {
	return func(paths []string) error {
		for _, p := range paths {
			if strings.Contains(filepath.ToSlash(p), ".git/refs/heads") {
				return fault
			}
		}
		return nil
	}
}
