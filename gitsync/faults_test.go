package gitsync

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"vaultmcp/gitsync/internal/store"
)

// TestMergeTooBigKeepsBothVersions: texts past the line merge's limits
// are not handed to go-diff (which breaks past about 1.1 million distinct
// lines): mergeText declines with a reason, and merge keeps both versions
// (the remote's at the path, ours in a conflict copy).
func TestMergeTooBigKeepsBothVersions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	var b strings.Builder
	for i := 0; i <= maxMergeLines/3; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	big := b.String()
	blob := func(s string) store.FileEntry {
		h, err := r.obj.WriteBlob([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return store.FileEntry{Hash: h, Mode: 0o100644}
	}
	base, ours, theirs := blob(big), blob(big+"ours\n"), blob("theirs\n"+big)
	rp := &replay{r: r, tree: store.EmptyTree, copies: map[string]string{}}
	if _, ok, why := rp.mergeText(base, ours, theirs); ok || !strings.Contains(why, "too many lines") {
		t.Errorf("mergeText on %d lines: ok=%v why=%q", 3*maxMergeLines/3, ok, why)
	}
	changes := map[string]store.TreeChange{}
	if err := rp.merge("big.md", base, ours, theirs, changes); err != nil {
		t.Fatal(err)
	}
	if len(rp.conflicts) != 1 || changes[rp.conflicts[0][1]].Hash != ours.Hash {
		t.Errorf("conflicts %q, changes %v: want ours kept in a conflict copy", rp.conflicts, changes)
	}
	// Small texts still merge.
	small := blob("a\nb\nc\n")
	if merged, ok, _ := rp.mergeText(small, blob("A\nb\nc\n"), blob("a\nb\nC\n")); !ok || merged != "A\nb\nC\n" {
		t.Errorf("small merge = %q, %v", merged, ok)
	}
}

// TestSyncRecoversFromAPanic: a panic inside a sync (here in the Changed
// callback) is logged and returned as an error; the vault lock and the
// repository lock are released, and the next sync works.
func TestSyncRecoversFromAPanic(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	panics := 1
	inner := w.r.opts.Changed
	w.r.opts.Changed = func(paths []string) {
		if panics > 0 {
			panics--
			panic("boom in the index")
		}
		inner(paths)
	}
	w.laptopCommit(t, "l.md", "l\n", "laptop")
	err := w.r.Sync(context.Background())
	if err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Fatalf("Sync = %v, want the recovered panic", err)
	}
	if !w.lock.TryLock() {
		t.Fatal("the vault lock is still held after the panic")
	}
	w.lock.Unlock()
	w.write(t, "write after.md", "after.md", "after\n")
	w.laptopCommit(t, "l2.md", "l2\n", "laptop again")
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := w.r.Status(); st.LastPullError != "" {
		t.Errorf("LastPullError = %q after a good sync", st.LastPullError)
	}
}

// silentServer accepts connections and never answers.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(done)
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/vault.git"
}

// TestFetchAndPushTimeOut: a remote that accepts the connection and then
// says nothing does not hang the sync: fetch and push give up after
// NetworkTimeout with an error saying so.
func TestFetchAndPushTimeOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	r := openRepo(t, Options{Dir: dir, RemoteURL: silentServer(t), NetworkTimeout: 300 * time.Millisecond})
	record(t, r, "write a.md", "a.md", "a\n")
	if err := r.Sync(context.Background()); err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Errorf("Sync = %v, want a timeout", err)
	}
	if err := r.Push(context.Background()); err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Errorf("Push = %v, want a timeout", err)
	}
}

// TestGCPacksLooseObjects: gc packs the loose objects (git gc --auto, and
// the go-git fallback), the repository stays sound and usable. git's
// gc.auto is set to 1 so that a few hundred objects are enough, with three
// of them made to land in objects/17, the folder both estimates count.
func TestGCPacksLooseObjects(t *testing.T) {
	t.Parallel()
	for _, withGit := range []bool{true, false} {
		t.Run(fmt.Sprintf("git=%v", withGit), func(t *testing.T) {
			dir := t.TempDir()
			r := openRepo(t, Options{Dir: dir, NoFsync: true})
			git(t, dir, "config", "gc.auto", "1")
			var paths []string
			for i := 0; i < 300; i++ {
				paths = append(paths, fmt.Sprintf("n/%04d.md", i))
				writeFile(t, dir, paths[i], fmt.Sprintf("note %d\n", i))
			}
			for i, found := 0, 0; found < 3; i++ {
				content := fmt.Sprintf("lands in 17: %d\n", i)
				if plumbing.ComputeHash(plumbing.BlobObject, []byte(content)).String()[:2] == "17" {
					paths = append(paths, fmt.Sprintf("n/seventeen-%d.md", found))
					writeFile(t, dir, paths[len(paths)-1], content)
					found++
				}
			}
			// Commits of fewer files than make a pack, so the objects
			// are loose.
			for len(paths) > 0 {
				chunk := paths[:min(len(paths), store.PackMinBlobs-1)]
				paths = paths[len(chunk):]
				if _, err := r.Commit(context.Background(), "write n", chunk); err != nil {
					t.Fatal(err)
				}
			}
			loose := func() int {
				n := 0
				filepath.WalkDir(filepath.Join(dir, ".git", "objects"), func(p string, d os.DirEntry, err error) error {
					if err == nil && !d.IsDir() && len(d.Name()) == 38 {
						n++
					}
					return nil
				})
				return n
			}
			before := loose()
			reflog := filepath.Join(dir, ".git", "logs", "refs", "heads", "main")
			logBefore, err := os.Stat(reflog)
			if err != nil {
				t.Fatal(err)
			}
			if withGit {
				err = r.GC(context.Background())
			} else {
				err = r.packAllLoose()
				r.reindex()
			}
			if err != nil {
				t.Fatal(err)
			}
			if after := loose(); after > before/10 {
				t.Errorf("%d loose objects before gc, %d after", before, after)
			}
			// gc took no lock a commit needs: the branch was not packed
			// into packed-refs and its reflog not rewritten.
			if _, err := os.Stat(filepath.Join(dir, ".git", "refs", "heads", "main")); err != nil {
				t.Errorf("the branch's ref after gc: %v", err)
			}
			if logAfter, err := os.Stat(reflog); err != nil || !os.SameFile(logBefore, logAfter) {
				t.Errorf("gc rewrote the branch's reflog (%v)", err)
			}
			record(t, r, "edit", "n/0001.md", "edited\n")
			if _, err := r.Recent(context.Background(), 2, ""); err != nil {
				t.Errorf("history after gc: %v", err)
			}
			assertClean(t, dir)
		})
	}
}

// TestDiskFullLosesNothing (injected): object writes fail as on a full
// disk. The commit fails cleanly (no lock file left, HEAD and the index as
// they were), the sync reports it, and once space is back everything goes
// on.
func TestDiskFullLosesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	head := git(t, w.vault, "rev-parse", "HEAD")
	w.r.obj.SetFaults(&store.Faults{Write: &os.PathError{Op: "write", Path: "object", Err: syscall.ENOSPC}})
	writeFile(t, w.vault, "a.md", "a\n")
	w.lock.Lock()
	_, err := w.r.Commit(context.Background(), "write a.md", []string{"a.md"})
	w.lock.Unlock()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Commit = %v, want ENOSPC", err)
	}
	if got := git(t, w.vault, "rev-parse", "HEAD"); got != head {
		t.Error("HEAD moved")
	}
	if err := w.r.Sync(context.Background()); !errors.Is(err, syscall.ENOSPC) && (err == nil || !strings.Contains(err.Error(), "no space")) {
		t.Errorf("Sync = %v, want the disk-full error", err)
	}
	assertNoLocks(t, w.vault)
	w.r.obj.SetFaults(nil)
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.write(t, "write b.md", "b.md", "b\n")
	assertClean(t, w.vault)
}

// TestDiskFullOnTmpfs: the same on a real full file system (a 1 MB tmpfs;
// skipped where one cannot be mounted).
func TestDiskFullOnTmpfs(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root on Linux")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	dir := filepath.Join(mnt, "vault")
	r := openDurableRepo(t, Options{Dir: dir})
	record(t, r, "write a.md", "a.md", "a\n")
	head := git(t, dir, "rev-parse", "HEAD")
	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	// Fill the last blocks with small files too.
	for i := 0; ; i++ {
		if err := os.WriteFile(filepath.Join(mnt, fmt.Sprintf("f%d", i)), chunk[:512], 0o644); err != nil {
			break
		}
	}
	content := strings.Repeat("a long enough note\n", 2000)
	failed := false
	for i := 0; i < 5 && !failed; i++ {
		if err := os.WriteFile(filepath.Join(dir, "b.md"), []byte(content), 0o644); err != nil {
			failed = true // the note itself did not fit: nothing to commit
			break
		}
		if _, err := r.Commit(context.Background(), "write b.md", []string{"b.md"}); err != nil {
			failed = true
			t.Logf("commit on a full disk: %v", err)
		}
	}
	if !failed {
		t.Skip("the disk never filled up")
	}
	if got := git(t, dir, "rev-parse", "HEAD"); got != head {
		if _, err := exec.Command("git", "-C", dir, "cat-file", "-e", got).CombinedOutput(); err != nil {
			t.Errorf("HEAD moved to an object that is not there: %s", got)
		}
	}
	assertNoLocks(t, dir)
	if err := r.Sync(context.Background()); err != nil {
		t.Logf("sync on a full disk: %v", err)
	}
	os.Remove(filler)
	matches, _ := filepath.Glob(filepath.Join(mnt, "f*"))
	for _, m := range matches {
		os.Remove(m)
	}
	if err := r.Sync(context.Background()); err != nil {
		t.Fatalf("sync once space is back: %v", err)
	}
	record(t, r, "write c.md", "c.md", "c\n")
	assertClean(t, dir)
}

// assertNoLocks fails when a lock or owner file was left in .git.
func assertNoLocks(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(filepath.Join(dir, ".git"), func(p string, d os.DirEntry, err error) error {
		if err == nil && (strings.HasSuffix(p, ".lock") || strings.HasSuffix(p, store.OwnerSuffix)) {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

// TestPullOverAReadOnlyNote: a note whose write permission is off (made
// read-only by the user) is still updated by a pull, as git checkout
// does, and the sync stays clean.
func TestPullOverAReadOnlyNote(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	w.write(t, "write ro.md", "ro.md", "v1\n")
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	git(t, w.laptop, "pull", "-q", "origin", "main")
	if err := os.Chmod(filepath.Join(w.vault, "ro.md"), 0o444); err != nil {
		t.Fatal(err)
	}
	w.laptopCommit(t, "ro.md", "v2 from the laptop\n", "laptop edits ro.md")
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatalf("sync over a read-only note: %v", err)
	}
	if got := readFile(t, w.vault, "ro.md"); got != "v2 from the laptop\n" {
		t.Errorf("ro.md = %q", got)
	}
	assertClean(t, w.vault)
}

// TestVaultFolderGoneOrReplaced: the vault folder deleted, or moved away
// and replaced by an empty one, under the running sync: a sync ends in an
// error, nothing is committed or pushed (not a deletion of every note),
// and once the folder is back the sync goes on.
func TestVaultFolderGoneOrReplaced(t *testing.T) {
	t.Parallel()
	for _, replace := range []bool{false, true} {
		w := newWorld(t, Options{})
		w.write(t, "write a.md", "a.md", "a\n")
		if err := w.r.Push(context.Background()); err != nil {
			t.Fatal(err)
		}
		// The commit holds index.lock until the index file is written,
		// 50 ms after it or later on a loaded machine: written now, the
		// lock is not carried away with the folder (and back, stale).
		w.r.FlushIndex()
		remoteHead := git(t, w.remote, "rev-parse", "main")
		away := w.vault + ".away"
		if err := os.Rename(w.vault, away); err != nil {
			t.Fatal(err)
		}
		if replace {
			if err := os.Mkdir(w.vault, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.r.Sync(context.Background()); err == nil {
			t.Errorf("replace=%v: sync without the vault folder succeeded", replace)
		}
		if got := git(t, w.remote, "rev-parse", "main"); got != remoteHead {
			t.Errorf("replace=%v: the remote moved: %s", replace, git(t, w.remote, "log", "--stat", "-1", "main"))
		}
		if replace {
			if entries, _ := os.ReadDir(w.vault); len(entries) != 0 {
				t.Errorf("the sync wrote into the replacing folder: %v", entries)
			}
			os.Remove(w.vault)
		}
		if err := os.Rename(away, w.vault); err != nil {
			t.Fatal(err)
		}
		git(t, w.laptop, "pull", "-q", "origin", "main")
		w.laptopCommit(t, "later.md", "later\n", "laptop note")
		if err := w.r.Sync(context.Background()); err != nil {
			t.Fatalf("replace=%v: sync once the folder is back: %v", replace, err)
		}
		if got := readFile(t, w.vault, "later.md"); got != "later\n" || readFile(t, w.vault, "a.md") != "a\n" {
			t.Errorf("replace=%v: vault after it came back: later.md %q", replace, got)
		}
		assertClean(t, w.vault)
	}
}

// TestPackIndexIsWrittenWhole: a pack index is written under a temporary
// name and renamed into place on Close, so a kill while a repeated fetch
// rewrites the index of a pack already there leaves the old, whole index
// (the crash test once ended with "wrong index v2 file size": go-git
// rewrote it in place).
func TestPackIndexIsWrittenWhole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fsys := store.NewPlainFS(dir)
	if err := os.MkdirAll(filepath.Join(dir, "objects", "pack"), 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join("objects", "pack", "pack-1.idx")
	if err := os.WriteFile(filepath.Join(dir, name), []byte("the whole old index"), 0o444); err != nil {
		t.Fatal(err)
	}
	f, err := fsys.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name() != name {
		t.Errorf("Name() = %q, want %q", f.Name(), name)
	}
	if _, err := f.Write([]byte("half a new")); err != nil {
		t.Fatal(err)
	}
	// Killed here: the old index is untouched.
	if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != "the whole old index" {
		t.Errorf("index while being rewritten = %q", got)
	}
	if _, err := f.Write([]byte(" index")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != "half a new index" {
		t.Errorf("index after Close = %q", got)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "objects", "pack")); len(entries) != 1 {
		t.Errorf("pack folder holds %d files, want the index only", len(entries))
	}
}

// TestObjectFolderRemovedByGC: `git gc` removes the object folders it
// emptied, so a folder a commit has just made can vanish again before the
// commit creates its object in it (the benchmark's write loop failed
// once with "tmp_obj_…: no such file or directory" while gc ran). The
// folder is made again and the commit goes through.
func TestObjectFolderRemovedByGC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	record(t, r, "write a.md", "a.md", "a\n")
	removed, perFolder := 0, map[string]int{}
	r.obj.SetFaults(&store.Faults{BeforeCreate: func(d string) {
		// As gc would: an empty folder goes, up to three times in a row.
		if entries, err := os.ReadDir(d); err == nil && len(entries) == 0 && perFolder[d] < 3 {
			if os.Remove(d) == nil {
				removed++
				perFolder[d]++
			}
		}
	}})
	for i := range 5 {
		record(t, r, "write b.md", "notes/deep/b.md", "b "+itoa(i)+"\n")
	}
	r.obj.SetFaults(nil)
	if removed == 0 {
		t.Fatal("no object folder was removed: the test proves nothing")
	}
	assertClean(t, dir)
}
