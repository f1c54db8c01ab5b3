package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vaultmcp/internal/testutil"
)

// gitDated commits everything in dir with the git CLI as author at a
// fixed date, so "as of" versions have known answers.
func gitDated(t *testing.T, dir, msg, date string) {
	t.Helper()
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", msg}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=laptop", "GIT_AUTHOR_EMAIL=laptop@example.com",
			"GIT_COMMITTER_NAME=laptop", "GIT_COMMITTER_EMAIL=laptop@example.com",
			"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// historyVault builds a vault whose history has dated edits, a merge made
// by `git pull` on the command line, a deletion and a rename with an edit
// by another git client, pushed to a bare remote. It returns the vault,
// the remote and a laptop clone.
func historyVault(t *testing.T) (v *testVault, remote, laptop string) {
	t.Helper()
	v, remote = newRemoteVault(t, map[string]string{
		"shared.md": "title\nstatus: draft\nend\n",
		"old.md":    "an old note\n",
		"draft.md":  "line one\nline two\nline three\nline four\nline five\nline six\n",
	})
	for i, status := range []string{"january", "february", "march"} {
		v.write(t, "journal.md", "# Journal\nstatus: "+status+"\n")
		gitDated(t, v.Root, "journal: "+status, fmt.Sprintf("2024-0%d-10T12:00:00+01:00", i+1))
	}
	v.gitRun(t, "push", "-q", "origin", "main")
	// A laptop adds a note; the vault, with a commit of its own, pulls
	// with a merge as the git CLI does by default.
	laptop = filepath.Join(v.base, "laptop")
	gitCLI(t, "", "clone", "-q", remote, laptop)
	writeAt(t, filepath.Join(laptop, "idea.md"), "an idea from the laptop\n")
	gitDated(t, laptop, "laptop: idea", "2024-04-01T08:00:00Z")
	gitCLI(t, laptop, "push", "-q", "origin", "main")
	v.write(t, "journal.md", "# Journal\nstatus: april\n")
	gitDated(t, v.Root, "journal: april", "2024-04-02T08:00:00Z")
	v.gitRun(t, "-c", "user.name=vault", "-c", "user.email=vault@localhost", "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
	// A deletion, and a move with a small edit (git's rename detection).
	v.gitRun(t, "rm", "-q", "old.md")
	gitDated(t, v.Root, "remove old note", "2024-04-03T08:00:00Z")
	if err := os.MkdirAll(v.path("drafts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(v.path("draft.md"), v.path("drafts/moved.md")); err != nil {
		t.Fatal(err)
	}
	v.write(t, "drafts/moved.md", strings.Replace(v.read(t, "drafts/moved.md"), "line six", "line 6", 1))
	gitDated(t, v.Root, "move the draft", "2024-04-04T08:00:00Z")
	v.gitRun(t, "push", "-q", "origin", "main")
	gitCLI(t, laptop, "pull", "-q", "--rebase", "origin", "main")
	return v, remote, laptop
}

func TestHistoryThroughTheBinary(t *testing.T) {
	t.Parallel()
	v, remote, laptop := historyVault(t)
	// A conflict copy: the same line changed on both sides. Pushing is
	// off, so the server never races the laptop: it only pulls, and
	// replays its own commit on top of what the laptop pushed.
	setup := startSession(t, v, withEnv("VAULTMCP_GIT_REMOTE="+remote, "VAULTMCP_GIT_SYNC_INTERVAL=300ms", "VAULTMCP_GIT_PUSH=false"))
	setup.ok(t, "edit_file", map[string]any{"path": "shared.md", "old_text": "status: draft", "new_text": "status: server"})
	writeAt(t, filepath.Join(laptop, "shared.md"), "title\nstatus: laptop\nend\n")
	laptopPush(t, laptop, "laptop: status")
	testutil.WaitFor(t, "the conflict copy, committed on top of the laptop's commit", func() bool {
		m, _ := filepath.Glob(filepath.Join(v.Root, "shared (conflict *).md"))
		return len(m) == 1 && v.gitStatus(t) == "" &&
			strings.Contains(v.gitRun(t, "log", "--format=%s", "-3"), "laptop: status")
	})
	setup.c.Close() // waits for the process to exit
	// The remote catches up, and the server that reads the history pulls
	// only at start: the hashes the test takes stay the branch's.
	v.gitRun(t, "push", "-q", "origin", "main")
	s := startSession(t, v, withEnv("VAULTMCP_GIT_REMOTE="+remote, "VAULTMCP_GIT_SYNC_INTERVAL=0", "VAULTMCP_GIT_PUSH=false"))

	// The agent's own history of one note: write, two edits, a rename, an edit.
	s.ok(t, "write_file", map[string]any{"path": "plan.md", "content": "a\nb\nc\nd\ne\nf\ng\n"})
	s.ok(t, "edit_file", map[string]any{"path": "plan.md", "old_text": "b\n", "new_text": "B\n"})
	middle := v.gitRun(t, "rev-parse", "--short", "HEAD")
	s.ok(t, "rename_file", map[string]any{"old_path": "plan.md", "new_path": "projects/plan.md"})
	s.ok(t, "edit_file", map[string]any{"path": "projects/plan.md", "old_text": "f\n", "new_text": "F\n"})
	s.ok(t, "delete_file", map[string]any{"path": "idea.md"})

	// History follows the rename, exactly as git log --follow does.
	hist := s.ok(t, "get_note_history", map[string]any{"path": "projects/plan.md"})
	want := strings.Split(v.gitRun(t, "log", "--follow", "--format=%h", "--", "projects/plan.md"), "\n")
	if len(want) != 4 {
		t.Fatalf("git log --follow: %v", want)
	}
	for i, h := range want {
		if !strings.Contains(hist, fmt.Sprintf("%d. ", i+1)) || !strings.Contains(hist, h) {
			t.Errorf("get_note_history lacks %s:\n%s", h, hist)
		}
	}
	wantContains(t, "get_note_history", hist, "renamed plan.md -> projects/plan.md", "modified as plan.md (+1 -1)",
		"added as plan.md (+7 -0)", "Showing commits 1–4 of 4")
	// The CLI's move with an edit is followed too; the merge is not listed
	// for a note only one side changed.
	moved := s.ok(t, "get_note_history", map[string]any{"path": "drafts/moved.md"})
	wantContains(t, "get_note_history drafts/moved.md", moved, "renamed draft.md -> drafts/moved.md (+1 -1)", "move the draft", "of 2.")
	journal := s.ok(t, "get_note_history", map[string]any{"path": "journal.md"})
	wantContains(t, "get_note_history journal.md", journal, "journal: april", "journal: january", "+0100", "of 4.")
	if strings.Contains(journal, "Merge") {
		t.Errorf("the merge is listed for journal.md:\n%s", journal)
	}
	// A deleted note keeps its history.
	idea := s.ok(t, "get_note_history", map[string]any{"path": "idea.md"})
	wantContains(t, "get_note_history idea.md", idea, "deleted", "MCP: delete idea.md", "added", "laptop: idea")

	// Versions by hash (of the note under its old name), HEAD~N and date.
	first := want[len(want)-1]
	got := s.ok(t, "read_file", map[string]any{"path": "projects/plan.md", "version": first})
	wantContains(t, "read_file by hash", got, "[plan.md at version "+first, "the note is called projects/plan.md now]")
	if !strings.HasSuffix(got, "\n\na\nb\nc\nd\ne\nf\ng\n") {
		t.Errorf("read_file by hash = %q", got)
	}
	// HEAD~2 is the rename (HEAD is the delete, HEAD~1 the last edit).
	got = s.ok(t, "read_file", map[string]any{"path": "projects/plan.md", "version": "HEAD~2"})
	if !strings.HasSuffix(got, "\n\na\nB\nc\nd\ne\nf\ng\n") || !strings.Contains(got, want[1]) {
		t.Errorf("read_file HEAD~2 = %q", got)
	}
	got = s.ok(t, "read_file", map[string]any{"path": "journal.md", "version": "2024-02-15"})
	if !strings.HasSuffix(got, "\n\n# Journal\nstatus: february\n") || !strings.Contains(got, "journal: february") {
		t.Errorf("read_file as of 2024-02-15 = %q", got)
	}
	got = s.ok(t, "read_file", map[string]any{"path": "journal.md", "version": "2024-03-10T11:59:59Z"})
	if !strings.HasSuffix(got, "status: march\n") {
		t.Errorf("read_file as of 2024-03-10T11:59:59Z = %q", got)
	}

	// Diffs: one note across its rename, and the whole vault for one commit.
	diff := s.ok(t, "get_diff", map[string]any{"path": "projects/plan.md", "from": first})
	wantContains(t, "get_diff", diff, "(it was plan.md then)", "[renamed] plan.md -> projects/plan.md (+2 -2)", "@@ -1,7 +1,7 @@", "-b\n+B\n", "-f\n+F\n")
	whole := s.ok(t, "get_diff", map[string]any{"from": "HEAD~1", "to": "HEAD"})
	wantContains(t, "get_diff whole vault", whole, "1 file(s) changed", "[deleted] idea.md (+0 -1)", "-an idea from the laptop")

	// get_recent_changes: hash, author, zone; the conflict copy; the merge.
	recent := s.ok(t, "get_recent_changes", map[string]any{"limit": 20, "files_only": true})
	wantContains(t, "get_recent_changes", recent, "· vaultmcp <vaultmcp@localhost>", "[added] shared (conflict ", "(merge commit)",
		"[renamed] draft.md -> drafts/moved.md (+1 -1)", "[deleted] old.md", "laptop <laptop@example.com>")
	mine := s.ok(t, "get_recent_changes", map[string]any{"author": "vaultmcp", "since": "1d"})
	if strings.Contains(mine, "laptop:") || !strings.Contains(mine, "MCP: delete idea.md") {
		t.Errorf("the agent's changes today:\n%s", mine)
	}

	// Revert the middle edit: the later edit and the rename stay.
	got = s.ok(t, "revert_change", map[string]any{"commit": middle})
	wantContains(t, "revert_change", got, "Reverted "+middle, "projects/plan.md: edits of "+middle+" undone")
	if c := v.read(t, "projects/plan.md"); c != "a\nb\nc\nd\ne\nF\ng\n" {
		t.Errorf("after the revert: %q", c)
	}
	if msg := v.gitRun(t, "log", "-1", "--format=%s"); msg != "MCP: revert "+middle+": MCP: edit plan.md" {
		t.Errorf("revert commit message %q", msg)
	}
	// The index saw it: the next read and grep see the reverted text.
	if got := s.ok(t, "read_file", map[string]any{"path": "projects/plan.md"}); got != "a\nb\nc\nd\ne\nF\ng\n" {
		t.Errorf("read after revert %q", got)
	}

	// A revert that conflicts writes nothing and shows the lines.
	s.ok(t, "edit_file", map[string]any{"path": "projects/plan.md", "old_text": "d\n", "new_text": "D1\n"})
	conflicting := v.gitRun(t, "rev-parse", "--short", "HEAD")
	s.ok(t, "edit_file", map[string]any{"path": "projects/plan.md", "old_text": "D1\n", "new_text": "D2\n"})
	before := v.snapshot(t)
	msg := s.fail(t, "revert_change", map[string]any{"commit": conflicting})
	wantContains(t, "conflicting revert", msg, "Cannot revert "+conflicting, "nothing was written", "projects/plan.md",
		"at line 4", "the commit made it:\n      D1", "it is now:\n      D2", "reverting would put back:\n      d")
	v.unchanged(t, before)

	// Every history tool refuses paths outside the vault and hidden folders.
	for _, bad := range []string{"../outside.md", ".git/config", ".claude/notes.md", v.Outside + "/x.md"} {
		s.fail(t, "get_note_history", map[string]any{"path": bad})
		s.fail(t, "read_file", map[string]any{"path": bad, "version": "HEAD"})
		s.fail(t, "get_diff", map[string]any{"path": bad, "from": "HEAD~1"})
		s.fail(t, "get_recent_changes", map[string]any{"path": bad})
		s.fail(t, "revert_change", map[string]any{"commit": "HEAD", "path": bad})
	}
	v.unchanged(t, before)
}

// An object lost from the repository (as in a partial clone) costs that
// file's diff, with a notice, never the whole answer.
func TestHistoryWithALostObject(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"a.md": "first\n", "b.md": "b\n"})
	v.write(t, "a.md", "second\n")
	v.write(t, "b.md", "b2\n")
	v.commitAll(t, "edit both")
	lost := v.gitRun(t, "rev-parse", "HEAD~1:a.md")
	obj := filepath.Join(v.Root, ".git", "objects", lost[:2], lost[2:])
	os.Chmod(obj, 0o644)
	if err := os.Remove(obj); err != nil {
		t.Fatalf("remove the loose object: %v", err)
	}
	s := startSession(t, v)
	got := s.ok(t, "get_recent_changes", map[string]any{})
	wantContains(t, "get_recent_changes", got, "[modified] a.md\n  (diff not shown: a git object it needs is missing", "[modified] b.md\n  -b\n  +b2")
	hist := s.ok(t, "get_note_history", map[string]any{"path": "a.md"})
	wantContains(t, "get_note_history", hist, "(line counts not shown: a git object it needs is missing", "of 2.")
	msg := s.fail(t, "read_file", map[string]any{"path": "a.md", "version": "HEAD~1"})
	wantContains(t, "read_file of the lost version", msg, "missing")
}

// The history tools as an agent met them on a varied vault (accented
// names, long one-line paragraphs, a note linked 120 times, a rename made
// with git mv): answers within their budget, paths resolved as the other
// tools resolve them, an old name shown as renamed, limit as the page
// size.
func TestHistoryAnswersForAnAgent(t *testing.T) {
	t.Parallel()
	paragraphs := func(word string) string {
		var b strings.Builder
		for i := 0; i < 100; i++ {
			fmt.Fprintf(&b, "%d. %s\n", i, strings.Repeat(word+" réunion ", 2000/(len(word)+10)))
		}
		return b.String()
	}
	var journal strings.Builder
	for i := 0; i < 120; i++ {
		fmt.Fprintf(&journal, "%d %s [[Cible]] %s\n", i, strings.Repeat("avant ", 40), strings.Repeat("après ", 40))
	}
	long, budget, alpha := "Réunions/Compte rendu long.md", "Projects/Réunion budget 2026.md", "Projects/Projet Alpha.md"
	v := newVault(t, map[string]string{
		alpha:                              "alpha\n",
		budget:                             "budget: 0\n",
		"Journal/Grand Journal de Bord.md": journal.String(),
		"Cible.md":                         "cible\n",
		long:                               paragraphs("alpha"),
	})
	v.gitRun(t, "mv", "Journal/Grand Journal de Bord.md", "Journal/Bord.md")
	v.commitAll(t, "rename journal")
	s := startSession(t, v)
	s.ok(t, "write_file", map[string]any{"path": long, "content": paragraphs("beta")})
	for i := 1; i <= 3; i++ {
		s.ok(t, "edit_file", map[string]any{"path": budget, "old_text": fmt.Sprintf("budget: %d", i-1), "new_text": fmt.Sprintf("budget: %d", i)})
	}
	s.ok(t, "rename_file", map[string]any{"old_path": "Cible.md", "new_path": "Archive/Cible renommée.md"})

	const most = 21 << 10 // about 20 KB, with the page's own lines
	tomorrow := time.Now().Add(48 * time.Hour).Format(time.DateOnly)
	cases := []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"get_recent_changes", map[string]any{}, []string{"[renamed] Cible.md -> Archive/Cible renommée.md", "[modified] Journal/Bord.md", "answer budget of 20.0 KB"}},
		{"get_recent_changes", map[string]any{"count": 1}, []string{"Showing commits 1–1 of 7"}},
		{"get_recent_changes", map[string]any{"limit": 1, "path": "réunions"}, []string{"(réunions is taken as Réunions/", "[modified] " + long, "answer budget of 20.0 KB reached; see them with get_diff(", "…\n"}},
		{"get_recent_changes", map[string]any{"path": "projects", "files_only": true}, []string{"[modified] " + budget + " (+1 -1)", "of 4."}},
		{"get_diff", map[string]any{"from": "HEAD~5", "path": long}, []string{"Diff of " + long, "answer budget of 20.0 KB reached; narrow the range"}},
		{"get_diff", map[string]any{"from": tomorrow, "path": budget}, []string{"are the same commit", "a date alone means the start of that day", "get_recent_changes(since=…)"}},
		{"get_note_history", map[string]any{"path": "projects/projet alpha.md"}, []string{"History of " + alpha, "added (+1 -0)"}},
		{"get_note_history", map[string]any{"path": "Projects/Projet Alpha"}, []string{"History of " + alpha}},
		{"get_note_history", map[string]any{"path": "Journal/Grand Journal de Bord.md"}, []string{"· renamed Journal/Grand Journal de Bord.md -> Journal/Bord.md\n", "it is called Journal/Bord.md now"}},
		{"get_diff", map[string]any{"from": "HEAD~4", "path": "projects/réunion budget 2026.md"}, []string{"Diff of " + budget, "-budget: 0\n+budget: 3"}},
		{"revert_change", map[string]any{"commit": "HEAD~1", "path": "projects/réunion budget 2026.md"}, []string{"Reverted ", budget + ": edits of"}},
	}
	for _, c := range cases {
		got := s.ok(t, c.tool, c.args)
		if len(got) > most {
			t.Errorf("%s %v: %d bytes", c.tool, c.args, len(got))
		}
		wantContains(t, fmt.Sprint(c.tool, c.args), got, c.want...)
	}
	if got := v.read(t, budget); got != "budget: 2\n" {
		t.Errorf("after the revert: %q", got)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_file", map[string]any{"path": "Journal/Grand Journal de Bord.md"}, "did you mean Journal/Bord.md?"},
		{"get_note_history", map[string]any{"path": "Projects/Projet Alpah.md"}, "did you mean " + alpha + "?"},
		{"get_recent_changes", map[string]any{"limit": 1, "count": 2}, "limit=1 and count=2 disagree"},
	} {
		wantContains(t, fmt.Sprint(c.tool, c.args), s.fail(t, c.tool, c.args), c.want)
	}
}
