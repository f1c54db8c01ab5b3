package gitsync

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// steppingClock returns a clock that moves a minute on every call, so
// each commit has its own time (git's resolution is a second).
func steppingClock(start time.Time) func() time.Time {
	var mu sync.Mutex
	t := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Minute)
		return t
	}
}

var clockStart = time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)

// clockRepo opens a repository in a new folder whose commits are a minute
// apart from 2024-01-01 10:00 UTC.
func clockRepo(t *testing.T) (*Repo, string) {
	t.Helper()
	dir := t.TempDir()
	return openRepo(t, Options{Dir: dir, Now: steppingClock(clockStart)}), dir
}

// move renames a file in the worktree and commits it as rename_file does.
func move(t *testing.T, r *Repo, from, to string) {
	t.Helper()
	dir := r.Dir()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(context.Background(), "rename "+from+" -> "+to, []string{from, to}); err != nil {
		t.Fatal(err)
	}
}

// cliCommit commits everything with the git CLI at a fixed date.
func cliCommit(t *testing.T, dir, msg string, when time.Time) {
	t.Helper()
	git(t, dir, "add", "-A")
	d := when.Format(time.RFC3339)
	cmd := []string{"-c", "user.name=Laptop", "-c", "user.email=laptop@example.com", "commit", "-q", "-m", msg}
	out, err := gitErrEnv(dir, []string{"GIT_AUTHOR_DATE=" + d, "GIT_COMMITTER_DATE=" + d}, cmd...)
	if err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
}

// gitErrEnv is gitErr with extra environment variables.
func gitErrEnv(dir string, extra []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(filepath.Join(os.TempDir(), "gitsync-test-home")), extra...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// noteLines is a note of n numbered lines.
func noteLines(n int, name string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", name, i)
	}
	return b.String()
}

// buildRenamedNote makes a history in which one note is written, edited,
// renamed by us (with link rewrites elsewhere in the same commit), edited,
// renamed with a small edit by the git CLI, and edited again; other notes
// change in between. It returns the final path.
func buildRenamedNote(t *testing.T) (*Repo, string) {
	t.Helper()
	r, dir := clockRepo(t)
	body := noteLines(20, "plan")
	record(t, r, "write notes/plan.md", "notes/plan.md", body)
	record(t, r, "write other.md", "other.md", "other\n")
	record(t, r, "edit notes/plan.md", "notes/plan.md", strings.Replace(body, "plan line 3", "plan line three", 1))
	record(t, r, "edit other.md", "other.md", "other 2\n")
	move(t, r, "notes/plan.md", "projects/plan.md")
	record(t, r, "edit projects/plan.md", "projects/plan.md",
		strings.Replace(strings.Replace(body, "plan line 3", "plan line three", 1), "plan line 10", "plan line ten", 1))
	// The CLI moves it with a small edit: git's rename detection.
	cur := readFile(t, dir, "projects/plan.md")
	os.Remove(filepath.Join(dir, "projects/plan.md"))
	writeFile(t, dir, "archive/plan-2024.md", strings.Replace(cur, "plan line 20", "plan line twenty", 1))
	cliCommit(t, dir, "archive the plan", clockStart.Add(time.Hour))
	record(t, r, "edit archive/plan-2024.md", "archive/plan-2024.md",
		strings.Replace(readFile(t, dir, "archive/plan-2024.md"), "plan line 1\n", "plan line one\n", 1))
	record(t, r, "write notes/plan.md", "notes/plan.md", "a new note at the old name\n")
	return r, "archive/plan-2024.md"
}

func TestNoteHistoryFollowsRenames(t *testing.T) {
	t.Parallel()
	r, p := buildRenamedNote(t)
	dir := r.Dir()
	h, err := r.NoteHistory(context.Background(), NoteHistoryOptions{Path: p})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(git(t, dir, "log", "--follow", "--format=%h", "--", p), "\n")
	var got []string
	for _, v := range h.Versions {
		got = append(got, v.Hash)
	}
	if !slices.Equal(got, want) || h.Total != len(want) {
		t.Fatalf("history of %s = %v (total %d), git log --follow = %v", p, got, h.Total, want)
	}
	kinds := []struct {
		kind          ChangeKind
		path, oldPath string
		added, remove int
	}{
		{Modified, "archive/plan-2024.md", "", 1, 1},
		{Renamed, "archive/plan-2024.md", "projects/plan.md", 1, 1},
		{Modified, "projects/plan.md", "", 1, 1},
		{Renamed, "projects/plan.md", "notes/plan.md", 0, 0},
		{Modified, "notes/plan.md", "", 1, 1},
		{Added, "notes/plan.md", "", 20, 0},
	}
	for i, k := range kinds {
		v := h.Versions[i]
		if v.Kind != k.kind || v.Path != k.path || v.OldPath != k.oldPath || v.Added != k.added || v.Removed != k.remove {
			t.Errorf("entry %d (%s): %s %s<-%q +%d -%d, want %s %s<-%q +%d -%d", i, v.Message,
				v.Kind, v.Path, v.OldPath, v.Added, v.Removed, k.kind, k.path, k.oldPath, k.added, k.remove)
		}
	}
	if h.Versions[1].Author != "Laptop" || h.Versions[0].Author != "vaultmcp" {
		t.Errorf("authors %q %q", h.Versions[1].Author, h.Versions[0].Author)
	}

	// Paging: totals stay, the page moves.
	page, err := r.NoteHistory(context.Background(), NoteHistoryOptions{Path: p, Limit: 2, Offset: 2})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 6 || len(page.Versions) != 2 || page.Versions[0].Hash != want[2] || page.Versions[1].Hash != want[3] {
		t.Errorf("page 2 of 2: %+v", page)
	}
	past, _ := r.NoteHistory(context.Background(), NoteHistoryOptions{Path: p, Offset: 10})
	if past.Total != 6 || len(past.Versions) != 0 {
		t.Errorf("past the end: %+v", past)
	}
	// Filters.
	byLaptop, _ := r.NoteHistory(context.Background(), NoteHistoryOptions{Path: p, Author: "LAPTOP@"})
	if byLaptop.Total != 1 || byLaptop.Versions[0].Message != "archive the plan" {
		t.Errorf("author filter: %+v", byLaptop)
	}
	// The CLI commit is dated an hour on; ours are minutes apart.
	since, _ := r.NoteHistory(context.Background(), NoteHistoryOptions{Path: p, Since: clockStart.Add(59 * time.Minute)})
	if since.Total != 1 || since.Versions[0].Message != "archive the plan" {
		t.Errorf("since filter: %+v, want the CLI move only", since)
	}
	if all, _ := r.NoteHistory(context.Background(), NoteHistoryOptions{Path: p, Since: clockStart}); all.Total != 6 {
		t.Errorf("since the start: %d entries, want 6", all.Total)
	}

	// The old name now holds another note: its history is its own.
	other, _ := r.NoteHistory(context.Background(), NoteHistoryOptions{Path: "notes/plan.md"})
	wantOld := strings.Split(git(t, dir, "log", "--format=%h", "--", "notes/plan.md"), "\n")
	if other.Total != len(wantOld) || other.Versions[0].Kind != Added {
		t.Errorf("notes/plan.md history: %+v, git log: %v", other, wantOld)
	}
	// A note never seen has no history; a path outside is refused.
	none, err := r.NoteHistory(context.Background(), NoteHistoryOptions{Path: "missing.md"})
	if err != nil || none.Total != 0 {
		t.Errorf("missing note: %+v %v", none, err)
	}
	for _, bad := range []string{"../x.md", ".git/config", "/etc/passwd"} {
		if _, err := r.NoteHistory(context.Background(), NoteHistoryOptions{Path: bad}); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// The lineage (order and path index) is appended to by our commits and
// rebuilt after anything else; either way it matches git log, on a
// history with merges made by the git CLI.
func TestLineageMatchesGitLog(t *testing.T) {
	t.Parallel()
	r, dir := clockRepo(t)
	ctx := context.Background()
	when := clockStart.Add(24 * time.Hour)
	tick := func() time.Time { when = when.Add(time.Minute); return when }
	paths := []string{"a.md", "b.md", "f/c.md", "f/g/d.md"}
	check := func(stage string) {
		t.Helper()
		l, err := r.Log(ctx, LogOptions{Count: 1000})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range l.Commits {
			got = append(got, c.FullHash)
		}
		want := strings.Split(git(t, dir, "log", "--format=%H"), "\n")
		if !slices.Equal(got, want) || l.Total != len(want) {
			t.Fatalf("%s: order differs from git log\n got %v\nwant %v", stage, got, want)
		}
		for _, p := range append(paths, "f", "f/g") {
			l, err := r.Log(ctx, LogOptions{Count: 1000, Path: p})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range l.Commits {
				got = append(got, c.FullHash)
			}
			out := git(t, dir, "log", "--format=%H", "--", p)
			want := []string{}
			if out != "" {
				want = strings.Split(out, "\n")
			}
			if len(got) == 0 {
				got = []string{}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: path %s: got %v, git log %v", stage, p, got, want)
			}
		}
	}
	for i := 0; i < 6; i++ {
		record(t, r, "write", paths[i%len(paths)], fmt.Sprintf("v%d\n", i))
	}
	check("our commits")
	for i := 0; i < 3; i++ {
		record(t, r, "edit", paths[i], fmt.Sprintf("w%d\n", i))
		check(fmt.Sprintf("appended %d", i))
	}
	// A side branch merged by hand, as `git pull` without rebase does.
	git(t, dir, "checkout", "-q", "-b", "side")
	writeFile(t, dir, "f/c.md", "side\n")
	cliCommit(t, dir, "side c", tick())
	writeFile(t, dir, "side.md", "side\n")
	cliCommit(t, dir, "side new", tick())
	git(t, dir, "checkout", "-q", "main")
	writeFile(t, dir, "a.md", "main\n")
	cliCommit(t, dir, "main a", tick())
	d := tick().Format(time.RFC3339)
	if out, err := gitErrEnv(dir, []string{"GIT_AUTHOR_DATE=" + d, "GIT_COMMITTER_DATE=" + d},
		"-c", "user.name=Laptop", "-c", "user.email=l@x", "merge", "-q", "--no-edit", "side"); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	paths = append(paths, "side.md")
	check("after a merge")
	record(t, r, "edit", "b.md", "after merge\n")
	check("our commit on a merge")
	// A reset to an older commit (a rewritten remote) rebuilds.
	git(t, dir, "reset", "-q", "--hard", "HEAD~3")
	check("after a reset")
	record(t, r, "edit", "a.md", "after reset\n")
	check("our commit after a reset")
}

// A note looked up by a name it had before it was moved shows the move as
// a rename to where it went, not as a deletion, and RenamedTo finds the
// name it has now; InHistory and HistoryPaths know every path and folder
// of the history.
func TestHistoryOfAnOldName(t *testing.T) {
	t.Parallel()
	r, p := buildRenamedNote(t)
	ctx := context.Background()
	cases := []struct {
		old      string
		kind     ChangeKind
		to       string // NoteVersion.Path of the newest entry
		renamed  string // NoteHistory.RenamedTo, RenamedTo's answer
		counts   [2]int
		versions int
	}{
		// Moved by our rename commit, then again by the CLI: followed to the end.
		{"projects/plan.md", Renamed, p, p, [2]int{1, 1}, 5},
		// The old name now holds another note: its own history (and the
		// move of the note it held before, as git log -- path lists it).
		{"notes/plan.md", Added, "notes/plan.md", "", [2]int{1, 0}, 4},
		// The name it has now.
		{p, Modified, p, "", [2]int{1, 1}, 6},
	}
	for _, c := range cases {
		h, err := r.NoteHistory(ctx, NoteHistoryOptions{Path: c.old})
		if err != nil {
			t.Fatal(err)
		}
		v := h.Versions[0]
		if v.Kind != c.kind || v.Path != c.to || h.RenamedTo != c.renamed || len(h.Versions) != c.versions {
			t.Errorf("%s: newest %s %s<-%s, renamed to %q, %d versions; want %s %s, %q, %d",
				c.old, v.Kind, v.Path, v.OldPath, h.RenamedTo, len(h.Versions), c.kind, c.to, c.renamed, c.versions)
		}
		if c.kind == Renamed && (v.OldPath != c.old || [2]int{v.Added, v.Removed} != c.counts || v.Message != "archive the plan" || h.RenamedIn != v.Hash) {
			t.Errorf("%s: the move %+v (in %s)", c.old, v, h.RenamedIn)
		}
		rn, ok := r.RenamedTo(ctx, c.old)
		if ok != (c.renamed != "") || rn.Path != c.renamed {
			t.Errorf("RenamedTo(%s) = %+v %v, want %q", c.old, rn, ok, c.renamed)
		}
	}
	for _, c := range []struct {
		path      string
		file, dir bool
	}{{"projects/plan.md", true, false}, {"projects", false, true}, {"Projects", false, false}, {"archive", false, true}, {"missing.md", false, false}} {
		file, dir, err := r.InHistory(ctx, c.path)
		if err != nil || file != c.file || dir != c.dir {
			t.Errorf("InHistory(%s) = %v %v %v, want %v %v", c.path, file, dir, err, c.file, c.dir)
		}
	}
	seen := map[string]bool{}
	if err := r.HistoryPaths(ctx, func(p string, dir bool) bool { seen[fmt.Sprintf("%s %v", p, dir)] = true; return true }); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"projects/plan.md false", "other.md false", "projects true", "notes true", p + " false"} {
		if !seen[want] {
			t.Errorf("HistoryPaths left out %s: %v", want, seen)
		}
	}
	if _, ok := r.RenamedTo(ctx, "missing.md"); ok {
		t.Error("a path never seen was renamed")
	}
}
