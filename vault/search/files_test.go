package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"vaultmcp/vault"
	"vaultmcp/vault/access"
)

var fileVault = map[string]string{
	"Welcome.md":                 "hi",
	"Inbox.md":                   "hi",
	"Daily Notes/2025-01-01.md":  "day one",
	"Daily Notes/2025-01-02.md":  "day two",
	"Daily Notes/2024-12-31.md":  "old year",
	"Projects/Alpha/plan.md":     "plan",
	"Projects/Alpha/logo.png":    "\x89PNG",
	"Projects/beta.MD":           "beta",
	"Projects/a-b.md":            "dash",
	"Attachments/Drawing.canvas": "{}",
	".obsidian/app.json":         "{}",
	".trash/deleted.md":          "x",
	".git/HEAD":                  "ref",
	".claude/settings.json":      "{}",
}

func TestGlob(t *testing.T) {
	v := newTestVault(t, fileVault)
	tests := []struct {
		q    GlobQuery
		want []string
	}{
		{GlobQuery{Pattern: "**/*.md"}, []string{
			"Daily Notes/2024-12-31.md", "Daily Notes/2025-01-01.md", "Daily Notes/2025-01-02.md",
			"Inbox.md", "Projects/Alpha/plan.md", "Projects/a-b.md", "Welcome.md",
		}},
		{GlobQuery{Pattern: "*.md"}, []string{
			"Daily Notes/2024-12-31.md", "Daily Notes/2025-01-01.md", "Daily Notes/2025-01-02.md",
			"Inbox.md", "Projects/Alpha/plan.md", "Projects/a-b.md", "Welcome.md",
		}},
		{GlobQuery{Pattern: "*.md", CaseInsensitive: true}, []string{
			"Daily Notes/2024-12-31.md", "Daily Notes/2025-01-01.md", "Daily Notes/2025-01-02.md",
			"Inbox.md", "Projects/Alpha/plan.md", "Projects/a-b.md", "Projects/beta.MD", "Welcome.md",
		}},
		{GlobQuery{Pattern: "/*.md"}, []string{"Inbox.md", "Welcome.md"}},
		{GlobQuery{Pattern: "Daily Notes/2025-*"}, []string{"Daily Notes/2025-01-01.md", "Daily Notes/2025-01-02.md"}},
		{GlobQuery{Pattern: "daily notes/2025-*", CaseInsensitive: true}, []string{"Daily Notes/2025-01-01.md", "Daily Notes/2025-01-02.md"}},
		{GlobQuery{Pattern: "*.{png,canvas}"}, []string{"Attachments/Drawing.canvas", "Projects/Alpha/logo.png"}},
		{GlobQuery{Pattern: "Alpha/*", Path: "Projects"}, []string{"Projects/Alpha/logo.png", "Projects/Alpha/plan.md"}},
		{GlobQuery{Pattern: "*", Path: "Projects/"}, []string{"Projects/Alpha/logo.png", "Projects/Alpha/plan.md", "Projects/a-b.md", "Projects/beta.MD"}},
		{GlobQuery{Pattern: "*.json"}, nil},
		{GlobQuery{Pattern: "*.json", Path: ".obsidian"}, []string{".obsidian/app.json"}},
		{GlobQuery{Pattern: "[0-9]*.md", Limit: 2}, []string{"Daily Notes/2024-12-31.md", "Daily Notes/2025-01-01.md"}},
	}
	for name, e := range engines(t, v) {
		for _, tt := range tests {
			res, err := e.Glob(context.Background(), tt.q)
			if err != nil {
				t.Fatalf("%s %+v: %v", name, tt.q, err)
			}
			if !slices.Equal(res.Paths, tt.want) {
				t.Errorf("%s %+v:\n got %q\nwant %q", name, tt.q, res.Paths, tt.want)
			}
			if tt.q.Limit == 2 && res.Total != 3 {
				t.Errorf("%s: total %d, want 3", name, res.Total)
			}
		}
	}
}

func TestGlobBadInput(t *testing.T) {
	v := newTestVault(t, fileVault)
	e := New(v, Options{})
	tests := []struct {
		q    GlobQuery
		kind error
		want string
	}{
		{GlobQuery{Pattern: "[a-"}, vault.ErrInvalidInput, "invalid pattern"},
		{GlobQuery{Pattern: "{a,b"}, vault.ErrInvalidInput, "invalid pattern"},
		{GlobQuery{Pattern: ""}, vault.ErrInvalidInput, "pattern is empty"},
		{GlobQuery{Pattern: "/"}, vault.ErrInvalidInput, "matches no file name"},
		{GlobQuery{Pattern: "*", Path: "../elsewhere"}, vault.ErrOutside, "outside"},
		{GlobQuery{Pattern: "*", Path: ".git"}, vault.ErrHidden, "hidden"},
		{GlobQuery{Pattern: "*", Path: "Welcome.md"}, vault.ErrNotDir, "Not a directory"},
		{GlobQuery{Pattern: "*", Path: "Missing"}, vault.ErrNotFound, "not found"},
	}
	for _, tt := range tests {
		_, err := e.Glob(context.Background(), tt.q)
		if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %v mentioning %q", tt.q, err, tt.kind, tt.want)
		}
	}
}

func TestFind(t *testing.T) {
	v := newTestVault(t, fileVault)
	day := func(s string) time.Time {
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			t.Fatal(err)
		}
		return d.Add(12 * time.Hour)
	}
	mtimes := map[string]time.Time{
		"Daily Notes/2024-12-31.md": day("2024-12-31"),
		"Daily Notes/2025-01-01.md": day("2025-01-01"),
		"Daily Notes/2025-01-02.md": day("2025-01-02"),
	}
	for rel, mt := range mtimes {
		if err := os.Chtimes(filepath.Join(v.Root(), filepath.FromSlash(rel)), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	e := New(v, Options{})
	tests := []struct {
		q    FindQuery
		want []string
	}{
		{FindQuery{Name: "2025", MaxSize: -1}, []string{"Daily Notes/2025-01-01.md", "Daily Notes/2025-01-02.md"}},
		{FindQuery{Name: "*.PNG", MaxSize: -1}, []string{"Projects/Alpha/logo.png"}},
		{FindQuery{Name: "a-b", MaxSize: -1}, []string{"Projects/a-b.md"}},
		{FindQuery{Path: "Daily Notes", ModifiedAfter: day("2025-01-01").Add(-12 * time.Hour), MaxSize: -1},
			[]string{"Daily Notes/2025-01-01.md", "Daily Notes/2025-01-02.md"}},
		{FindQuery{Path: "Daily Notes", ModifiedBefore: day("2025-01-01").Add(-12 * time.Hour), MaxSize: -1},
			[]string{"Daily Notes/2024-12-31.md"}},
		{FindQuery{Path: "Daily Notes", MinSize: 7, MaxSize: 7}, []string{"Daily Notes/2025-01-01.md", "Daily Notes/2025-01-02.md"}},
		{FindQuery{MinSize: 5, MaxSize: -1, Name: "*.md"}, []string{
			"Daily Notes/2024-12-31.md", "Daily Notes/2025-01-01.md", "Daily Notes/2025-01-02.md"}},
		{FindQuery{Name: "nothing", MaxSize: -1}, nil},
	}
	for _, tt := range tests {
		res, err := e.Find(context.Background(), tt.q)
		if err != nil {
			t.Fatalf("%+v: %v", tt.q, err)
		}
		var got []string
		for _, f := range res.Files {
			got = append(got, f.Path)
			if mt, ok := mtimes[f.Path]; ok && !f.ModTime.Equal(mt) {
				t.Errorf("%s: mtime %v, want %v", f.Path, f.ModTime, mt)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%+v:\n got %q\nwant %q", tt.q, got, tt.want)
		}
	}
	res, err := e.Find(context.Background(), FindQuery{MaxSize: -1, Limit: 3})
	if err != nil || len(res.Files) != 3 || res.Total != 10 {
		t.Errorf("limit: %v files of %v, %v", len(res.Files), res.Total, err)
	}
}

func TestFindBadInput(t *testing.T) {
	v := newTestVault(t, fileVault)
	e := New(v, Options{})
	now := time.Now()
	tests := []struct {
		q    FindQuery
		kind error
		want string
	}{
		{FindQuery{ModifiedAfter: now, ModifiedBefore: now.Add(-time.Hour), MaxSize: -1}, vault.ErrInvalidInput, "earlier than"},
		{FindQuery{MinSize: 10, MaxSize: 5}, vault.ErrInvalidInput, "larger than size_max"},
		{FindQuery{MinSize: -1, MaxSize: -1}, vault.ErrInvalidInput, "negative"},
		{FindQuery{Name: "[x", MaxSize: -1}, vault.ErrInvalidInput, "invalid name"},
		{FindQuery{Path: "/etc", MaxSize: -1}, vault.ErrOutside, "outside"},
		{FindQuery{Path: "Inbox.md", MaxSize: -1}, vault.ErrNotDir, "Not a directory"},
	}
	for _, tt := range tests {
		_, err := e.Find(context.Background(), tt.q)
		if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %v mentioning %q", tt.q, err, tt.kind, tt.want)
		}
	}
}

func FuzzGlob(f *testing.F) {
	for _, s := range []string{"**/*.md", "/*.md", "{a,b}/[0-9]?", "\\*", "[!a]"} {
		f.Add(s, "Daily Notes/2025-01-01.md", true)
	}
	f.Add("**/*décomposée*", norm.NFD.String("Zettel/Énergie décomposée.md"), false)
	f.Add(norm.NFD.String("Zettel/É*"), "Zettel/Énergie.md", true)
	f.Add("[éa]*", norm.NFD.String("été.md"), false)
	f.Fuzz(func(t *testing.T, pattern, rel string, fold bool) {
		g, err := compileGlob("pattern", pattern, fold)
		if err != nil {
			return
		}
		// A name matches or not whatever Unicode form it is stored in.
		if !utf8.ValidString(rel) {
			g.match(rel) // must not panic
			return
		}
		if a, b := g.match(norm.NFC.String(rel)), g.match(norm.NFD.String(rel)); a != b {
			t.Fatalf("%q: NFC form of %q matches %v, NFD form %v", pattern, rel, a, b)
		}
	})
}

func TestStats(t *testing.T) {
	v := newTestVault(t, fileVault)
	e := New(v, Options{})
	s, err := e.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", *s)
	want := "{Files:10 Markdown:8 Folders:4 TopFolders:[{Name:Attachments Files:1} {Name:Daily Notes Files:3} {Name:Projects Files:4}] RootFiles:2}"
	if got != want {
		t.Errorf("stats\n got %s\nwant %s", got, want)
	}
	empty, err := New(newTestVault(t, nil), Options{}).Stats(context.Background())
	if err != nil || empty.Files != 0 || empty.Folders != 0 || len(empty.TopFolders) != 0 {
		t.Errorf("empty vault: %+v %v", empty, err)
	}
}

// Dotfiles and dot-folders are not notes: scans leave them out, unless
// the path searched names one.
func TestDotfilesLeftOut(t *testing.T) {
	v := newTestVault(t, map[string]string{
		"a.md":             "x",
		".hidden.md":       "x",
		"sub/.draft.md":    "x",
		".github/ci.md":    "x",
		".github/.keep.md": "x",
	})
	for name, e := range engines(t, v) {
		found, err := e.Find(context.Background(), FindQuery{MaxSize: -1})
		if err != nil {
			t.Fatal(err)
		}
		if len(found.Files) != 1 || found.Files[0].Path != "a.md" {
			t.Errorf("%s: Find = %+v", name, found.Files)
		}
		res, err := e.Glob(context.Background(), GlobQuery{Pattern: "*.md"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Paths, []string{"a.md"}) {
			t.Errorf("%s: Glob = %q", name, res.Paths)
		}
		res, err = e.Glob(context.Background(), GlobQuery{Pattern: "*.md", Path: ".github"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Paths, []string{".github/ci.md"}) {
			t.Errorf("%s: Glob in .github = %q", name, res.Paths)
		}
	}
}

// TestStatsUnderScope counts under scopes: hidden files and folders are
// not counted, nor are folders an allow pattern could lead into that
// hold nothing visible; parents of visible ones are.
func TestStatsUnderScope(t *testing.T) {
	v := newTestVault(t, map[string]string{
		"Projects/Alpha/public/x.md": "x", "Projects/Beta/secret.md": "x", "Projects/Gamma/sub/y.md": "y",
		"Other/z.md": "z", "root.md": "r",
	})
	if err := os.MkdirAll(filepath.Join(v.Root(), "Projects", "Delta", "public"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rules access.Rules
		want  string
	}{
		{access.Rules{}, "{Files:5 Markdown:5 Folders:9 TopFolders:[{Name:Other Files:1} {Name:Projects Files:3}] RootFiles:1}"},
		{access.Rules{Allow: []string{"Projects/*/public"}}, "{Files:1 Markdown:1 Folders:5 TopFolders:[{Name:Projects Files:1}] RootFiles:0}"},
		{access.Rules{Deny: []string{"Projects"}}, "{Files:2 Markdown:2 Folders:1 TopFolders:[{Name:Other Files:1}] RootFiles:1}"},
		{access.Rules{Allow: []string{"Other"}, ReadOnly: true}, "{Files:1 Markdown:1 Folders:1 TopFolders:[{Name:Other Files:1}] RootFiles:0}"},
	} {
		ctx := access.With(context.Background(), access.MustNew("test", c.rules))
		s, err := New(v, Options{}).Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%+v", *s); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.rules, got, c.want)
		}
	}
}
