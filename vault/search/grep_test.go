package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"vaultmcp/vault"
	"vaultmcp/vault/pattern"
)

var grepVault = map[string]string{
	"Welcome.md":                "# Welcome\nSee [[Projects/Alpha]].\nTODO: write more\n",
	"Projects/Alpha.md":         "---\ntags: [project]\n---\n# Alpha\nStatus: todo\nThe alpha project.\n",
	"Projects/Beta.md":          "# Beta\r\nstatus: done\r\nTODO later\r\n",
	"Projects/notes.txt":        "plain text TODO\n",
	"Daily Notes/2025-01-01.md": "# 2025-01-01\n- todo: call\n",
	".obsidian/workspace.json":  `{"TODO": true}`,
	".trash/old.md":             "TODO deleted\n",
	".git/config":               "TODO git\n",
	".claude/notes.md":          "TODO claude\n",
	"image.png":                 "\x89PNG TODO",
	"blob.md":                   "TODO\x00binary",
}

func TestGrep(t *testing.T) {
	v := newTestVault(t, grepVault)
	tests := []struct {
		name string
		q    GrepQuery
		want []string
	}{
		{"literal, case-sensitive", GrepQuery{Query: "TODO", CaseSensitive: true}, []string{
			"Projects/Beta.md:3: TODO later",
			"Projects/notes.txt:1: plain text TODO",
			"Welcome.md:3: TODO: write more",
		}},
		{"literal, case-insensitive", GrepQuery{Query: "todo"}, []string{
			"Daily Notes/2025-01-01.md:2: - todo: call",
			"Projects/Alpha.md:5: Status: todo",
			"Projects/Beta.md:3: TODO later",
			"Projects/notes.txt:1: plain text TODO",
			"Welcome.md:3: TODO: write more",
		}},
		{"regex anchored", GrepQuery{Query: `^status:`, Regex: true, CaseSensitive: true}, []string{
			"Projects/Beta.md:2: status: done",
		}},
		{"regex $ before CRLF", GrepQuery{Query: `done$`, Regex: true}, []string{
			"Projects/Beta.md:2: status: done",
		}},
		{"regex case-insensitive", GrepQuery{Query: `^status: (todo|done)`, Regex: true}, []string{
			"Projects/Alpha.md:5: Status: todo",
			"Projects/Beta.md:2: status: done",
		}},
		{"folder", GrepQuery{Query: "todo", Path: "Projects"}, []string{
			"Projects/Alpha.md:5: Status: todo",
			"Projects/Beta.md:3: TODO later",
			"Projects/notes.txt:1: plain text TODO",
		}},
		{"one file", GrepQuery{Query: "todo", Path: "Projects/Beta.md"}, []string{
			"Projects/Beta.md:3: TODO later",
		}},
		{"include by name", GrepQuery{Query: "todo", Include: "*.MD"}, []string{
			"Daily Notes/2025-01-01.md:2: - todo: call",
			"Projects/Alpha.md:5: Status: todo",
			"Projects/Beta.md:3: TODO later",
			"Welcome.md:3: TODO: write more",
		}},
		{"include by path relative to the folder", GrepQuery{Query: "todo", Path: "Projects", Include: "B*.md"}, []string{
			"Projects/Beta.md:3: TODO later",
		}},
		{"skipped folder named directly", GrepQuery{Query: "todo", Path: ".obsidian"}, []string{
			`.obsidian/workspace.json:1: {"TODO": true}`,
		}},
		{"no match", GrepQuery{Query: "nowhere to be found"}, nil},
		{"context", GrepQuery{Query: "alpha", Context: 1, CaseSensitive: true}, []string{
			"Projects/Alpha.md-5- Status: todo",
			"Projects/Alpha.md:6: The alpha project.",
		}},
	}
	for name, e := range engines(t, v) {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				res, got := grepLines(t, e, tt.q)
				if !slices.Equal(got, tt.want) {
					t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
				}
				matches := 0
				for _, l := range res.Lines {
					if l.Match {
						matches++
					}
				}
				if res.Shown != matches || res.Total != res.Shown {
					t.Errorf("shown %d total %d, want %d", res.Shown, res.Total, matches)
				}
				if name != "disk" && tt.q.Path != ".obsidian" && tt.q.Path != "Projects/Beta.md" && !res.FromMemory {
					t.Errorf("searched the disk, want memory")
				}
			})
		}
	}
}

// TestGrepOtherFilesFollowGeneration: the files grep reads from disk
// because the source does not hold their text are remembered for one
// generation of the source, and listed again when it changes.
func TestGrepOtherFilesFollowGeneration(t *testing.T) {
	v := newTestVault(t, map[string]string{"a.md": "needle\n", "sub/b.txt": "needle\n", "c.png": "needle"})
	m := loadTexts(t, v)
	src := generational{notesAndFiles{notesOnly{m}}, new(atomic.Uint64)}
	e := New(v, Options{Texts: src})
	grep := func(path string) []string {
		t.Helper()
		_, got := grepLines(t, e, GrepQuery{Query: "needle", Path: path})
		return got
	}
	want := []string{"a.md:1: needle", "sub/b.txt:1: needle"}
	if got := grep(""); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := grep("sub"); !slices.Equal(got, want[1:]) {
		t.Errorf("in sub: got %q, want %q", got, want[1:])
	}

	// A new file the source lists: unseen until the generation changes.
	writeFile(t, v.Root(), "d.txt", "needle\n")
	m.files["d.txt"] = nil
	if got := grep(""); !slices.Equal(got, want) {
		t.Errorf("same generation: got %q, want %q", got, want)
	}
	src.gen.Add(1)
	want = append(want, "d.txt:1: needle")
	slices.Sort(want)
	if got := grep(""); !slices.Equal(got, want) {
		t.Errorf("next generation: got %q, want %q", got, want)
	}

	// A file that becomes a held text is searched once, from memory.
	m.files["d.txt"] = []byte("needle in memory\n")
	src.gen.Add(1)
	want = []string{"a.md:1: needle", "d.txt:1: needle in memory", "sub/b.txt:1: needle"}
	if got := grep(""); !slices.Equal(got, want) {
		t.Errorf("held: got %q, want %q", got, want)
	}
}

func TestGrepContextGroups(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "line %d", i)
		if i == 3 || i == 5 || i == 15 {
			b.WriteString(" hit")
		}
		b.WriteString("\n")
	}
	v := newTestVault(t, map[string]string{"a.md": b.String(), "b.md": "hit\nafter\n"})
	for name, e := range engines(t, v) {
		_, got := grepLines(t, e, GrepQuery{Query: "hit", Context: 2})
		want := []string{
			"a.md-1- line 1", "a.md-2- line 2", "a.md:3: line 3 hit", "a.md-4- line 4", "a.md:5: line 5 hit",
			"a.md-6- line 6", "a.md-7- line 7",
			"--", "a.md-13- line 13", "a.md-14- line 14", "a.md:15: line 15 hit", "a.md-16- line 16", "a.md-17- line 17",
			"--", "b.md:1: hit", "b.md-2- after",
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: got\n  %s\nwant\n  %s", name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
}

func TestGrepLimit(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 30; i++ {
		files[fmt.Sprintf("n%02d.md", i)] = strings.Repeat("match me\n", 25)
	}
	v := newTestVault(t, files)
	for name, e := range engines(t, v) {
		res, got := grepLines(t, e, GrepQuery{Query: "match", Limit: 100})
		if res.Shown != 100 || len(got) != 100 || res.Total != 750 || res.Files != 30 {
			t.Fatalf("%s: shown %d (%d lines), total %d in %d files; want 100, 750 in 30", name, res.Shown, len(got), res.Total, res.Files)
		}
		// The first 100 in path order: all of n00..n03.
		if got[0] != "n00.md:1: match me" || got[99] != "n03.md:25: match me" {
			t.Errorf("%s: first %q, last %q", name, got[0], got[99])
		}
		res, _ = grepLines(t, e, GrepQuery{Query: "match"})
		if res.Shown != DefaultGrepLimit || res.Total != 750 {
			t.Errorf("%s: default limit shows %d of %d", name, res.Shown, res.Total)
		}
	}
}

func TestGrepLongLine(t *testing.T) {
	long := strings.Repeat("a", 5000) + "NEEDLE" + strings.Repeat("é", 3000)
	v := newTestVault(t, map[string]string{"long.md": long})
	e := New(v, Options{})
	_, got := grepLines(t, e, GrepQuery{Query: "needle"})
	if len(got) != 1 {
		t.Fatalf("got %q", got)
	}
	line := got[0]
	if !strings.Contains(line, "NEEDLE") || !strings.Contains(line, "…") || len(line) > 2*maxLineBytes {
		t.Errorf("long line shown as %q (%d bytes)", line, len(line))
	}
	if !strings.HasPrefix(line, "long.md:1: …") || !strings.HasSuffix(line, "…") {
		t.Errorf("cuts not marked: %q", line)
	}
}

func TestGrepBadInput(t *testing.T) {
	v := newTestVault(t, grepVault)
	outside := filepath.Join(filepath.Dir(v.Root()), "outside.md")
	if err := os.WriteFile(outside, []byte("TODO outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := New(v, Options{})
	tests := []struct {
		q    GrepQuery
		kind error
		want string
	}{
		{GrepQuery{Query: "(", Regex: true}, vault.ErrInvalidInput, "invalid regular expression"},
		{GrepQuery{Query: ""}, vault.ErrInvalidInput, "query is empty"},
		{GrepQuery{Query: "x", Include: "[a"}, vault.ErrInvalidInput, "invalid include_pattern"},
		{GrepQuery{Query: "x", Path: "../"}, vault.ErrOutside, "outside the vault"},
		{GrepQuery{Query: "x", Path: outside}, vault.ErrOutside, "outside the vault"},
		{GrepQuery{Query: "x", Path: ".git"}, vault.ErrHidden, "hidden"},
		{GrepQuery{Query: "x", Path: "Nope"}, vault.ErrNotFound, "not found"},
	}
	for _, tt := range tests {
		_, err := e.Grep(context.Background(), tt.q)
		if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %v mentioning %q", tt.q, err, tt.kind, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), v.Root()) {
			t.Errorf("error %q shows the vault's absolute path", err)
		}
	}
}

func TestGrepSymlinkNotFollowed(t *testing.T) {
	v := newTestVault(t, map[string]string{"in.md": "secret inside\n"})
	outside := filepath.Join(filepath.Dir(v.Root()), "outside")
	writeFile(t, outside, "secret.md", "secret outside\n")
	for _, link := range []struct{ name, target string }{
		{"link.md", filepath.Join(outside, "secret.md")},
		{"linkdir", outside},
	} {
		if err := os.Symlink(link.target, filepath.Join(v.Root(), link.name)); err != nil {
			t.Fatal(err)
		}
	}
	for name, e := range engines(t, v) {
		_, got := grepLines(t, e, GrepQuery{Query: "secret"})
		if !slices.Equal(got, []string{"in.md:1: secret inside"}) {
			t.Errorf("%s: got %q", name, got)
		}
	}
}

func TestGrepEmptyVault(t *testing.T) {
	v := newTestVault(t, nil)
	for name, e := range engines(t, v) {
		res, got := grepLines(t, e, GrepQuery{Query: "x"})
		if len(got) != 0 || res.Total != 0 || res.Searched != 0 {
			t.Errorf("%s: %+v", name, res)
		}
	}
}

func TestGrepSeesChanges(t *testing.T) {
	v := newTestVault(t, map[string]string{"a.md": "alpha\n", "gone.md": "alpha too\n"})
	e := New(v, Options{})
	if _, got := grepLines(t, e, GrepQuery{Query: "alpha"}); len(got) != 2 {
		t.Fatalf("got %q", got)
	}
	// Same size, written at once: the cached copy is racy and re-read.
	writeFile(t, v.Root(), "a.md", "gamma\n")
	if err := os.Remove(filepath.Join(v.Root(), "gone.md")); err != nil {
		t.Fatal(err)
	}
	if _, got := grepLines(t, e, GrepQuery{Query: "alpha"}); len(got) != 0 {
		t.Errorf("stale cache: %q", got)
	}
	// An old file whose mtime moves on is re-read too.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(v.Root(), "a.md"), old, old); err != nil {
		t.Fatal(err)
	}
	grepLines(t, e, GrepQuery{Query: "gamma"})
	writeFile(t, v.Root(), "a.md", "delta\n")
	if _, got := grepLines(t, e, GrepQuery{Query: "delta"}); len(got) != 1 {
		t.Errorf("changed file not re-read: %q", got)
	}
	if e.content.bytes != int64(len("delta\n")) {
		t.Errorf("cache holds %d bytes after a sweep, want %d", e.content.bytes, len("delta\n"))
	}
}

func TestGrepTextsNotReady(t *testing.T) {
	v := newTestVault(t, map[string]string{"a.md": "alpha\n"})
	texts := loadTexts(t, v)
	texts.ready = false
	e := New(v, Options{Texts: texts})
	res, got := grepLines(t, e, GrepQuery{Query: "alpha"})
	if res.FromMemory || len(got) != 1 {
		t.Errorf("from memory %v, lines %q", res.FromMemory, got)
	}
}

// Offset pages through the matches in path order, each engine alike;
// FilesOnly counts matches per file instead of returning lines.
func TestGrepOffsetAndFilesOnly(t *testing.T) {
	v := newTestVault(t, map[string]string{
		"a.md":   "x1\nskip\nx2\nx3\n",
		"b/c.md": "x4\n",
		"d.md":   "x5\nx6\n",
		"e.md":   "none\n",
	})
	for name, e := range engines(t, v) {
		var joined []string
		for offset := 0; offset < 8; offset += 2 {
			res, lines := grepLines(t, e, GrepQuery{Query: "x", Offset: offset, Limit: 2})
			if res.Total != 6 || res.Files != 3 || res.Shown != len(lines) {
				t.Errorf("%s offset %d: total %d in %d files, shown %d of %d lines", name, offset, res.Total, res.Files, res.Shown, len(lines))
			}
			joined = append(joined, lines...)
		}
		want := []string{"a.md:1: x1", "a.md:3: x2", "a.md:4: x3", "b/c.md:1: x4", "d.md:1: x5", "d.md:2: x6"}
		if !slices.Equal(joined, want) {
			t.Errorf("%s: pages joined %q, want %q", name, joined, want)
		}
		// Context stops short of the first match after the page.
		_, lines := grepLines(t, e, GrepQuery{Query: "x", Offset: 1, Limit: 1, Context: 1})
		if want := []string{"a.md-2- skip", "a.md:3: x2"}; !slices.Equal(lines, want) {
			t.Errorf("%s: offset with context = %q, want %q", name, lines, want)
		}
		res, err := e.Grep(context.Background(), GrepQuery{Query: "x", FilesOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if want := []FileCount{{"a.md", 3}, {"b/c.md", 1}, {"d.md", 2}}; !slices.Equal(res.Counts, want) || len(res.Lines) != 0 || res.Total != 6 {
			t.Errorf("%s: FilesOnly = %+v, %d lines, total %d", name, res.Counts, len(res.Lines), res.Total)
		}
	}
}

// A query too long or too large once compiled is refused before it is
// compiled, with the limit in the message: a 3.5 MB literal took 4.7 s
// and some 480 MB to compile, and `[ab]{0,1000}` written 340 times (4 KB)
// compiles to 680,000 instructions.
func TestGrepQueryBounded(t *testing.T) {
	v := newTestVault(t, grepVault)
	e := New(v, Options{})
	huge := strings.Repeat("x", 3_500_000)
	for _, c := range []struct {
		name string
		q    GrepQuery
		want string
	}{
		{"huge literal", GrepQuery{Query: huge}, "query is 3,500,000 characters long; the limit is 4,096"},
		{"huge regexp", GrepQuery{Query: huge, Regex: true}, "query is 3,500,000 characters long; the limit is 4,096"},
		{"one past the limit", GrepQuery{Query: strings.Repeat("é", pattern.MaxQuery+1)}, "query is 4,097 characters long; the limit is 4,096"},
		{"large program", GrepQuery{Query: strings.Repeat("[ab]{0,1000}", 340), Regex: true},
			"regular expression is too large once compiled: about 680,342 instructions; the limit is 10,000"},
		{"nested repeats", GrepQuery{Query: "(a{1000}){1000}", Regex: true}, "nested repeats multiply"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.Grep(context.Background(), c.q)
			if !errors.Is(err, vault.ErrInvalidInput) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %.300v, want invalid input saying %q", err, c.want)
			}
		})
	}
	// At the limits, a search runs.
	for _, q := range []GrepQuery{
		{Query: "TODO" + strings.Repeat("é", pattern.MaxQuery-4)},
		{Query: "TODO" + strings.Repeat("x?", (pattern.MaxQuery-4)/2), Regex: true},
		{Query: `TODO\w{0,1000}`, Regex: true},
	} {
		if _, err := e.Grep(context.Background(), q); err != nil {
			t.Errorf("%.30q: %v", q.Query, err)
		}
	}
}

// find_files' name is a substring when it has no glob characters, and
// bounded all the same.
func TestFindNameBounded(t *testing.T) {
	v := newTestVault(t, grepVault)
	_, err := New(v, Options{}).Find(context.Background(), FindQuery{Name: strings.Repeat("x", 3_500_000), MaxSize: -1})
	if !errors.Is(err, vault.ErrInvalidInput) || !strings.Contains(err.Error(), "name is 3,500,000 characters long; the limit is 1,024") {
		t.Fatalf("err = %v", err)
	}
}
