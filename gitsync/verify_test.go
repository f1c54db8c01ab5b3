package gitsync

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// rawEntry is one entry of a tree written byte by byte, so that tests can
// build the trees a hostile remote would send (git mktree refuses some).
type rawEntry struct {
	mode string
	name string
	hash string // hex
}

// writeObject stores data as an object of type typ in repo without any
// check (git hash-object --literally) and returns its hash.
func writeObject(t testing.TB, repo, typ string, data []byte) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-t", typ, "--literally", "-w", "--stdin")
	cmd.Dir = repo
	cmd.Env = gitEnv(t.TempDir())
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git hash-object: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// writeRawTree writes a tree with exactly these entries, in git's order.
func writeRawTree(t testing.TB, repo string, es []rawEntry) string {
	t.Helper()
	sort.SliceStable(es, func(i, j int) bool {
		ki, kj := es[i].name, es[j].name
		if es[i].mode == "40000" {
			ki += "/"
		}
		if es[j].mode == "40000" {
			kj += "/"
		}
		return ki < kj
	})
	var b bytes.Buffer
	for _, e := range es {
		h, err := hex.DecodeString(e.hash)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s\x00", e.mode, e.name)
		b.Write(h)
	}
	return writeObject(t, repo, "tree", b.Bytes())
}

// pushHostile makes, in the bare remote, a commit on main whose tree is
// the current one plus the entry at path (each component one tree entry,
// so a component may hold '/' or be "..") holding content, and returns
// the commit.
func pushHostile(t testing.TB, remote string, path []string, mode, content string) string {
	t.Helper()
	head := git(t, remote, "rev-parse", "main")
	blob := writeObject(t, remote, "blob", []byte(content))
	// Build from the leaf up.
	hash, entryMode := blob, mode
	for i := len(path) - 1; i >= 1; i-- {
		hash = writeRawTree(t, remote, []rawEntry{{entryMode, path[i], hash}})
		entryMode = "40000"
	}
	var root []rawEntry
	for _, line := range strings.Split(git(t, remote, "ls-tree", "main"), "\n") {
		if line == "" {
			continue
		}
		meta, name, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		mode := strings.TrimPrefix(f[0], "0")
		root = append(root, rawEntry{mode, name, f[2]})
	}
	root = append(root, rawEntry{entryMode, path[0], hash})
	tree := writeRawTree(t, remote, root)
	commit := git(t, remote, "commit-tree", tree, "-p", head, "-m", "hostile")
	git(t, remote, "update-ref", "refs/heads/main", commit)
	return commit
}

// snapshotDir lists every file under dir (except inside dir/.git) and the
// dir's siblings, with contents, to prove a refused pull wrote nothing.
func snapshotDir(t testing.TB, base string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(base, p)
		if strings.HasSuffix(rel, "remote.git") || strings.Contains(rel, "remote.git"+string(filepath.Separator)) {
			return fs.SkipDir
		}
		if d.IsDir() && d.Name() == ".git" && !strings.Contains(rel, "hooks") {
			// .git itself: its hooks and config are what an attack targets.
			for _, sub := range []string{"hooks", "config", "info"} {
				filepath.WalkDir(filepath.Join(p, sub), func(q string, e fs.DirEntry, err error) error {
					if err == nil && !e.IsDir() {
						data, _ := os.ReadFile(q)
						r, _ := filepath.Rel(base, q)
						out[r] = string(data)
					}
					return nil
				})
			}
			return fs.SkipDir
		}
		if !d.IsDir() {
			data, _ := os.ReadFile(p)
			out[rel] = string(data)
		}
		return nil
	})
	return out
}

// TestHostileRemoteTreesAreRefused: a remote commit whose tree would write
// into .git (in every spelling git itself refuses, and more) or outside
// the vault is refused before anything is checked out, with a clear error
// in the status; the branch, the tracking branch and every file stay as
// they were, and the external-changes commit has nothing to pick up.
func TestHostileRemoteTreesAreRefused(t *testing.T) {
	t.Parallel()
	hook := "#!/bin/sh\necho pwned > /tmp/vaultmcp-pwned\n"
	cases := []struct {
		name string
		path []string
		mode string
	}{
		{"dot git hook", []string{".git", "hooks", "post-commit"}, "100755"},
		{"upper case", []string{".GIT", "config"}, "100644"},
		{"trailing dot", []string{".git.", "hooks", "post-commit"}, "100755"},
		{"trailing space", []string{".git ", "config"}, "100644"},
		{"ntfs stream", []string{".git::$INDEX_ALLOCATION", "config"}, "100644"},
		{"short name", []string{"GIT~1", "config"}, "100644"},
		{"zero width non-joiner", []string{".g\u200cit", "hooks", "post-commit"}, "100755"},
		{"byte order mark", []string{"\ufeff.git", "config"}, "100644"},
		{"full width", []string{".\uff47\uff49\uff54", "config"}, "100644"},
		{"backslash", []string{`notes\..\.git`, "config"}, "100644"},
		{"dot dot", []string{"..", "..", "escaped.md"}, "100644"},
		{"dot", []string{".", "x.md"}, "100644"},
		{"slash in name", []string{"a/../../escaped.md"}, "100644"},
		{"symlinked gitignore", []string{".gitignore"}, "120000"},
		// An empty name never gets here: git's upload-pack refuses to send
		// such a tree at all (TestCheckName covers it).
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, Options{})
			w.write(t, "write keep.md", "keep.md", "keep\n")
			if err := w.r.Push(context.Background()); err != nil {
				t.Fatal(err)
			}
			head := git(t, w.vault, "rev-parse", "HEAD")
			tracking := git(t, w.vault, "rev-parse", "refs/remotes/origin/main")
			before := snapshotDir(t, filepath.Dir(w.vault))
			commit := pushHostile(t, w.remote, tc.path, tc.mode, hook)

			err := w.r.Sync(context.Background())
			var unsafe *UnsafeTreeError
			if !errors.As(err, &unsafe) || !errors.Is(err, ErrUnsafePath) {
				t.Fatalf("Sync = %v, want an UnsafeTreeError", err)
			}
			if !strings.Contains(err.Error(), commit[:7]) || !strings.Contains(err.Error(), "nothing of it was checked out") {
				t.Errorf("error does not name the commit and what happened: %v", err)
			}
			if st := w.r.Status(); !strings.Contains(st.LastPullError, "refused") {
				t.Errorf("status does not show the refusal: %+v", st)
			}
			after := snapshotDir(t, filepath.Dir(w.vault))
			for k, v := range after {
				if before[k] != v {
					t.Errorf("refused pull wrote %s", k)
				}
			}
			if _, err := os.Stat("/tmp/vaultmcp-pwned"); err == nil {
				t.Error("a hook ran")
			}
			if got := git(t, w.vault, "rev-parse", "HEAD"); got != head {
				t.Errorf("HEAD moved to %s", got)
			}
			if got := git(t, w.vault, "rev-parse", "refs/remotes/origin/main"); got != tracking {
				t.Errorf("the tracking branch moved to the refused commit %s", got)
			}
			// Our writes go on, locally and to the remote's refusal.
			w.write(t, "write after.md", "after.md", "after\n")
			if err := w.r.Sync(context.Background()); !errors.As(err, &unsafe) {
				t.Errorf("second Sync = %v, want the refusal again", err)
			}
			if got := git(t, w.vault, "log", "-1", "--format=%s"); got != "MCP: write after.md" {
				t.Errorf("head commit %q", got)
			}
			if st := git(t, w.vault, "status", "--porcelain"); st != "" {
				t.Errorf("git status:\n%s", st)
			}
		})
	}
}

// TestCloneRefusesHostileTree: a clone into an empty folder goes through
// the same check: the vault stays empty and the status says why.
func TestCloneRefusesHostileTree(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	remote := filepath.Join(base, "remote.git")
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	laptop := filepath.Join(base, "laptop")
	git(t, base, "clone", "-q", remote, laptop)
	writeFile(t, laptop, "a.md", "a\n")
	git(t, laptop, "add", "-A")
	git(t, laptop, "commit", "-q", "-m", "laptop")
	git(t, laptop, "push", "-q", "origin", "main")
	pushHostile(t, remote, []string{".git", "hooks", "post-checkout"}, "100755", "#!/bin/sh\nexit 0\n")

	vault := filepath.Join(base, "vault")
	r := openRepo(t, Options{Dir: vault, RemoteURL: remote})
	if st := r.Status(); !strings.Contains(st.LastPullError, "refused") {
		t.Errorf("status = %+v", st)
	}
	if _, err := os.Stat(filepath.Join(vault, ".git", "hooks", "post-checkout")); err == nil {
		t.Error("the hook was written")
	}
	if _, err := os.Stat(filepath.Join(vault, "a.md")); err == nil {
		t.Error("files of the refused commit were checked out")
	}
}

// TestOwnCommitsRefuseUnsafePaths: whichever code path commits (a write,
// the external-changes scan), no unsafe name enters a commit.
func TestOwnCommitsRefuseUnsafePaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	record(t, r, "write a.md", "a.md", "a\n")
	for _, p := range []string{".GIT/config", "x/.git ./hooks/h", "GIT~1/config", ".g\u200cit/config"} {
		writeFile(t, dir, p, "[core]\n")
		if _, err := r.Commit(context.Background(), "write "+p, []string{p}); err == nil {
			t.Errorf("Commit(%q) succeeded", p)
		}
	}
	if err := os.Symlink("a.md", filepath.Join(dir, ".gitattributes")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(context.Background(), "link", []string{".gitattributes"}); err == nil {
		t.Error("a symlinked .gitattributes was committed")
	}
	if err := r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	files := git(t, dir, "ls-tree", "-r", "--name-only", "HEAD")
	if files != "a.md" {
		t.Errorf("tree holds %q, want only a.md", files)
	}
}
