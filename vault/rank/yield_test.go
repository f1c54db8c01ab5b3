package rank

import (
	"context"
	"log/slog"
	"testing"

	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// A build calls its yield function before its first slice of notes and
// does not finish while that call is held: a build started beside a large
// change waits for it rather than competing with it. Once the call
// returns, the build completes and searches find the notes.
func TestBuildWaitsInYield(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.md": "apple pie", "b.md": "banana bread"})
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	ix := index.New(v, logger)
	ix.Start(context.Background())
	s := New(ix, logger)
	entered, release := make(chan struct{}), make(chan struct{})
	calls := 0
	s.SetYield(func() {
		calls++
		if calls == 1 {
			close(entered)
			<-release
		}
	})
	s.Start(context.Background())
	<-entered
	select {
	case <-s.ready:
		t.Fatal("the build finished while its yield call was held")
	default:
	}
	close(release)
	res, err := s.Search(t.Context(), Query{Text: "banana"})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res); len(got) != 1 || got[0] != "b.md" {
		t.Errorf("search after the build = %v, want [b.md]", got)
	}
}
