package vault

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Writers and editors racing on one vault lose no update: every edit
// appends its own line to a shared note, and at the end all lines are
// there exactly once. Run with -race.
func TestConcurrentChanges(t *testing.T) {
	const workers, rounds = 8, 50
	v, root := newTestVault(t, Options{})
	const marker = "<<end>>"
	mkfile(t, root, "shared.md", "# Log\n"+marker+"\n")
	records := 0
	v.SetRecorder(recorderFunc(func(string, []string) (string, error) {
		records++ // under the write lock
		return "", nil
	}))
	ctx := t.Context()

	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds*3)
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				line := fmt.Sprintf("worker %d round %d", w, r)
				if _, err := v.EditFile(ctx, "shared.md", marker, line+"\n"+marker); err != nil {
					errs <- fmt.Errorf("edit %s: %w", line, err)
				}
				own := fmt.Sprintf("workers/w%d/note.md", w)
				if _, err := v.WriteFile(ctx, own, []byte(line)); err != nil {
					errs <- fmt.Errorf("write %s: %w", line, err)
				}
				// Reads run alongside and never see a half-written file.
				if f, err := v.ReadFile("shared.md", 0); err != nil {
					errs <- fmt.Errorf("read: %w", err)
				} else if !strings.HasSuffix(string(f.Data), marker+"\n") {
					errs <- fmt.Errorf("read a torn file: %q", f.Data)
				}
				if _, err := v.List("", 3); err != nil {
					errs <- fmt.Errorf("list: %w", err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	got := readRel(t, root, "shared.md")
	for w := range workers {
		for r := range rounds {
			line := fmt.Sprintf("worker %d round %d\n", w, r)
			if c := strings.Count(got, line); c != 1 {
				t.Errorf("%q appears %d times", line, c)
			}
		}
		want := fmt.Sprintf("worker %d round %d", w, rounds-1)
		if own := readRel(t, root, fmt.Sprintf("workers/w%d/note.md", w)); own != want {
			t.Errorf("w%d/note.md = %q, want %q", w, own, want)
		}
	}
	if n := strings.Count(got, "\n"); n != workers*rounds+2 {
		t.Errorf("shared.md has %d lines, want %d", n, workers*rounds+2)
	}
	if records != workers*rounds*2 {
		t.Errorf("%d changes recorded, want %d", records, workers*rounds*2)
	}
}
