package gitsync

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestResolveVersion(t *testing.T) {
	t.Parallel()
	r, dir := clockRepo(t)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		record(t, r, "write n.md", "n.md", strings.Repeat("x", i+1)+"\n")
	}
	hashes := strings.Split(git(t, dir, "log", "--format=%H"), "\n")
	times := strings.Split(git(t, dir, "log", "--format=%cI"), "\n")
	t2, _ := time.Parse(time.RFC3339, times[2])
	cases := []struct {
		spec string
		want int // index in git log
	}{
		{"HEAD", 0}, {"head", 0}, {"@", 0}, {"HEAD~0", 0}, {"HEAD~2", 2}, {"HEAD^", 1}, {"HEAD^^", 2}, {"HEAD~1^1~1", 3},
		{hashes[3], 3}, {hashes[3][:7], 3}, {strings.ToUpper(hashes[1][:10]), 1}, {hashes[1][:7] + "~2", 3},
		// As of: the commit time itself, a second before the next, a zone.
		{t2.Format(time.RFC3339), 2},
		{t2.Add(59 * time.Second).UTC().Format("2006-01-02T15:04:05"), 2},
		{t2.In(time.FixedZone("", 2*3600)).Format("2006-01-02T15:04:05-07:00"), 2},
		{"2030-01-01", 0},
		{"now", 0}, {"tomorrow", 0}, {"0d", 0},
		{" HEAD~1 ", 1},
	}
	for _, c := range cases {
		v, err := r.ResolveVersion(ctx, c.spec)
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		if v.FullHash != hashes[c.want] || v.Hash != hashes[c.want][:7] || v.Head != (c.want == 0) || v.Spec != c.spec {
			t.Errorf("%q resolved to %s (head %v), want %s", c.spec, v.FullHash, v.Head, hashes[c.want])
		}
	}
	errs := []struct{ spec, says string }{
		{"", "empty"},
		{"HEAD~5", "further than the history"},
		{"HEAD^2", "has 1 parent"},
		{"last fortnight", "not understood"},
		{"abc", "not understood"}, // too short for a prefix
		{"0000000", "no commit starting with 0000000"},
		{"2024-13-01", "not a valid date"},
		{"2023-12-31", "history starts at"},
		{"HEAD~x", "not understood"},
		{"2024-01-01T25:00", "not a date"},
	}
	for _, e := range errs {
		_, err := r.ResolveVersion(ctx, e.spec)
		if err == nil || !strings.Contains(err.Error(), e.says) {
			t.Errorf("%q: error %v, want one saying %q", e.spec, err, e.says)
		}
	}
}

func TestFileAtFollowsRenames(t *testing.T) {
	t.Parallel()
	r, p := buildRenamedNote(t)
	ctx := context.Background()
	dir := r.Dir()
	// The first version, when the note was notes/plan.md.
	all := strings.Split(git(t, dir, "log", "--follow", "--format=%h", "--", p), "\n")
	first := all[len(all)-1]
	f, err := r.FileAt(ctx, first, p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != "notes/plan.md" || string(f.Content) != noteLines(20, "plan") || f.Version.Hash != first || f.Truncated {
		t.Errorf("first version: path %s, version %s, %q", f.Path, f.Version.Hash, f.Content)
	}
	// The same path at HEAD is the new note that took the old name.
	f, err = r.FileAt(ctx, "HEAD", "notes/plan.md", 0)
	if err != nil || string(f.Content) != "a new note at the old name\n" || f.Path != "notes/plan.md" {
		t.Errorf("notes/plan.md at HEAD: %+v %v", f, err)
	}
	// Cut at maxBytes.
	f, err = r.FileAt(ctx, "HEAD", p, 10)
	if err != nil || len(f.Content) != 10 || !f.Truncated || f.Size <= 10 {
		t.Errorf("cut: %d bytes of %d, truncated %v, %v", len(f.Content), f.Size, f.Truncated, err)
	}
	// Before the note existed; a folder; outside.
	if _, err := r.FileAt(ctx, first, "other.md", 0); !errors.Is(err, ErrNotInVersion) {
		t.Errorf("before it existed: %v", err)
	}
	if _, err := r.FileAt(ctx, "HEAD", "archive", 0); err == nil || !strings.Contains(err.Error(), "folder") {
		t.Errorf("a folder: %v", err)
	}
	if _, err := r.FileAt(ctx, "HEAD", "../x", 0); err == nil {
		t.Error("outside accepted")
	}
}
