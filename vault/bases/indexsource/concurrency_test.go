package indexsource_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"vaultmcp/vault"
	"vaultmcp/vault/bases"
	"vaultmcp/vault/bases/indexsource"
	"vaultmcp/vault/index"
)

// TestQueriesWhileNotesChange runs queries from several goroutines while
// notes are rewritten and the index refreshed (run with -race): every
// answer is a whole generation's, and the last one sees the last writes.
func TestQueriesWhileNotesChange(t *testing.T) {
	dir := t.TempDir()
	write := func(i, rating int) {
		p := filepath.Join(dir, fmt.Sprintf("n%02d.md", i))
		if err := os.WriteFile(p, fmt.Appendf(nil, "---\nrating: %d\ntags: [t]\n---\n# %d\n", rating, i), 0o644); err != nil {
			t.Error(err)
		}
	}
	for i := range 20 {
		write(i, 0)
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(v, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	if err := ix.Build(ctx); err != nil {
		t.Fatal(err)
	}
	s := indexsource.New(ix, dir, time.UTC)
	b, err := bases.Parse([]byte("filters:\n  and:\n    - 'rating >= 1'\n    - file.hasTag(\"t\")\nviews:\n  - type: table\n    order: [rating]\n    sort: [{property: rating, direction: DESC}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	query := func() *bases.Result {
		src, err := s.Snapshot(ctx)
		if err != nil {
			t.Error(err)
			return nil
		}
		q, err := bases.Compile(b, "")
		if err != nil {
			t.Error(err)
			return nil
		}
		res, err := q.Run(ctx, src, bases.Options{})
		if err != nil {
			t.Error(err)
		}
		return res
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if res := query(); res != nil && res.Errors != nil {
					t.Errorf("errors %v", res.Errors.First)
				}
			}
		})
	}
	for round := 1; round <= 30; round++ {
		i := round % 20
		write(i, round)
		ix.Refresh([]string{fmt.Sprintf("n%02d.md", i)})
	}
	close(stop)
	wg.Wait()
	res := query()
	// Rounds 11..30 are the last writes of notes 11..19, 0..10.
	if res.Total != 20 || res.Rows[0].Values[0].Float() != 30 || res.Rows[19].Values[0].Float() != 11 {
		t.Errorf("final answer: %d rows, first %v, last %v", res.Total, res.Rows[0].Values, res.Rows[len(res.Rows)-1].Values)
	}
}
