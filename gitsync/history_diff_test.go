package gitsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitHunks returns the hunk part of `git diff` output (from the first @@).
func gitHunks(out string) []string {
	var lines []string
	body := false
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "@@") {
			body = true
		}
		if body && !strings.HasPrefix(l, "diff --git") {
			lines = append(lines, l)
		}
	}
	return lines
}

func TestDiffNoteAcrossRenames(t *testing.T) {
	t.Parallel()
	r, p := buildRenamedNote(t)
	ctx := context.Background()
	dir := r.Dir()
	hist := strings.Split(git(t, dir, "log", "--follow", "--format=%h", "--", p), "\n")
	first := hist[len(hist)-1]
	d, err := r.Diff(ctx, DiffOptions{Path: p, From: first})
	if err != nil {
		t.Fatal(err)
	}
	if d.Path != p || d.FromPath != "notes/plan.md" || d.Total != 1 || d.From.Hash != first || !d.To.Head {
		t.Fatalf("diff header: %+v", d)
	}
	f := d.Files[0]
	if f.Kind != Renamed || f.OldPath != "notes/plan.md" || f.Added != 4 || f.Removed != 4 {
		t.Errorf("file: %+v", f)
	}
	// git diff with a pathspec cannot pair the two names; compare with
	// the content diff of the two versions.
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	os.WriteFile(a, []byte(git(t, dir, "show", first+":notes/plan.md")+"\n"), 0o644)
	os.WriteFile(b, []byte(git(t, dir, "show", "HEAD:"+p)+"\n"), 0o644)
	out, _ := gitErr(dir, "diff", "--no-index", a, b)
	want := gitHunks(out)
	if !slices.Equal(f.Lines, want) {
		t.Errorf("hunks differ from git diff:\n got %q\nwant %q", f.Lines, want)
	}

	// A version of the note against another, both named by HEAD~N.
	d, err = r.Diff(ctx, DiffOptions{Path: p, From: hist[2], To: hist[1]})
	if err != nil {
		t.Fatal(err)
	}
	if d.FromPath != "projects/plan.md" || d.Path != p || d.Files[0].Added != 1 || d.Files[0].Removed != 1 {
		t.Errorf("the CLI move: %+v", d)
	}
	// No change between equal versions.
	if d, err := r.Diff(ctx, DiffOptions{Path: p, From: "HEAD"}); err != nil || d.Total != 0 || len(d.Files) != 0 {
		t.Errorf("HEAD vs HEAD: %+v %v", d, err)
	}
	if _, err := r.Diff(ctx, DiffOptions{Path: "never.md", From: first}); err == nil {
		t.Error("a note that never existed gave a diff")
	}
	if _, err := r.Diff(ctx, DiffOptions{Path: p, From: "nonsense"}); err == nil || !strings.Contains(err.Error(), "from:") {
		t.Errorf("bad from: %v", err)
	}
}

func TestDiffWholeVault(t *testing.T) {
	t.Parallel()
	r, dir := clockRepo(t)
	ctx := context.Background()
	record(t, r, "write a.md", "a.md", noteLines(10, "a"))
	record(t, r, "write b.md", "b.md", noteLines(10, "b"))
	record(t, r, "write .claude/x.md", ".claude/x.md", "hidden\n")
	from := git(t, dir, "rev-parse", "HEAD")
	record(t, r, "edit a.md", "a.md", strings.Replace(noteLines(10, "a"), "a line 5", "a line five", 1))
	move(t, r, "b.md", "c.md")
	record(t, r, "write .claude/x.md", ".claude/x.md", "hidden 2\n")
	var long strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&long, "long %d\n", i)
	}
	record(t, r, "write long.md", "long.md", long.String())

	d, err := r.Diff(ctx, DiffOptions{From: from, Skip: func(p string) bool { return strings.HasPrefix(p, ".claude/") }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range d.Files {
		got = append(got, fmt.Sprintf("%s %s %s", f.Kind, f.OldPath, f.Path))
	}
	want := []string{"modified  a.md", "renamed b.md c.md", "added  long.md"}
	if !slices.Equal(got, want) || d.Total != 3 {
		t.Errorf("files %q (total %d), want %q", got, d.Total, want)
	}
	status := git(t, dir, "diff", "--name-status", "-M", from, "HEAD", "--", ".", ":!.claude")
	if !strings.Contains(status, "R100\tb.md\tc.md") || !strings.Contains(status, "M\ta.md") {
		t.Errorf("git disagrees: %s", status)
	}
	lf := d.Files[2]
	if len(lf.Lines) != MaxDiffLines || lf.Truncated != 201-MaxDiffLines || lf.Added != 200 {
		t.Errorf("long file: %d lines, %d truncated, +%d", len(lf.Lines), lf.Truncated, lf.Added)
	}
	if lf.Lines[0] != "@@ -0,0 +1,200 @@" {
		t.Errorf("long file hunk header %q", lf.Lines[0])
	}
	// Pages.
	p2, _ := r.Diff(ctx, DiffOptions{From: from, Limit: 1, Offset: 1, Skip: func(p string) bool { return strings.HasPrefix(p, ".claude/") }})
	if p2.Total != 3 || p2.Offset != 1 || len(p2.Files) != 1 || p2.Files[0].Path != "c.md" {
		t.Errorf("page: %+v", p2)
	}
	// The budget stops listing files but keeps the total.
	small, _ := r.Diff(ctx, DiffOptions{From: from, MaxBytes: 10})
	if small.Total != 4 || len(small.Files) != 1 {
		t.Errorf("budget: %d of %d files", len(small.Files), small.Total)
	}
}

// A note diff stays within its budget, cutting within the file, and cuts
// lines longer than MaxLineBytes.
func TestDiffNoteBudget(t *testing.T) {
	t.Parallel()
	r, _ := clockRepo(t)
	ctx := context.Background()
	para := func(n int, word string) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%d %s\n", i, strings.Repeat(word+" ", 400))
		}
		return b.String()
	}
	record(t, r, "write long.md", "long.md", para(100, "alpha"))
	record(t, r, "edit long.md", "long.md", para(100, "beta"))
	cases := []struct {
		budget     int
		overBudget bool
	}{{0, false}, {20 << 10, true}, {2000, true}}
	for _, c := range cases {
		d, err := r.Diff(ctx, DiffOptions{Path: "long.md", From: "HEAD~1", MaxBytes: c.budget})
		if err != nil {
			t.Fatal(err)
		}
		f := d.Files[0]
		size := 0
		for _, l := range f.Lines {
			size += len(l) + 1
			if len(l) > MaxLineBytes+len("…") {
				t.Fatalf("a line of %d bytes", len(l))
			}
		}
		if f.OverBudget != c.overBudget || (c.budget > 0 && size > c.budget) || len(f.Lines)+f.Truncated < MaxDiffLines {
			t.Errorf("budget %d: %d lines (%d bytes), %d cut, over budget %v", c.budget, len(f.Lines), size, f.Truncated, f.OverBudget)
		}
	}
}
