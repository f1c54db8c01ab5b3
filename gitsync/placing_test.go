package gitsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/index"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/internal/syncfs"
	"vaultmcp/internal/testutil"
	"vaultmcp/vault/changes"
)

// writeTempBeside writes content to a temporary file beside rel, as the
// vault does before Prepare, and returns its path and stat data.
func writeTempBeside(t *testing.T, dir, rel, content string) (string, os.FileInfo) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(full), ".vaultmcp-"+itoa(os.Getpid())+"-"+filepath.Base(full)+"-1.tmp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(tmp)
	if err != nil {
		t.Fatal(err)
	}
	return tmp, fi
}

// recordPlacing records a change of rel, written to tmp, in the two
// phases as the vault does: Prepare, place (the rename into place), then
// Publish, or Abort when place fails.
func recordPlacing(r *Repo, summary, rel, tmp string, fi os.FileInfo, content string, bar *syncfs.Barrier, place func() error) (string, error) {
	c := changes.Change{
		Summary: summary,
		Batch:   changes.Batch{Paths: []string{rel}, Written: map[string]changes.File{rel: {Data: []byte(content), Info: fi}}},
		Placing: &changes.Placing{Rel: rel, Tmp: tmp, Barrier: bar},
	}
	p, err := r.Prepare(context.Background(), c)
	if err != nil {
		return "", err
	}
	defer p.Abort()
	if err := place(); err != nil {
		return "", err
	}
	return p.Publish()
}

// TestTwoPhase: the commit is made from the bytes held for a file
// still under its temporary name, Prepare returns with the commit's files
// flushed and the branch not moved yet, the file is put into place, and
// when Publish returns the note, HEAD and the worktree agree; with and
// without durability, with the vault's barrier and without one.
func TestTwoPhase(t *testing.T) {
	tests := []struct {
		name    string
		durable bool
		barrier bool
		before  string // the note's content on disk first ("" for none)
		head    string // the note's content in HEAD first ("" for none)
		content string
		commit  bool // a new commit is expected
	}{
		{name: "new note", durable: true, barrier: true, content: "new\n", commit: true},
		{name: "new note without a barrier", durable: true, content: "new\n", commit: true},
		{name: "new note, fsync off", content: "new\n", commit: true},
		{name: "overwrite", durable: true, barrier: true, before: "old\n", head: "old\n", content: "new\n", commit: true},
		{name: "overwrite, fsync off", before: "old\n", head: "old\n", content: "new\n", commit: true},
		{name: "content already committed", durable: true, barrier: true, before: "edited outside\n", head: "same\n", content: "same\n"},
		{name: "content already committed, fsync off", before: "edited outside\n", head: "same\n", content: "same\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := openDurableRepo(t, Options{Dir: dir, NoFsync: !tt.durable})
			const rel = "deep/er/n.md"
			record(t, r, "first", "other.md", "other\n")
			if tt.head != "" {
				record(t, r, "head", rel, tt.head)
			}
			if tt.before != "" {
				writeFile(t, dir, rel, tt.before)
			}
			old, err := r.headHash()
			if err != nil {
				t.Fatal(err)
			}
			var bar *syncfs.Barrier
			if tt.barrier {
				bar = syncfs.Open(dir)
				defer bar.Close()
			}
			tmp, fi := writeTempBeside(t, dir, rel, tt.content)
			full := filepath.Join(dir, filepath.FromSlash(rel))
			lock := filepath.Join(r.gitDir, filepath.FromSlash(r.branch.String())+".lock")
			placed := 0
			place := func() error {
				placed++
				if h, err := r.refHash(r.branch); err != nil || h != old {
					t.Errorf("the branch moved before the note was put into place (%s, %v)", h, err)
				}
				if _, err := os.Stat(lock); tt.commit && err != nil {
					t.Errorf("no ref lock when the note is put into place: %v", err)
				}
				return os.Rename(tmp, full)
			}
			hash, err := recordPlacing(r, "write "+rel, rel, tmp, fi, tt.content, bar, place)
			if err != nil {
				t.Fatalf("recordPlacing: %v", err)
			}
			if placed != 1 {
				t.Fatalf("place called %d times", placed)
			}
			if got := readFile(t, dir, rel); got != tt.content {
				t.Errorf("note = %q, want %q", got, tt.content)
			}
			if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("temporary file left: %v", err)
			}
			head, err := r.headHash()
			if err != nil {
				t.Fatal(err)
			}
			if (head != old) != tt.commit {
				t.Errorf("HEAD moved: %v, want %v", head != old, tt.commit)
			}
			if !strings.HasPrefix(head.String(), hash) {
				t.Errorf("returned %s, HEAD is %s", hash, head)
			}
			// The index entry holds the note's stat data in place (a
			// rename changes its ctime), so nothing hashes it again.
			r.mu.Lock()
			idx, err := r.index.Load()
			var e *index.Entry
			if err == nil {
				e = store.EntryFor(idx, rel)
			}
			r.mu.Unlock()
			if nfi, serr := os.Lstat(full); e == nil || serr != nil || !store.StatUnchanged(e, nfi) {
				t.Errorf("the index entry of %s does not hold its stat data in place (%v, %v)", rel, err, serr)
			}
			if got := git(t, dir, "show", "HEAD:"+rel); got != strings.TrimSuffix(tt.content, "\n") && got != tt.content {
				t.Errorf("HEAD holds %q, want %q", got, tt.content)
			}
			assertClean(t, dir)
		})
	}
}

// TestTwoPhaseFails: a Prepare that fails never lets the caller
// place the note, and leaves the temporary file to its caller and the
// branch where it was; a rename into place that fails (the caller then
// aborts), and a Publish called without the rename, leave the branch
// where it was too. Either way nothing stays locked: the next commit is
// made.
func TestTwoPhaseFails(t *testing.T) {
	tests := []struct {
		name      string
		foreign   bool  // another program holds the ref lock
		placeErr  error // what the rename into place returns
		skip      bool  // place does not rename, and says nothing
		wantPlace int
	}{
		{name: "ref locked by another program", foreign: true},
		{name: "rename refused", placeErr: errors.New("no room"), wantPlace: 1},
		{name: "published without the rename", skip: true, wantPlace: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := openDurableRepo(t, Options{Dir: dir})
			const rel = "n.md"
			record(t, r, "first", rel, "old\n")
			old, err := r.headHash()
			if err != nil {
				t.Fatal(err)
			}
			lock := filepath.Join(r.gitDir, filepath.FromSlash(r.branch.String())+".lock")
			if tt.foreign {
				if err := os.WriteFile(lock, []byte("someone else's\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tmp, fi := writeTempBeside(t, dir, rel, "new\n")
			placed := 0
			place := func() error {
				placed++
				return tt.placeErr
			}
			if _, err := recordPlacing(r, "write", rel, tmp, fi, "new\n", nil, place); err == nil {
				t.Fatal("no error")
			}
			if placed != tt.wantPlace {
				t.Errorf("place called %d times, want %d", placed, tt.wantPlace)
			}
			if h, err := r.refHash(r.branch); err != nil || h != old {
				t.Errorf("the branch moved to %s (%v)", h, err)
			}
			if got := readFile(t, dir, rel); got != "old\n" {
				t.Errorf("note = %q", got)
			}
			if _, err := os.Stat(tmp); err != nil {
				t.Errorf("the temporary file is the caller's to remove: %v", err)
			}
			if _, err := os.Stat(lock); tt.foreign != (err == nil) {
				t.Errorf("ref lock there: %v, want %v", err == nil, tt.foreign)
			}
			// The background index write takes the repository lock for
			// a moment; a lock the failed commit kept is never given up.
			testutil.WaitFor(t, "the repository lock", func() bool {
				if !r.mu.TryLock() {
					return false
				}
				r.mu.Unlock()
				return true
			})
			if tt.foreign {
				os.Remove(lock)
			}
			os.Remove(tmp)
			record(t, r, "next", rel, "next\n")
			if h, err := r.refHash(r.branch); err != nil || h == old {
				t.Errorf("the next commit did not move the branch (%v)", err)
			}
		})
	}
}

// TestFlushFailsAfterTheRefMoved injects a failing flush at the last step
// of a commit, after the branch has moved (the folders of the renames):
// the commit stands, the note is in place as committed, the error is a
// *NotFlushedError naming the commit, and the next commit builds on it.
// Through the two phases with a placing file and through Commit alike.
func TestFlushFailsAfterTheRefMoved(t *testing.T) {
	for _, placing := range []bool{true, false} {
		t.Run(fmt.Sprintf("placing=%v", placing), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := openDurableRepo(t, Options{Dir: dir})
			const rel = "n.md"
			record(t, r, "first", rel, "old\n")
			old, err := r.headHash()
			if err != nil {
				t.Fatal(err)
			}
			fault := errors.New("injected: input/output error")
			r.testHooks.Store(&testHooks{flushFault: func([]string) error { return fault }})
			var hash string
			if placing {
				tmp, fi := writeTempBeside(t, dir, rel, "new\n")
				place := func() error { return os.Rename(tmp, filepath.Join(dir, rel)) }
				hash, err = recordPlacing(r, "write", rel, tmp, fi, "new\n", nil, place)
			} else {
				if err := os.WriteFile(filepath.Join(dir, rel), []byte("new\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				var res Result
				res, err = r.Commit(context.Background(), "write", []string{rel})
				hash = res.Hash
			}
			r.testHooks.Store(nil)
			var nf *NotFlushedError
			if !errors.As(err, &nf) || !errors.Is(err, fault) {
				t.Fatalf("err = %v, want a *NotFlushedError wrapping the fault", err)
			}
			head, herr := r.headHash()
			if herr != nil || head == old {
				t.Fatalf("the branch did not move (%v)", herr)
			}
			if hash == "" || hash != short(head) || nf.Committed() != hash || nf.Full != head {
				t.Errorf("hash %q, error's %q (%s), want HEAD's %s", hash, nf.Committed(), nf.Full, short(head))
			}
			if got := readFile(t, dir, rel); got != "new\n" {
				t.Errorf("note = %q, want the committed content", got)
			}
			if got := git(t, dir, "show", "HEAD:"+rel); strings.TrimSpace(got) != "new" {
				t.Errorf("HEAD holds %q", got)
			}
			// The next commit builds on it, and git sees a clean vault.
			record(t, r, "again", rel, "newer\n")
			if got := strings.TrimSpace(git(t, dir, "rev-list", "--count", "HEAD")); got != "3" {
				t.Errorf("%s commits, want 3", got)
			}
			assertClean(t, dir)
		})
	}
}

// TestPendingEndsOnce: a prepared commit ends once. Abort after Publish
// does nothing (the vault defers it), Publish after Abort is refused, and
// an aborted commit leaves HEAD, the ref lock and the repository lock as
// they were, so the next commit is made.
func TestPendingEndsOnce(t *testing.T) {
	tests := []struct {
		name  string
		first string // "publish" or "abort"
	}{
		{name: "published, then aborted", first: "publish"},
		{name: "aborted, then published", first: "abort"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := openDurableRepo(t, Options{Dir: dir})
			record(t, r, "first", "n.md", "old\n")
			old, err := r.headHash()
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, dir, "n.md", "new\n")
			p, err := r.Prepare(t.Context(), changes.Change{Summary: "write", Batch: changes.Batch{Paths: []string{"n.md"}}})
			if err != nil {
				t.Fatal(err)
			}
			switch tt.first {
			case "publish":
				if _, err := p.Publish(); err != nil {
					t.Fatal(err)
				}
				p.Abort()
				if h, _ := r.headHash(); h == old {
					t.Error("Abort after Publish undid the commit")
				}
			case "abort":
				p.Abort()
				if _, err := p.Publish(); err == nil {
					t.Error("Publish after Abort was taken")
				}
				if h, _ := r.headHash(); h != old {
					t.Errorf("the branch moved to %s after Abort", h)
				}
				lock := filepath.Join(r.gitDir, filepath.FromSlash(r.branch.String())+".lock")
				if _, err := os.Stat(lock); err == nil {
					t.Error("the ref lock is still there after Abort")
				}
			}
			record(t, r, "next", "n.md", "next\n")
			assertClean(t, dir)
		})
	}
}
