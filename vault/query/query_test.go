package query

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// testIndex builds an index over files; modified sets a file's
// modification time (by path), the others keep the time of writing.
func testIndex(t testing.TB, files map[string]string, modified map[string]time.Time) *index.Index {
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
		if m, ok := modified[rel]; ok {
			if err := os.Chtimes(p, m, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(v, slog.New(slog.DiscardHandler))
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ix
}

var vaultFiles = map[string]string{
	"Home.md":                "# Home\n[[Projects/Alpha]] [[Projects/Beta]]",
	"Projects/Alpha.md":      "---\nstatus: active\npriority: 3\ndue: 2026-02-01\nowner: \"[[Ann]]\"\ntags: [project, project/active]\n---\n[[Home]]",
	"Projects/Beta.md":       "---\nstatus: Done\npriority: 1\ndue: 2026-01-10\ntags: project\n---\n#Project/Done [[Home]] [[Alpha]]",
	"Projects/Old/Gamma.md":  "---\nstatus: done\npriority: 10\narchived: true\naliases: [G]\n---\nno links",
	"Areas/Health.md":        "---\nstatus: active\nreviewed: false\nlist: [a, b, 2]\n---\n#area [[Home]]",
	"Inbox/Idea.md":          "just text #idea",
	"Projects/Not a note.md": "---\nstatus:\n---\nempty status",
}

func TestRun(t *testing.T) {
	jan := time.Date(2026, 1, 15, 12, 0, 0, 0, time.Local)
	ix := testIndex(t, vaultFiles, map[string]time.Time{
		"Home.md": jan.AddDate(0, -1, 0), "Inbox/Idea.md": jan.AddDate(0, 1, 0), "Projects/Alpha.md": jan,
		"Projects/Beta.md": jan, "Projects/Old/Gamma.md": jan, "Areas/Health.md": jan, "Projects/Not a note.md": jan,
	})
	now := jan.AddDate(0, 1, 5) // relative times count back from here
	cases := []struct {
		name   string
		filter string
		sort   string
		want   []string
	}{
		{"everything", `{}`, "", []string{"Areas/Health.md", "Home.md", "Inbox/Idea.md", "Projects/Alpha.md", "Projects/Beta.md", "Projects/Not a note.md", "Projects/Old/Gamma.md"}},
		{"tag with nested tags", `{"tags": ["project"]}`, "", []string{"Projects/Alpha.md", "Projects/Beta.md"}},
		{"nested tag only", `{"tags": "#project/done"}`, "", []string{"Projects/Beta.md"}},
		{"all tags must hold", `{"tags": ["project", "project/active"]}`, "", []string{"Projects/Alpha.md"}},
		{"property equality ignores case", `{"properties": {"status": "done"}}`, "", []string{"Projects/Beta.md", "Projects/Old/Gamma.md"}},
		{"property key ignores case", `{"properties": {"Status": "ACTIVE"}}`, "", []string{"Areas/Health.md", "Projects/Alpha.md"}},
		{"any of values", `{"properties": {"status": ["active", "done"]}, "folder": "Projects"}`, "", []string{"Projects/Alpha.md", "Projects/Beta.md", "Projects/Old/Gamma.md"}},
		{"number comparison", `{"properties": {"priority": {"gte": 3}}}`, "", []string{"Projects/Alpha.md", "Projects/Old/Gamma.md"}},
		{"number range", `{"properties": {"priority": {"gt": 1, "lt": 10}}}`, "", []string{"Projects/Alpha.md"}},
		{"date comparison", `{"properties": {"due": {"lt": "2026-01-31"}}}`, "", []string{"Projects/Beta.md"}},
		{"checkbox", `{"properties": {"archived": true}}`, "", []string{"Projects/Old/Gamma.md"}},
		{"checkbox false", `{"properties": {"reviewed": false}}`, "", []string{"Areas/Health.md"}},
		{"link-valued property", `{"properties": {"owner": "Ann"}}`, "", []string{"Projects/Alpha.md"}},
		{"list contains", `{"properties": {"list": {"contains": "b"}}}`, "", []string{"Areas/Health.md"}},
		{"list item as number", `{"properties": {"list": 2}}`, "", []string{"Areas/Health.md"}},
		{"exists", `{"properties": {"due": {"exists": true}}}`, "", []string{"Projects/Alpha.md", "Projects/Beta.md"}},
		{"missing", `{"properties": {"status": {"exists": false}}}`, "", []string{"Home.md", "Inbox/Idea.md"}},
		{"empty", `{"properties": {"status": null}, "folder": "Projects"}`, "", []string{"Projects/Not a note.md"}},
		{"ne includes missing", `{"properties": {"status": {"ne": "active"}}, "folder": "Areas"}`, "", []string{}},
		{"folder is recursive", `{"folder": "projects/"}`, "", []string{"Projects/Alpha.md", "Projects/Beta.md", "Projects/Not a note.md", "Projects/Old/Gamma.md"}},
		{"path glob", `{"path": "Projects/*.md"}`, "", []string{"Projects/Alpha.md", "Projects/Beta.md", "Projects/Not a note.md"}},
		{"links to a name", `{"links_to": "Home"}`, "", []string{"Areas/Health.md", "Projects/Alpha.md", "Projects/Beta.md"}},
		{"links to a path", `{"links_to": "Projects/Alpha.md"}`, "", []string{"Home.md", "Projects/Beta.md"}},
		{"links from", `{"links_from": "[[Beta]]"}`, "", []string{"Home.md", "Projects/Alpha.md"}},
		{"modified after", `{"modified_after": "2026-02-01"}`, "", []string{"Inbox/Idea.md"}},
		{"modified before", `{"modified_before": "2026-01-01T00:00:00Z"}`, "", []string{"Home.md"}},
		{"modified in a span back from now", `{"modified_after": "10d"}`, "", []string{"Inbox/Idea.md"}},
		{"modified before a span in words", `{"modified_before": "6 weeks ago"}`, "", []string{"Home.md"}},
		{"modified before yesterday", `{"modified_before": "yesterday", "folder": "Inbox"}`, "", []string{"Inbox/Idea.md"}},
		{"any of filters", `{"any": [{"tags": "idea"}, {"tags": "area"}]}`, "", []string{"Areas/Health.md", "Inbox/Idea.md"}},
		{"not", `{"folder": "Projects", "not": {"tags": "project"}}`, "", []string{"Projects/Not a note.md", "Projects/Old/Gamma.md"}},
		{"filter as JSON text", `"{\"tags\": \"idea\"}"`, "", []string{"Inbox/Idea.md"}},
		{"sort by number property, missing last", `{"folder": "Projects"}`, "properties.priority", []string{"Projects/Beta.md", "Projects/Alpha.md", "Projects/Old/Gamma.md", "Projects/Not a note.md"}},
		{"sort descending", `{"folder": "Projects"}`, "-properties.priority", []string{"Projects/Old/Gamma.md", "Projects/Alpha.md", "Projects/Beta.md", "Projects/Not a note.md"}},
		{"sort by date property", `{"properties": {"due": {"exists": true}}}`, "-properties.due", []string{"Projects/Alpha.md", "Projects/Beta.md"}},
		{"sort by modified", `{"not": {"folder": ["Projects", "Areas"]}}`, "-modified", []string{"Inbox/Idea.md", "Home.md"}},
		{"sort by path descending", `{"folder": "Projects"}`, "-path", []string{"Projects/Old/Gamma.md", "Projects/Not a note.md", "Projects/Beta.md", "Projects/Alpha.md"}},
		{"sort by name", `{"folder": "Projects"}`, "name", []string{"Projects/Alpha.md", "Projects/Beta.md", "Projects/Old/Gamma.md", "Projects/Not a note.md"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var raw any
			if err := json.Unmarshal([]byte(tc.filter), &raw); err != nil {
				t.Fatal(err)
			}
			f, err := ParseAt(raw, now)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			res, err := NewTable(ix).Run(context.Background(), Request{Filter: f, Sort: tc.sort})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			got := []string{}
			for _, n := range res.Notes {
				got = append(got, n.Path)
			}
			if !slices.Equal(got, tc.want) || res.Total != len(tc.want) {
				t.Errorf("got %q (total %d), want %q", got, res.Total, tc.want)
			}
		})
	}
}

func TestPaging(t *testing.T) {
	ix := testIndex(t, vaultFiles, nil)
	var pages [][]string
	total := 0
	for off := 0; off < 10; off += 3 {
		res, err := NewTable(ix).Run(context.Background(), Request{Offset: off, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		var page []string
		for _, n := range res.Notes {
			page = append(page, n.Path)
		}
		pages = append(pages, page)
		total = res.Total
	}
	if total != 7 || len(pages[0]) != 3 || len(pages[2]) != 1 || len(pages[3]) != 0 || pages[1][0] != "Projects/Alpha.md" {
		t.Errorf("pages %q, total %d", pages, total)
	}
}

func TestBadFilters(t *testing.T) {
	ix := testIndex(t, vaultFiles, nil)
	cases := map[string]string{
		`[1]`:                                  "must be a JSON object",
		`{"tagz": "x"}`:                        `unknown filter key "tagz"`,
		`{"tags": 3}`:                          "filter.tags must be text or a list",
		`{"tags": [""]}`:                       "must be non-empty",
		`{"properties": {"a": {"bigger": 1}}}`: `unknown operator "bigger"`,
		`{"properties": {"a": {"exists": "yes"}}}`:           "must be true or false",
		`{"properties": {"a": {}}}`:                          "empty object",
		`{"properties": {"a": [{"x": 1}]}}`:                  "must be text, a number or a boolean",
		`{"modified_after": "last fortnight"}`:               "is not a time",
		`{"any": []}`:                                        "non-empty list of filters",
		`{"not": {"not": {"folder": 1}}}`:                    "filter.not.not.folder",
		`{"path": "[a"}`:                                     "not a valid glob",
		`{"path": "` + strings.Repeat("x", 3_500_000) + `"}`: "filter.path is 3,500,000 characters long; the limit is 1,024",
		`{"path": "` + strings.Repeat("{?,??}", 22) + `"}`:   "too many {…} alternatives",
		`{"links_to": "Nobody"}`:                             `no note or file is named "Nobody"`,
		`"{not json"`:                                        "not a JSON object",
	}
	for filter, want := range cases {
		var raw any
		if err := json.Unmarshal([]byte(filter), &raw); err != nil {
			t.Fatal(err)
		}
		f, err := Parse(raw)
		if err == nil {
			_, err = NewTable(ix).Run(context.Background(), Request{Filter: f})
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.80s: err = %.200v, want it to say %q", filter, err, want)
		}
	}
	if _, err := NewTable(ix).Run(context.Background(), Request{Sort: "colour"}); err == nil || !strings.Contains(err.Error(), "unknown sort") {
		t.Errorf("bad sort: %v", err)
	}
}

// FuzzParse: no filter text makes Parse or Run panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `{"tags": ["a"], "properties": {"s": {"gte": 2, "in": ["x", 1]}}, "any": [{"not": {"folder": "x"}}]}`,
		`{"modified_after": "2026-01-01", "path": "**/*.md", "sort": 1}`, `{"properties": {"a": null, "b": [true, 2.5]}}`, `"{}"`, `[]`, `null`,
		`{"path": "Zettel/E\u0301nergie*", "folder": "\u00c9t\u00e9 2026"}`, `{"folder": ["e\u0301", "\u0301"], "path": "[\u00e9e\u0301]*"}`} {
		f.Add(s)
	}
	ix := testIndex(f, vaultFiles, nil)
	f.Fuzz(func(t *testing.T, s string) {
		var raw any
		if json.Unmarshal([]byte(s), &raw) != nil {
			return
		}
		flt, err := Parse(raw)
		if err != nil {
			return
		}
		_, _ = NewTable(ix).Run(context.Background(), Request{Filter: flt, Sort: s})
	})
}

// TestTableFollowsIndex: one table answers query after query while
// notes are added, changed and deleted.
func TestTableFollowsIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(v, slog.New(slog.DiscardHandler))
	v.Observe(ix.Changed)
	if err := ix.Build(ctx); err != nil {
		t.Fatal(err)
	}
	tb := NewTable(ix)
	f, err := Parse(map[string]any{"tags": "a"})
	if err != nil {
		t.Fatal(err)
	}
	paths := func() []string {
		t.Helper()
		res, err := tb.Run(ctx, Request{Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, n := range res.Notes {
			out = append(out, n.Path)
		}
		return out
	}
	for _, step := range []struct {
		write, content, remove string
		want                   []string
	}{
		{write: "1.md", content: "#a", want: []string{"1.md"}},
		{write: "2.md", content: "#a/b", want: []string{"1.md", "2.md"}},
		{write: "1.md", content: "#c", want: []string{"2.md"}},
		{write: "3.md", content: "#A", want: []string{"2.md", "3.md"}},
		{remove: "2.md", want: []string{"3.md"}},
		{remove: "3.md", want: []string{}},
	} {
		if step.remove != "" {
			if _, err := v.DeleteFile(ctx, step.remove); err != nil {
				t.Fatal(err)
			}
		} else if _, err := v.WriteFile(ctx, step.write, []byte(step.content)); err != nil {
			t.Fatal(err)
		}
		if got := paths(); !slices.Equal(got, step.want) {
			t.Errorf("after %+v: %q", step, got)
		}
	}
}

// TestTableFollowsATouch: a note whose text is unchanged but whose time
// moved (touched, saved unchanged) is found by the time filters at its
// new time. The index keeps such a note without parsing it again.
func TestTableFollowsATouch(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, name := range []string{"a.md", "b.md"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("text of "+name), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(v, slog.New(slog.DiscardHandler))
	if err := ix.Build(ctx); err != nil {
		t.Fatal(err)
	}
	tb := NewTable(ix)
	f, err := Parse(map[string]any{"modified_after": "2025-01-01"})
	if err != nil {
		t.Fatal(err)
	}
	count := func() int {
		t.Helper()
		res, err := tb.Run(ctx, Request{Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		return res.Total
	}
	if n := count(); n != 0 {
		t.Fatalf("before the touch: %d notes modified after 2025, want 0", n)
	}
	now := time.Now()
	if err := os.Chtimes(filepath.Join(dir, "a.md"), now, now); err != nil {
		t.Fatal(err)
	}
	ix.Refresh([]string{"a.md"})
	if n := count(); n != 1 {
		t.Errorf("after touching a.md: %d notes modified after 2025, want 1", n)
	}
}
