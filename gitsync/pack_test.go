package gitsync

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/gitsync/internal/store"
)

// A commit of many new files writes their blobs, its trees and itself as
// one pack with its index, which git reads and fsck accepts; a commit of
// a few files writes loose objects as before. Blobs big enough to need several
// size bytes in the pack entry header, an empty one and two files of
// equal content are among them.
func TestManyBlobsGoIntoOnePack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openDurableRepo(t, Options{Dir: dir})
	record(t, r, "first", "a.md", "a\n")

	contents := map[string]string{}
	var paths []string
	for i := range store.PackMinBlobs + 8 {
		rel := fmt.Sprintf("notes/n%03d.md", i)
		c := fmt.Sprintf("note %d\n%s", i, strings.Repeat("x", i*997))
		switch i {
		case 3:
			c = ""
		case 4:
			c = contents["notes/n002.md"] // the same blob twice
		}
		contents[rel] = c
		writeFile(t, dir, rel, c)
		paths = append(paths, rel)
	}
	loose := looseObjects(t, dir)
	if _, err := r.Commit(t.Context(), "many", paths); err != nil {
		t.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.pack"))
	idxs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.idx"))
	if len(packs) != 1 || len(idxs) != 1 {
		t.Fatalf("packs %v, indexes %v: want one of each", packs, idxs)
	}
	if temps, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "tmp_*")); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
	// Nothing is loose: the trees and the commit are in the pack too.
	if n := looseObjects(t, dir) - loose; n != 0 {
		t.Errorf("%d new loose objects beside the pack", n)
	}
	assertClean(t, dir)
	verify := git(t, dir, "verify-pack", "-v", packs[0])
	head := git(t, dir, "rev-parse", "HEAD")
	for _, want := range []string{head + " commit ", git(t, dir, "rev-parse", "HEAD^{tree}") + " tree ", git(t, dir, "rev-parse", "HEAD:notes") + " tree "} {
		if !strings.Contains(verify, want) {
			t.Errorf("the pack lacks %q:\n%s", want, verify)
		}
	}
	for rel, c := range contents {
		if got := git(t, dir, "show", "HEAD:"+rel); got != strings.TrimSpace(c) {
			t.Errorf("git show HEAD:%s = %.40q, want %.40q", rel, got, c)
		}
	}
	// The next commit reads what the pack holds (its blobs unchanged) and
	// writes one loose blob.
	record(t, r, "one more", "notes/n000.md", "changed\n")
	if n := looseObjects(t, dir) - loose; n > 14 {
		t.Errorf("%d new loose objects after a one-file commit", n)
	}
	assertClean(t, dir)
	if got := git(t, dir, "show", "HEAD:notes/n001.md"); got != strings.TrimSpace(contents["notes/n001.md"]) {
		t.Errorf("n001 after the next commit = %.40q", got)
	}
}

// A pack that cannot be written fails the commit as a loose object
// would: HEAD stays, nothing is left in the pack folder.
func TestPackWriteFailureLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	record(t, r, "first", "a.md", "a\n")
	head := git(t, dir, "rev-parse", "HEAD")
	var paths []string
	for i := range store.PackMinBlobs {
		// In folders: their trees go into the pack that fails, and must
		// not pass for written when the commit is made again.
		rel := fmt.Sprintf("d%d/n%d.md", i%3, i)
		writeFile(t, dir, rel, rel)
		paths = append(paths, rel)
	}
	r.obj.SetFaults(&store.Faults{Write: fmt.Errorf("no space left on device")})
	_, err := r.Commit(t.Context(), "many", paths)
	r.obj.SetFaults(nil)
	if err == nil || !strings.Contains(err.Error(), "no space") {
		t.Fatalf("err = %v", err)
	}
	if got := git(t, dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved to %s", got)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, ".git", "objects", "pack")); len(entries) != 0 {
		t.Errorf("pack folder holds %d files", len(entries))
	}
	if _, err := r.Commit(t.Context(), "many", paths); err != nil {
		t.Fatal(err)
	}
	assertClean(t, dir)
}

func looseObjects(t testing.TB, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(dir, ".git", "objects"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "pack" {
			return filepath.SkipDir
		}
		if !d.IsDir() && len(d.Name()) == 38 {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A pack a commit wrote is pushed like loose objects: the network side,
// which has its own view of the object folder, sees the new pack (its
// pack list was read at the first push, before the pack was there).
func TestPackedCommitIsPushed(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{SyncInterval: -1})
	// A pull brings a pack in: the network side has read the pack list.
	w.laptopCommit(t, "laptop.md", "from the laptop\n", "laptop")
	if err := w.r.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, w.vault, "laptop.md"); got != "from the laptop\n" {
		t.Fatalf("laptop.md = %q after the pull", got)
	}
	var paths []string
	for i := range store.PackMinBlobs + 1 {
		rel := fmt.Sprintf("notes/n%03d.md", i)
		writeFile(t, w.vault, rel, fmt.Sprintf("note %d\n", i))
		paths = append(paths, rel)
	}
	w.lock.Lock()
	res, err := w.r.Commit(t.Context(), "many", paths)
	w.lock.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.r.Push(t.Context()); err != nil {
		t.Fatalf("push after a packed commit: %v", err)
	}
	if got := git(t, w.remote, "rev-parse", "main"); got != res.Full.String() {
		t.Errorf("remote main = %s, want %s", got, res.Full)
	}
	git(t, w.remote, "fsck", "--full", "--strict")
	if got := git(t, w.remote, "show", "main:notes/n007.md"); got != "note 7" {
		t.Errorf("remote notes/n007.md = %q", got)
	}
}
