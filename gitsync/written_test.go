package gitsync

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/vault/changes"
)

// Prepare commits the bytes its caller holds for a file that is
// still the one written, without reading it: the test hands over bytes
// that differ from the file's (same length) and finds them committed. A
// file changed since it was written (another size) is read, so the
// change on disk is what is committed. Enough files go into one pack
// (the blob batch takes the hash already worked out) and a few are
// written loose.
func TestPrepareTakesTheBytesWritten(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, store.PackMinBlobs + 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			r := openDurableRepo(t, Options{Dir: dir})
			record(t, r, "first", "a.md", "a\n")
			written := map[string]changes.File{}
			var paths []string
			for i := range n {
				rel := fmt.Sprintf("notes/n%03d.md", i)
				writeFile(t, dir, rel, fmt.Sprintf("on disk %03d\n", i))
				fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
				if err != nil {
					t.Fatal(err)
				}
				written[rel] = changes.File{Data: []byte(fmt.Sprintf("held by %03d\n", i)), Info: fi}
				paths = append(paths, rel)
			}
			// The last file changes after it was written: its size no
			// longer matches what is held.
			last := paths[n-1]
			writeFile(t, dir, last, "changed on disk since\n")
			p, err := r.Prepare(t.Context(), changes.Change{Summary: "relink", Batch: changes.Batch{Paths: paths, Written: written}})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Abort()
			if _, err := p.Publish(); err != nil {
				t.Fatal(err)
			}
			for i, rel := range paths {
				want := fmt.Sprintf("held by %03d", i)
				if rel == last {
					want = "changed on disk since"
				}
				if got := git(t, dir, "show", "HEAD:"+rel); got != want {
					t.Errorf("HEAD:%s = %q, want %q", rel, got, want)
				}
			}
			git(t, dir, "fsck", "--full", "--strict")
			if got := git(t, dir, "log", "--format=%s", "-1"); !strings.HasSuffix(got, "relink") {
				t.Errorf("last commit %q, want the summary relink", got)
			}
		})
	}
}
