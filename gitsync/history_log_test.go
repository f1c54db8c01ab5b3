package gitsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestLogRenameWithSmallEditIsARename(t *testing.T) {
	t.Parallel()
	r, dir := clockRepo(t)
	ctx := context.Background()
	record(t, r, "write old.md", "old.md", noteLines(30, "note"))
	// Moved and edited in one commit, as Obsidian plus obsidian-git do.
	os.Remove(filepath.Join(dir, "old.md"))
	writeFile(t, dir, "new/name.md", strings.Replace(noteLines(30, "note"), "note line 7", "note line seven", 1))
	cliCommit(t, dir, "vault backup", clockStart.Add(time.Hour))
	l, err := r.Log(ctx, LogOptions{Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := l.Commits[0]
	if len(c.Files) != 1 || c.FileCount != 1 {
		t.Fatalf("files: %+v", c.Files)
	}
	f := c.Files[0]
	if f.Kind != Renamed || f.OldPath != "old.md" || f.Path != "new/name.md" ||
		strings.Join(f.Lines, "|") != "-note line 7|+note line seven" || f.Added != 1 || f.Removed != 1 {
		t.Errorf("rename with an edit: %+v", f)
	}
	if st := git(t, dir, "show", "-M", "--name-status", "--format=", "HEAD"); !strings.HasPrefix(st, "R0") && !strings.HasPrefix(st, "R9") {
		t.Errorf("git sees %q", st)
	}
	// A wholly different file is not a rename.
	os.Remove(filepath.Join(dir, "new/name.md"))
	writeFile(t, dir, "unrelated.md", noteLines(30, "other text entirely"))
	cliCommit(t, dir, "replace", clockStart.Add(2*time.Hour))
	l, _ = r.Log(ctx, LogOptions{Count: 1})
	if fs := l.Commits[0].Files; len(fs) != 2 || fs[0].Kind != Deleted || fs[1].Kind != Added {
		t.Errorf("unrelated add and delete: %+v", fs)
	}
}

func TestLogFiltersPagesAndBudget(t *testing.T) {
	t.Parallel()
	r, dir := clockRepo(t)
	ctx := context.Background()
	for i := 0; i < 6; i++ {
		record(t, r, fmt.Sprintf("write n%d.md", i), fmt.Sprintf("n%d.md", i), noteLines(5, fmt.Sprint("n", i)))
	}
	writeFile(t, dir, "laptop.md", "from the laptop\n")
	cliCommit(t, dir, "laptop edit", clockStart.Add(3*time.Hour))
	for i := 0; i < 3; i++ {
		record(t, r, fmt.Sprintf("edit n%d.md", i), fmt.Sprintf("n%d.md", i), "changed\n")
	}

	all, err := r.Log(ctx, LogOptions{Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total != 10 || len(all.Commits) != 3 || all.Commits[0].Message != "MCP: edit n2.md" {
		t.Errorf("first page: total %d, %d commits", all.Total, len(all.Commits))
	}
	c := all.Commits[0]
	if c.Email != "vaultmcp@localhost" || c.Author != "vaultmcp" || c.Time.Location() == nil {
		t.Errorf("author fields: %+v", c)
	}
	next, _ := r.Log(ctx, LogOptions{Count: 3, Offset: 3})
	if next.Total != 10 || next.Offset != 3 || next.Commits[0].Message != "laptop edit" {
		t.Errorf("second page: %+v", next.Commits[0])
	}
	if past, _ := r.Log(ctx, LogOptions{Count: 3, Offset: 20}); past.Total != 10 || len(past.Commits) != 0 {
		t.Errorf("past the end: %+v", past)
	}
	byLaptop, _ := r.Log(ctx, LogOptions{Author: "laptop@EXAMPLE"})
	if byLaptop.Total != 1 || byLaptop.Commits[0].Author != "Laptop" {
		t.Errorf("author filter: %+v", byLaptop)
	}
	since, _ := r.Log(ctx, LogOptions{Since: clockStart.Add(2 * time.Hour)})
	if since.Total != 1 {
		t.Errorf("since filter: %d commits, want the laptop's (ours are dated minutes after the start)", since.Total)
	}
	pathAndAuthor, _ := r.Log(ctx, LogOptions{Path: "n1.md", Author: "vaultmcp"})
	if pathAndAuthor.Total != 2 {
		t.Errorf("path and author: %d", pathAndAuthor.Total)
	}
	filesOnly, _ := r.Log(ctx, LogOptions{Count: 1, FilesOnly: true})
	if f := filesOnly.Commits[0].Files[0]; len(f.Lines) != 0 || f.Added != 1 || f.Removed != 5 {
		t.Errorf("files only: %+v", f)
	}

	// One commit of many files: its share of the budget lists what fits
	// and counts the rest; the commit after it still lists its file.
	for i := 0; i < 300; i++ {
		writeFile(t, dir, fmt.Sprintf("import/%03d.md", i), noteLines(40, fmt.Sprint("imported ", i)))
	}
	cliCommit(t, dir, "import", clockStart.Add(4*time.Hour))
	l, _ := r.Log(ctx, LogOptions{Count: 2, MaxBytes: 8000})
	imp := l.Commits[0]
	if imp.FileCount != 300 || len(imp.Files) == 0 || len(imp.Files) >= 300 {
		t.Errorf("budget: %d of %d files listed", len(imp.Files), imp.FileCount)
	}
	if len(l.Commits) != 2 || len(l.Commits[1].Files) != 1 || l.Commits[1].FileCount != 1 {
		t.Errorf("the commit after the large one: %+v", l.Commits[1])
	}
}

// The budget is charged per diff line: one file cannot take the answer
// past it, long lines are cut, one commit spends at most its share (half
// of what is left, or an even part if that is more), and once the diff
// lines are spent later files (of later commits too) are listed with
// their counts, until the whole budget is spent.
func TestLogBudget(t *testing.T) {
	t.Parallel()
	long := func(n int, word string) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%d %s\n", i, strings.Repeat(word+" é ", 2000/len(word)))
		}
		return b.String()
	}
	cases := []struct {
		name     string
		build    func(t *testing.T, r *Repo, dir string)
		opts     LogOptions
		maxBytes int // of the rendered lines and names, all commits
		check    func(t *testing.T, l Log)
	}{{
		name: "one note of 100 long paragraphs rewritten",
		build: func(t *testing.T, r *Repo, dir string) {
			record(t, r, "write other.md", "other.md", "other\n")
			record(t, r, "write long.md", "long.md", long(100, "alpha"))
			record(t, r, "edit long.md", "long.md", long(100, "beta"))
		},
		opts: LogOptions{MaxBytes: 20 << 10}, maxBytes: 20 << 10,
		check: func(t *testing.T, l Log) {
			f := l.Commits[0].Files[0]
			if !f.OverBudget || f.Truncated == 0 || len(f.Lines) == 0 || len(f.Lines)+f.Truncated != 200 || f.Added != 100 || f.Removed != 100 {
				t.Errorf("the rewritten note: %d lines, %d cut, over budget %v, +%d -%d", len(f.Lines), f.Truncated, f.OverBudget, f.Added, f.Removed)
			}
			for _, line := range f.Lines {
				if len(line) > MaxLineBytes+len("…") || !strings.HasSuffix(line, "…") || !utf8.ValidString(line) {
					t.Fatalf("a long line kept as %d bytes: %q", len(line), line)
				}
			}
			// Later commits are not dropped: the rewrite spent only its
			// share, so they list their files, with what is left of the
			// diff budget.
			for _, c := range l.Commits[1:] {
				if len(c.Files) != c.FileCount || c.Files[0].Added == 0 {
					t.Errorf("%s: %+v", c.Message, c.Files)
				}
			}
		},
	}, {
		name: "a budget of one commit's worth",
		build: func(t *testing.T, r *Repo, dir string) {
			for i := 0; i < 12; i++ {
				record(t, r, fmt.Sprintf("write n%d.md", i), fmt.Sprintf("n%d.md", i), noteLines(60, fmt.Sprint("note ", i)))
			}
		},
		opts: LogOptions{Count: 12, MaxBytes: 4000}, maxBytes: 4000,
		check: func(t *testing.T, l Log) {
			if c := l.Commits[0].Files[0]; len(c.Lines) == 0 || c.CountsOnly {
				t.Errorf("newest commit: %+v", c)
			}
			last := l.Commits[len(l.Commits)-1]
			if len(last.Files) != 1 || !last.Files[0].CountsOnly || last.Files[0].Added != 60 {
				t.Errorf("oldest commit: %+v", last.Files)
			}
		},
	}, {
		name: "a large commit leaves room for the ones after it",
		build: func(t *testing.T, r *Repo, dir string) {
			for i := 0; i < 9; i++ {
				record(t, r, fmt.Sprintf("write n%d.md", i), fmt.Sprintf("n%d.md", i), noteLines(5, fmt.Sprint("note ", i)))
			}
			for i := 0; i < 1500; i++ {
				writeFile(t, dir, fmt.Sprintf("import/a-rather-long-folder-name/%04d.md", i), fmt.Sprintf("imported %d\n", i))
			}
			cliCommit(t, dir, "import", clockStart.Add(time.Hour))
		},
		opts: LogOptions{MaxBytes: 20 << 10}, maxBytes: 20<<10 + 200,
		check: func(t *testing.T, l Log) {
			if c := l.Commits[0]; c.FileCount != 1500 || len(c.Files) < 50 || len(c.Files) >= 1500 {
				t.Errorf("import: %d of %d files listed", len(c.Files), c.FileCount)
			}
			for _, c := range l.Commits[1:] {
				if len(c.Files) != 1 || len(c.Files[0].Lines) == 0 {
					t.Errorf("%s: %+v", c.Message, c.Files)
				}
			}
		},
	}, {
		name: "ten commits of forty files each all list some",
		build: func(t *testing.T, r *Repo, dir string) {
			for c := 0; c < 10; c++ {
				for i := 0; i < 40; i++ {
					writeFile(t, dir, fmt.Sprintf("batch%d/%02d.md", c, i), noteLines(5, fmt.Sprint("batch ", c, " note ", i)))
				}
				cliCommit(t, dir, fmt.Sprint("batch ", c), clockStart.Add(time.Duration(c)*time.Minute))
			}
		},
		opts: LogOptions{MaxBytes: 20 << 10}, maxBytes: 20<<10 + 200,
		check: func(t *testing.T, l Log) {
			for _, c := range l.Commits {
				if len(c.Files) < 5 {
					t.Errorf("%s: %d of %d files listed", c.Message, len(c.Files), c.FileCount)
				}
			}
		},
	}, {
		name: "names stop once the whole budget is spent",
		build: func(t *testing.T, r *Repo, dir string) {
			for i := 0; i < 400; i++ {
				writeFile(t, dir, fmt.Sprintf("import/a-rather-long-folder-name/%03d.md", i), fmt.Sprintf("imported %d\n", i))
			}
			cliCommit(t, dir, "import", clockStart.Add(time.Hour))
		},
		opts: LogOptions{MaxBytes: 8000}, maxBytes: 8000 + 200,
		check: func(t *testing.T, l Log) {
			c := l.Commits[0]
			if c.FileCount != 400 || len(c.Files) < 20 || len(c.Files) >= 400 || !c.Files[len(c.Files)-1].CountsOnly {
				t.Errorf("import: %d of %d files listed", len(c.Files), c.FileCount)
			}
		},
	}, {
		name: "files only ignores the diff budget",
		build: func(t *testing.T, r *Repo, dir string) {
			record(t, r, "write long.md", "long.md", long(100, "alpha"))
			record(t, r, "edit long.md", "long.md", long(100, "beta"))
		},
		opts: LogOptions{MaxBytes: 20 << 10, FilesOnly: true}, maxBytes: 1000,
		check: func(t *testing.T, l Log) {
			for _, c := range l.Commits {
				if f := c.Files[0]; f.CountsOnly || f.OverBudget || len(f.Lines) != 0 || f.Added != 100 {
					t.Errorf("%s: %+v", c.Message, f)
				}
			}
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, dir := clockRepo(t)
			c.build(t, r, dir)
			l, err := r.Log(context.Background(), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			size := 0
			for _, cm := range l.Commits {
				for _, f := range cm.Files {
					size += len(f.Path) + len(f.OldPath) + 30
					for _, line := range f.Lines {
						size += len(line) + 3
					}
				}
			}
			if size > c.maxBytes {
				t.Errorf("%d bytes of files and lines, want at most %d", size, c.maxBytes)
			}
			c.check(t, l)
		})
	}
}

// A commit's share counts only the commits the answer shows: the one
// commit a since filter leaves gets the whole budget, as it would alone.
func TestLogShareCountsOnlyTheCommitsShown(t *testing.T) {
	t.Parallel()
	r, dir := clockRepo(t)
	ctx := context.Background()
	for i := 0; i < 30; i++ {
		record(t, r, fmt.Sprintf("write n%d.md", i), fmt.Sprintf("n%d.md", i), "small\n")
	}
	for i := 0; i < 300; i++ {
		writeFile(t, dir, fmt.Sprintf("import/%03d.md", i), noteLines(10, fmt.Sprint("imported ", i)))
	}
	cliCommit(t, dir, "import", clockStart.Add(24*time.Hour))
	alone, err := r.Log(ctx, LogOptions{Count: 1, MaxBytes: 8000})
	if err != nil {
		t.Fatal(err)
	}
	since, err := r.Log(ctx, LogOptions{Since: clockStart.Add(23 * time.Hour), MaxBytes: 8000})
	if err != nil {
		t.Fatal(err)
	}
	if len(since.Commits) != 1 || len(since.Commits[0].Files) != len(alone.Commits[0].Files) {
		t.Errorf("since: %d commits, %d files listed; alone: %d files", len(since.Commits), len(since.Commits[0].Files), len(alone.Commits[0].Files))
	}
}

// A history with objects that cannot be read (a partial clone, a lost
// loose object, a shallow clone) still answers, with notices.
func TestHistoryWithUnreadableObjects(t *testing.T) {
	t.Parallel()
	r, dir := clockRepo(t)
	ctx := context.Background()
	record(t, r, "write a.md", "a.md", "first version of a\n")
	record(t, r, "write b.md", "b.md", "b\n")
	record(t, r, "edit a.md", "a.md", "second version of a\n")
	lost := git(t, dir, "rev-parse", "HEAD~2:a.md")
	obj := filepath.Join(dir, ".git", "objects", lost[:2], lost[2:])
	os.Chmod(obj, 0o644)
	if err := os.Remove(obj); err != nil {
		t.Fatal(err)
	}

	l, err := r.Log(ctx, LogOptions{})
	if err != nil {
		t.Fatalf("log with a lost blob: %v", err)
	}
	if len(l.Commits) != 3 {
		t.Fatalf("%d commits", len(l.Commits))
	}
	edit, write := l.Commits[0].Files[0], l.Commits[2].Files[0]
	if edit.Notice == "" || len(edit.Lines) != 0 || write.Notice == "" {
		t.Errorf("no notice for the lost blob: %+v / %+v", edit, write)
	}
	if b := l.Commits[1].Files[0]; b.Notice != "" || len(b.Lines) != 1 {
		t.Errorf("an intact file lost its diff: %+v", b)
	}
	if !strings.Contains(edit.Notice, "missing") || strings.Contains(edit.Notice, dir) {
		t.Errorf("notice %q", edit.Notice)
	}
	h, err := r.NoteHistory(ctx, NoteHistoryOptions{Path: "a.md"})
	if err != nil || h.Total != 2 || h.Versions[0].Notice == "" {
		t.Errorf("note history: %+v %v", h, err)
	}
	d, err := r.Diff(ctx, DiffOptions{From: "HEAD~2"})
	if err != nil || d.Files[0].Notice == "" {
		t.Errorf("diff: %+v %v", d, err)
	}
	if _, err := r.FileAt(ctx, "HEAD~2", "a.md", 0); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("reading the lost version: %v", err)
	}

	// A lost tree: that commit is listed without files.
	tree := git(t, dir, "rev-parse", "HEAD~1^{tree}")
	os.Remove(filepath.Join(dir, ".git", "objects", tree[:2], tree[2:]))
	fresh := openRepo(t, Options{Dir: dir}) // a cold cache
	l, err = fresh.Log(ctx, LogOptions{})
	if err != nil {
		t.Fatalf("log with a lost tree: %v", err)
	}
	if l.Commits[1].Notice == "" {
		t.Errorf("no notice for the lost tree: %+v", l.Commits[1])
	}

	// A shallow clone: the history stops, with a notice.
	shallow := filepath.Join(t.TempDir(), "shallow")
	src := t.TempDir()
	for i := 0; i < 5; i++ {
		writeFile(t, src, "n.md", fmt.Sprintf("v%d\n", i))
		if i == 0 {
			git(t, src, "init", "-q", "-b", "main")
		}
		cliCommit(t, src, fmt.Sprint("c", i), clockStart.Add(time.Duration(i)*time.Hour))
	}
	git(t, "", "clone", "-q", "--depth", "2", "file://"+src, shallow)
	sr := openRepo(t, Options{Dir: shallow})
	l, err = sr.Log(ctx, LogOptions{})
	if err != nil {
		t.Fatalf("shallow log: %v", err)
	}
	if l.Total != 2 || len(l.Notices) != 1 || !strings.Contains(l.Notices[0], "stops") {
		t.Errorf("shallow: %d commits, notices %q", l.Total, l.Notices)
	}
	if _, err := sr.ResolveVersion(ctx, "HEAD~3"); err == nil || !strings.Contains(err.Error(), "shallow") {
		t.Errorf("HEAD~3 in a shallow clone: %v", err)
	}
}
