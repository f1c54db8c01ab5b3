package rank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"vaultmcp/vault"
	"vaultmcp/vault/index"
	"vaultmcp/vault/pattern"
)

func TestTokens(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"Hello, World!", []string{"hello", "world"}},
		{"Notes and stories; status class analysis", []string{"note", "and", "story", "status", "class", "analysis"}},
		{"tomatoes boxes classes wishes shoes", []string{"tomato", "box", "class", "wish", "shoe"}},
		{"Café crème à la carte", []string{"cafe", "creme", "la", "carte"}},
		{"[[Project Ideas|ideas]] #area/work a 1 42", []string{"project", "idea", "idea", "area", "work", "42"}},
		{"京都で寿司", []string{"京", "都", "で", "寿", "司"}},
		{"x" + strings.Repeat("y", 60) + " ok", []string{"ok"}},
		{"", nil},
	}
	for _, tc := range cases {
		var got []string
		tokens(tc.text, func(s string) { got = append(got, s) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("tokens(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// newSearcher builds a vault index and a searcher over dir, kept fresh
// by the vault's own writes.
func newSearcher(t testing.TB, dir string) (*vault.Vault, *Searcher) {
	t.Helper()
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	ix := index.New(v, logger)
	v.Observe(ix.Changed)
	ix.Start(context.Background())
	s := New(ix, logger)
	s.Start(context.Background())
	return v, s
}

func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func paths(res Result) []string {
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.Path)
	}
	return out
}

func TestSearch(t *testing.T) {
	ctx := context.Background()
	dir := writeFiles(t, map[string]string{
		"Gardening.md":     "# Gardening\nTomatoes and beans.",
		"Notes/Recipe.md":  "---\naliases: [Tomato soup]\ntags: [cooking]\n---\n# Soup\nA recipe with onions.\n\nSecond paragraph about gardening tools and more words here.",
		"Notes/Diary.md":   "Went gardening. Ate soup.\n```\n# gardening in code\n```",
		"Other/Cooking.md": "Nothing but #cooking here",
	})
	v, s := newSearcher(t, dir)
	cases := []struct {
		q    string
		want []string
	}{
		{"gardening", []string{"Gardening.md", "Notes/Diary.md", "Notes/Recipe.md"}},
		{"tomato", []string{"Notes/Recipe.md", "Gardening.md"}},
		{"+soup -diary", []string{"Notes/Recipe.md"}},
		{"soup -onions", []string{"Notes/Diary.md"}},
		{`"gardening tools"`, []string{"Notes/Recipe.md"}},
		{"garden*", []string{"Gardening.md", "Notes/Diary.md", "Notes/Recipe.md"}},
		{"cooking", []string{"Other/Cooking.md", "Notes/Recipe.md"}},
		{"xyzzy", []string{}},
	}
	for _, tc := range cases {
		res, err := s.Search(ctx, Query{Text: tc.q})
		if err != nil {
			t.Fatalf("%q: %v", tc.q, err)
		}
		if got := paths(res); !slices.Equal(got, tc.want) || res.Total != len(tc.want) {
			t.Errorf("%q: %q (total %d), want %q", tc.q, got, res.Total, tc.want)
		}
	}

	res, err := s.Search(ctx, Query{Text: "onions"})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Snippet != "A recipe with onions." || res.Hits[0].Line != 6 {
		t.Errorf("snippet: %+v, %v", res.Hits, err)
	}
	res, _ = s.Search(ctx, Query{Text: "tomato"})
	if res.Hits[0].Line != 0 || res.Hits[0].Snippet != "# Soup" {
		t.Errorf("alias match snippet: %+v", res.Hits[0])
	}
	// Paging.
	res, _ = s.Search(ctx, Query{Text: "gardening", Limit: 2, Offset: 2})
	if got := paths(res); !slices.Equal(got, []string{"Notes/Recipe.md"}) || res.Total != 3 {
		t.Errorf("page 2: %q total %d", got, res.Total)
	}

	// Writes are seen by the next search: a new note, a changed note, a
	// deleted note.
	if _, err := v.WriteFile(ctx, "New.md", []byte("# Zucchini\nzucchini zucchini")); err != nil {
		t.Fatal(err)
	}
	if _, err := v.WriteFile(ctx, "Gardening.md", []byte("# Gardening\nzucchini")); err != nil {
		t.Fatal(err)
	}
	if _, err := v.DeleteFile(ctx, "Notes/Diary.md"); err != nil {
		t.Fatal(err)
	}
	res, _ = s.Search(ctx, Query{Text: "zucchini"})
	if got := paths(res); !slices.Equal(got, []string{"New.md", "Gardening.md"}) {
		t.Errorf("after writes: %q", got)
	}
	res, _ = s.Search(ctx, Query{Text: "beans"})
	if res.Total != 0 {
		t.Errorf("old text still found: %+v", res)
	}
	res, _ = s.Search(ctx, Query{Text: "soup"})
	if got := paths(res); !slices.Equal(got, []string{"Notes/Recipe.md"}) {
		t.Errorf("deleted note still found: %q", got)
	}

	for _, bad := range []string{"", "  ", "-only", "!!!"} {
		if _, err := s.Search(ctx, Query{Text: bad}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestRebuildDropsDeadPostings: after many changes the searcher rebuilds
// itself in the background and answers the same.
func TestRebuildDropsDeadPostings(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("n%02d.md", i)] = fmt.Sprintf("alpha note %d", i)
	}
	v, s := newSearcher(t, writeFiles(t, files))
	s.rebuildAt = 10
	if _, err := s.Search(ctx, Query{Text: "alpha"}); err != nil {
		t.Fatal(err)
	}
	rebuilds := 0
	for round := range 3 {
		for i := range 20 {
			if _, err := v.WriteFile(ctx, fmt.Sprintf("n%02d.md", i), []byte(fmt.Sprintf("alpha beta %d %d", i, round))); err != nil {
				t.Fatal(err)
			}
			res, err := s.Search(ctx, Query{Text: "beta", Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			if res.Total != i+1 && round == 0 {
				t.Fatalf("round %d after %d writes: %d hits", round, i+1, res.Total)
			}
			s.mu.Lock()
			if s.rebuilding {
				rebuilds++
			}
			s.mu.Unlock()
		}
	}
	// Wait for a rebuild still running to install its state.
	for {
		s.mu.Lock()
		busy, st := s.rebuilding, s.st
		s.mu.Unlock()
		if !busy {
			if st.live != 20 || st.dead() > 20 {
				t.Errorf("live %d, dead %d after rebuilds", st.live, st.dead())
			}
			break
		}
		runtime.Gosched()
	}
	if rebuilds == 0 {
		t.Errorf("no rebuild started")
	}
	res, _ := s.Search(ctx, Query{Text: "alpha", Limit: 100})
	if res.Total != 20 {
		t.Errorf("alpha: %d hits", res.Total)
	}
}

// TestQuality checks the ranking against hand-labelled queries over a
// small vault (testdata/quality): the best note of each query must rank
// first and the relevant ones must be in the top five. It logs the mean
// reciprocal rank.
func TestQuality(t *testing.T) {
	var labels struct {
		Queries []struct {
			Query    string   `json:"query"`
			Best     []string `json:"best"`
			Relevant []string `json:"relevant"`
		} `json:"queries"`
	}
	data, err := os.ReadFile(filepath.Join("testdata", "quality", "queries.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &labels); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "quality", "vault"))
	if err != nil {
		t.Fatal(err)
	}
	_, s := newSearcher(t, dir)
	mrr := 0.0
	for _, q := range labels.Queries {
		res, err := s.Search(context.Background(), Query{Text: q.Query, Limit: 5})
		if err != nil {
			t.Fatalf("%q: %v", q.Query, err)
		}
		got := paths(res)
		rank := 0
		for i, p := range got {
			if slices.Contains(q.Best, p) {
				rank = i + 1
				break
			}
		}
		if rank > 0 {
			mrr += 1 / float64(rank)
		}
		if rank != 1 {
			t.Errorf("%q: best %q ranked %d in %q", q.Query, q.Best, rank, got)
		}
		for _, r := range q.Relevant {
			if !slices.Contains(got, r) {
				t.Errorf("%q: relevant %q not in the top five %q", q.Query, r, got)
			}
		}
	}
	t.Logf("mean reciprocal rank over %d queries: %.3f", len(labels.Queries), mrr/float64(len(labels.Queries)))
}

// A query longer than pattern.MaxQuery is refused with the limit named,
// before it is split into words; one at the limit runs.
func TestSearchQueryBounded(t *testing.T) {
	ctx := context.Background()
	_, s := newSearcher(t, writeFiles(t, map[string]string{"Gardening.md": "# Gardening\nTomatoes and beans."}))
	_, err := s.Search(ctx, Query{Text: strings.Repeat("tomato ", 500_000)})
	var re *Error
	if !errors.As(err, &re) || !strings.Contains(re.Msg, "query is 3,500,000 characters long; the limit is 4,096") {
		t.Fatalf("err = %v", err)
	}
	words := strings.Repeat("tom* ", pattern.MaxQuery/5)
	if res, err := s.Search(ctx, Query{Text: words}); err != nil || res.Total != 1 {
		t.Errorf("%d characters of prefixes: %+v, %v", len(words), res, err)
	}
}
