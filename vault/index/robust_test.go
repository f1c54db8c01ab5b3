//go:build unix

package index

import (
	"bytes"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"vaultmcp/vault"
)

// built runs fn (a build or a refresh) and fails the test if it has not
// returned after a long time: a hang on a special file, not a slow
// machine.
func notHung(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s hung", what)
	}
}

// A FIFO, a socket or a link to a FIFO is never opened or indexed, at
// build time or when an event reports it.
func TestSpecialFilesSkipped(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "A.md", "[[x]] [[pipe]]")
	if err := syscall.Mkfifo(filepath.Join(dir, "x.md"), 0o644); err != nil {
		t.Skip("no named pipes:", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("x.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "s.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := New(v, nil)
	notHung(t, "Build", func() {
		if err := ix.Build(ctx); err != nil {
			t.Error(err)
		}
	})
	check := func(when string) {
		t.Helper()
		var files []string
		ix.Files("", func(rel string) bool { files = append(files, rel); return true })
		slices.Sort(files)
		if strings.Join(files, ",") != "A.md" {
			t.Errorf("%s: indexed files %v, want A.md only", when, files)
		}
		if broken, _ := ix.Broken(ctx); len(broken) != 1 || len(broken[0].Targets) != 2 {
			t.Errorf("%s: broken = %+v, want both links of A.md broken", when, broken)
		}
	}
	check("after build")
	notHung(t, "Refresh", func() { ix.Refresh([]string{"x.md", "pipe", "link.md", "s.md", ""}) })
	check("after refresh")
}

// A note over the size limit is known by name but not read: links to it
// resolve, its own links and tags are left out, grep gets no text for it
// (and reads the disk), and a rename leaves it alone.
func TestTooLargeNote(t *testing.T) {
	dir := t.TempDir()
	big := "[[A]] #tag " + strings.Repeat("x", 200)
	writeFile(t, dir, "Big.md", big)
	writeFile(t, dir, "A.md", "[[Big]]")
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	ix := New(v, slog.New(slog.NewTextHandler(&logs, nil)))
	ix.SetMaxNoteBytes(100)
	if err := ix.Build(ctx); err != nil {
		t.Fatal(err)
	}
	v.Observe(ix.Changed)
	if !strings.Contains(logs.String(), "notes too large to index") || !strings.Contains(logs.String(), "Big.md") {
		t.Errorf("build log does not name the note left out:\n%s", logs.String())
	}
	if bl, _ := ix.Backlinks(ctx, "Big.md"); len(bl) != 1 {
		t.Errorf("backlinks(Big) = %v", sources(bl))
	}
	if bl, _ := ix.Backlinks(ctx, "A.md"); len(bl) != 0 {
		t.Errorf("backlinks(A) = %v: the large note's links were read", sources(bl))
	}
	if tags, _ := ix.Tags(ctx, "", false); len(tags) != 0 {
		t.Errorf("tags = %v", tags)
	}
	ix.Texts("", func(rel string, content []byte) bool {
		if rel == "Big.md" && content != nil {
			t.Errorf("Texts holds the large note's text")
		}
		return true
	})
	if st, _ := ix.Stats(ctx); st.TooLarge != 1 || st.Notes != 2 {
		t.Errorf("stats = %+v", st)
	}
	// A rename of A leaves the large note's bytes as they are.
	if _, err := v.RenameFile(ctx, "A.md", "A2.md", func(tx *vault.Tx, from, to vault.Path) error {
		_, _, err := ix.FollowRename(ctx, tx, from.Rel, to.Rel)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "Big.md")); string(got) != big {
		t.Errorf("the large note was rewritten")
	}
	// Growing past the limit on disk is noticed on refresh.
	logs.Reset()
	writeFile(t, dir, "A2.md", strings.Repeat("y", 101)+"[[Big]]")
	ix.Refresh([]string{"A2.md"})
	if bl, _ := ix.Backlinks(ctx, "Big.md"); len(bl) != 0 {
		t.Errorf("backlinks(Big) after A2 grew = %v", sources(bl))
	}
	if !strings.Contains(logs.String(), "A2.md") {
		t.Errorf("refresh log does not name the note:\n%s", logs.String())
	}
}
