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

func TestRecentKindsAndDiffs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	record(t, r, "write notes/daily.md", "notes/daily.md", "# Daily Note 2026-02-08\n- Meeting at 10am\n- Review PRs\n")
	record(t, r, "edit notes/daily.md", "notes/daily.md", "# Daily Note 2026-02-08\n- Meeting at 11am\n- Review PRs\n")
	os.MkdirAll(filepath.Join(dir, "archive"), 0o755)
	os.Rename(filepath.Join(dir, "notes/daily.md"), filepath.Join(dir, "archive/daily.md"))
	if _, err := r.Commit(context.Background(), "rename notes/daily.md -> archive/daily.md", []string{"notes/daily.md", "archive/daily.md"}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "archive/daily.md"))
	if _, err := r.Commit(context.Background(), "delete archive/daily.md", []string{"archive/daily.md"}); err != nil {
		t.Fatal(err)
	}

	got, err := r.Recent(context.Background(), 10, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		msg   string
		file  FileChange
		lines []string
	}{
		{"MCP: delete archive/daily.md", FileChange{Path: "archive/daily.md", Kind: Deleted},
			[]string{"-# Daily Note 2026-02-08", "-- Meeting at 11am", "-- Review PRs"}},
		{"MCP: rename notes/daily.md -> archive/daily.md", FileChange{Path: "archive/daily.md", OldPath: "notes/daily.md", Kind: Renamed}, nil},
		{"MCP: edit notes/daily.md", FileChange{Path: "notes/daily.md", Kind: Modified},
			[]string{"-- Meeting at 10am", "+- Meeting at 11am"}},
		{"MCP: write notes/daily.md", FileChange{Path: "notes/daily.md", Kind: Added},
			[]string{"+# Daily Note 2026-02-08", "+- Meeting at 10am", "+- Review PRs"}},
	}
	if len(got) != len(want) {
		t.Fatalf("%d commits, want %d: %+v", len(got), len(want), got)
	}
	hashes := strings.Split(git(t, dir, "log", "--format=%h %H"), "\n")
	for i, w := range want {
		c := got[i]
		if c.Message != w.msg {
			t.Errorf("commit %d message %q, want %q", i, c.Message, w.msg)
		}
		if hashes[i] != c.Hash+" "+c.FullHash {
			t.Errorf("commit %d hash %s %s, git log says %s", i, c.Hash, c.FullHash, hashes[i])
		}
		if c.Time.IsZero() || c.Author != "vaultmcp" {
			t.Errorf("commit %d time/author: %v %q", i, c.Time, c.Author)
		}
		if len(c.Files) != 1 {
			t.Fatalf("commit %d files: %+v", i, c.Files)
		}
		f := c.Files[0]
		if f.Path != w.file.Path || f.OldPath != w.file.OldPath || f.Kind != w.file.Kind || f.Truncated != 0 {
			t.Errorf("commit %d file %+v, want %+v", i, f, w.file)
		}
		if !slices.Equal(f.Lines, w.lines) {
			t.Errorf("commit %d lines %q, want %q", i, f.Lines, w.lines)
		}
	}
}

func TestRecentTruncatesLongDiffs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	var b strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	record(t, r, "write long.md", "long.md", b.String())
	record(t, r, "edit long.md", "long.md", strings.ReplaceAll(b.String(), "line", "LINE"))
	got, err := r.Recent(context.Background(), 2, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range got {
		f := c.Files[0]
		total := 100
		if f.Kind == Modified {
			total = 200
		}
		if len(f.Lines) != MaxDiffLines || f.Truncated != total-MaxDiffLines {
			t.Errorf("%s: %d lines, %d truncated; want %d and %d", c.Message, len(f.Lines), f.Truncated, MaxDiffLines, total-MaxDiffLines)
		}
	}
	if got[0].Files[0].Lines[0] != "-line 0" {
		t.Errorf("first diff line %q", got[0].Files[0].Lines[0])
	}
}

func TestRecentBinaryAndCount(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	record(t, r, "write img.png", "img.png", "\x89PNG\x00\x01\x02")
	for i := 0; i < 12; i++ {
		record(t, r, "write n.md", "n.md", fmt.Sprintf("v%d\n", i))
	}
	got, err := r.Recent(context.Background(), 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != DefaultRecent {
		t.Errorf("n=0 gave %d commits, want %d", len(got), DefaultRecent)
	}
	got, _ = r.Recent(context.Background(), 20, "img.png")
	if len(got) != 1 || !got[0].Files[0].Binary || len(got[0].Files[0].Lines) != 0 {
		t.Errorf("binary file change: %+v", got)
	}
}

func TestRecentPathFilterMatchesGitLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	for i := 0; i < 60; i++ {
		rel := fmt.Sprintf("f%d/n%d.md", i%3, i%7)
		record(t, r, "write "+rel, rel, fmt.Sprintf("v%d\n", i))
	}
	// A commit touching two files: only the asked one is listed.
	writeFile(t, dir, "f0/n0.md", "both 1\n")
	writeFile(t, dir, "f1/n1.md", "both 2\n")
	if _, err := r.Commit(context.Background(), "edit two", []string{"f0/n0.md", "f1/n1.md"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"f0/n0.md", "f1/n3.md", "f2", "missing.md"} {
		got, err := r.Recent(context.Background(), 20, p)
		if err != nil {
			t.Fatal(err)
		}
		var hashes []string
		for _, c := range got {
			hashes = append(hashes, c.Hash)
			for _, f := range c.Files {
				if f.Path != p && !strings.HasPrefix(f.Path, p+"/") {
					t.Errorf("path %s: commit %s lists %s", p, c.Message, f.Path)
				}
			}
		}
		want := git(t, dir, "log", "-20", "--format=%h", "--", p)
		if strings.Join(hashes, "\n") != want {
			t.Errorf("path %s: got\n%s\nwant (git log)\n%s", p, strings.Join(hashes, "\n"), want)
		}
	}
	if _, err := r.Recent(context.Background(), 5, "../x"); err == nil {
		t.Error("a path outside the vault was accepted")
	}
}

func TestRecentListsMergesWithoutFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir})
	record(t, r, "write a.md", "a.md", "a\n")
	git(t, dir, "checkout", "-q", "-b", "side")
	writeFile(t, dir, "b.md", "b\n")
	git(t, dir, "add", "b.md")
	git(t, dir, "commit", "-q", "-m", "side b")
	git(t, dir, "checkout", "-q", "main")
	writeFile(t, dir, "c.md", "c\n")
	git(t, dir, "add", "c.md")
	git(t, dir, "commit", "-q", "-m", "main c")
	git(t, dir, "merge", "-q", "--no-edit", "side")
	got, err := r.Recent(context.Background(), 10, "")
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, c := range got {
		msgs = append(msgs, c.Message)
	}
	want := strings.Split(git(t, dir, "log", "--format=%s"), "\n")
	if !slices.Equal(msgs, want) {
		t.Errorf("order %q, git log %q", msgs, want)
	}
	if !got[0].Merge || len(got[0].Files) != 0 {
		t.Errorf("merge commit: %+v", got[0])
	}
	// The path filter follows the side branch too.
	got, _ = r.Recent(context.Background(), 10, "b.md")
	if len(got) != 1 || got[0].Message != "side b" {
		t.Errorf("b.md history: %+v", got)
	}
}
