package gitsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manyNotes commits n notes in one go (as a clone would bring them).
func manyNotes(t *testing.T, w *world, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		writeFile(t, w.vault, fmt.Sprintf("notes/n%03d.md", i), "note\n")
	}
	w.lock.Lock()
	_, err := w.r.Commit(context.Background(), "write notes", []string{"notes"})
	w.lock.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestMassDeletionIsHeldBack: most tracked files gone at once (an emptied
// folder) are neither committed nor pushed; the status says so; the other
// external changes still are; the hold ends when the files come back;
// confirming with the right count commits the deletion.
func TestMassDeletionIsHeldBack(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	manyNotes(t, w, 40)
	head := git(t, w.remote, "rev-parse", "main")
	notes := filepath.Join(w.vault, "notes")
	aside := filepath.Join(filepath.Dir(w.vault), "notes-aside")
	if err := os.Rename(notes, aside); err != nil {
		t.Fatal(err)
	}
	writeFile(t, w.vault, "edited-meanwhile.md", "still committed\n")

	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	files := git(t, w.remote, "ls-tree", "-r", "--name-only", "main")
	if strings.Count(files, "notes/") != 40 || !strings.Contains(files, "edited-meanwhile.md") {
		t.Errorf("remote tree after the held deletion:\n%s", files)
	}
	if git(t, w.remote, "rev-parse", "main") == head {
		t.Error("the other external change was not pushed")
	}
	held := w.r.Status().HeldDeletion
	if held == nil || held.Files != 40 || held.Tracked != 42 || len(held.Examples) != maxHeldExamples {
		t.Fatalf("HeldDeletion = %+v", held)
	}

	// Back: the hold is dropped, nothing to commit.
	if err := os.Rename(aside, notes); err != nil {
		t.Fatal(err)
	}
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if held := w.r.Status().HeldDeletion; held != nil {
		t.Errorf("HeldDeletion = %+v after the files came back", held)
	}
	assertClean(t, w.vault)

	// Gone again, and confirmed.
	if err := os.RemoveAll(notes); err != nil {
		t.Fatal(err)
	}
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.r.ConfirmDeletion(context.Background(), 39); err == nil || !strings.Contains(err.Error(), "40 files") {
		t.Errorf("ConfirmDeletion(39) = %v, want a count mismatch naming 40", err)
	}
	res, err := w.r.ConfirmDeletion(context.Background(), 40)
	if err != nil || !res.Created {
		t.Fatalf("ConfirmDeletion(40) = %+v, %v", res, err)
	}
	if _, err := w.r.ConfirmDeletion(context.Background(), 40); !errors.Is(err, ErrNoHeldDeletion) {
		t.Errorf("second ConfirmDeletion = %v", err)
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	if files := git(t, w.remote, "ls-tree", "-r", "--name-only", "main"); strings.Contains(files, "notes/") {
		t.Errorf("remote still has notes after the confirmed deletion:\n%s", files)
	}
	assertClean(t, w.vault)
}

// TestMassDeletionThresholds: ordinary deletions are committed; the guard
// holds back more than MassDeletionFiles files, more than
// MassDeletionPercent (from five files up), or every file; AllowMassDeletion
// turns it off.
func TestMassDeletionThresholds(t *testing.T) {
	t.Parallel()
	r := &Repo{}
	var err error
	if r.opts, err = (Options{Dir: t.TempDir()}).normalized(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		gone, tracked int
		held          bool
	}{
		{1, 10, false}, {4, 10, false}, {5, 10, true}, {2, 2, true}, {1, 1, false},
		{200, 10000, false}, {201, 100000, true}, {20, 100, false}, {21, 100, true},
	}
	for _, c := range cases {
		if got := r.isMassDeletion(c.gone, c.tracked); got != c.held {
			t.Errorf("%d of %d gone: held = %v, want %v", c.gone, c.tracked, got, c.held)
		}
	}
	r.opts.AllowMassDeletion = true
	if r.isMassDeletion(1000, 1000) {
		t.Error("AllowMassDeletion did not turn the guard off")
	}
}

// TestSmallDeletionsAreCommitted: deleting a few notes outside the server
// is ordinary work and is committed at once.
func TestSmallDeletionsAreCommitted(t *testing.T) {
	t.Parallel()
	w := newWorld(t, Options{})
	manyNotes(t, w, 20)
	for i := 0; i < 3; i++ {
		os.Remove(filepath.Join(w.vault, fmt.Sprintf("notes/n%03d.md", i)))
	}
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if held := w.r.Status().HeldDeletion; held != nil {
		t.Errorf("three deletions held: %+v", held)
	}
	assertClean(t, w.vault)
}

// A confirmed deletion whose commit was made but whose last flush failed
// counts as confirmed: the hold is gone, the commit is returned with the
// error, and the pusher takes it to the remote.
func TestConfirmedDeletionFlushFails(t *testing.T) {
	t.Parallel()
	w := newWorldOpened(t, Options{SyncInterval: -1}, openDurableRepo)
	manyNotes(t, w, 40)
	if err := os.RemoveAll(filepath.Join(w.vault, "notes")); err != nil {
		t.Fatal(err)
	}
	if err := w.r.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	fault := errors.New("injected: input/output error")
	w.r.testHooks.Store(&testHooks{flushFault: failRefFlush(fault)})
	res, err := w.r.ConfirmDeletion(context.Background(), 40)
	w.r.testHooks.Store(nil)
	var nf *NotFlushedError
	if !errors.As(err, &nf) || !errors.Is(err, fault) || !res.Created || nf.Committed() != res.Hash {
		t.Fatalf("ConfirmDeletion = %+v, %v; want the commit with a *NotFlushedError", res, err)
	}
	if held := w.r.Status().HeldDeletion; held != nil {
		t.Errorf("HeldDeletion = %+v after the deletion was committed", held)
	}
	if _, err := w.r.ConfirmDeletion(context.Background(), 40); !errors.Is(err, ErrNoHeldDeletion) {
		t.Errorf("second ConfirmDeletion = %v", err)
	}
	if err := w.r.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	if files := git(t, w.remote, "ls-tree", "-r", "--name-only", "main"); strings.Contains(files, "notes/") {
		t.Errorf("remote still has notes after the confirmed deletion:\n%s", files)
	}
	assertClean(t, w.vault)
}
