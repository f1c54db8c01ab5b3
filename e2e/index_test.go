package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vaultmcp/internal/testutil"
)

// backlinkFiles calls get_backlinks and returns the linking files.
func backlinkFiles(t *testing.T, s *session, args map[string]any) []string {
	t.Helper()
	var res struct {
		Note          string `json:"note"`
		BacklinkCount int    `json:"backlink_count"`
		Backlinks     []struct {
			File         string   `json:"file"`
			AbsolutePath string   `json:"absolute_path"`
			Links        []string `json:"links"`
		} `json:"backlinks"`
	}
	if err := json.Unmarshal([]byte(s.ok(t, "get_backlinks", args)), &res); err != nil {
		t.Fatal(err)
	}
	files := make([]string, len(res.Backlinks))
	for i, b := range res.Backlinks {
		files[i] = b.File
	}
	if res.BacklinkCount != len(files) {
		t.Errorf("backlink_count %d but %d backlinks", res.BacklinkCount, len(files))
	}
	return files
}

// eventually polls until get_backlinks of target lists file, and returns
// how long that took. The deadline only guards against a hang.
func eventually(t *testing.T, s *session, target, file string) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		got := backlinkFiles(t, s, map[string]any{"note_name": target})
		if slices.Contains(got, file) {
			return time.Since(start)
		}
		if time.Since(start) > 2*time.Minute { // a hang, not a speed check
			t.Fatalf("%s never showed up in the backlinks of %s; got %q", file, target, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestLinksAndTags(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{
		"Project Ideas.md":          "---\ntags: [project]\n---\n# Ideas\n## Big One\n#idea/new",
		"Daily Notes/2025-01-15.md": "Met about [[Project Ideas]] and [[Meeting Notes]]. #daily",
		"Work/Active Projects.md":   "See [[Project Ideas|Ideas]] and [[Project Ideas#Big One]].",
		"Archive/Brainstorm.md":     "```\n[[Project Ideas]]\n```\n[[Deleted Note]] #idea",
	})
	s := startSession(t, v)

	got := backlinkFiles(t, s, map[string]any{"note_name": "Project Ideas"})
	if want := []string{"Daily Notes/2025-01-15.md", "Work/Active Projects.md"}; !slices.Equal(got, want) {
		t.Errorf("backlinks = %q, want %q (a link in a code block is not a link)", got, want)
	}
	if got := backlinkFiles(t, s, map[string]any{"path": "Project Ideas.md"}); len(got) != 2 {
		t.Errorf("backlinks by path = %q", got)
	}
	wantContains(t, "get_backlinks without a name", s.fail(t, "get_backlinks", map[string]any{"note_name": ""}), "give note_name")
	msg := s.fail(t, "get_backlinks", map[string]any{"path": "../outside.md"})
	wantContains(t, "error", msg, "outside")

	broken := s.ok(t, "get_broken_links", map[string]any{})
	wantContains(t, "get_broken_links", broken, `"files_with_broken_links":2`, "Deleted Note", "Meeting Notes")

	links := s.ok(t, "find_links", map[string]any{"path": "Daily Notes/2025-01-15.md", "direction": "outlinks"})
	wantContains(t, "find_links", links, `"success":true`, `"total":2`, `{"name":"Project Ideas","path":"Project Ideas.md"}`, `{"name":"Meeting Notes","path":null}`)
	both := s.ok(t, "find_links", map[string]any{"path": "Project Ideas.md", "limit": 1})
	wantContains(t, "find_links both", both, `"backlinks":{"results":["Daily Notes/2025-01-15.md"],"total":2,"next_offset":1,`)
	miss := s.fail(t, "find_links", map[string]any{"path": "Nope.md"})
	wantContains(t, "find_links error", miss, "not found")

	tags := s.ok(t, "get_tags", map[string]any{})
	wantContains(t, "get_tags", tags, "#idea", "#project", "#daily")
	parents := s.ok(t, "get_tags", map[string]any{"include_parents": true})
	wantContains(t, "get_tags parents", parents, "#idea: 2")

	// Renaming rewrites the links, in the same commit.
	renamed := s.ok(t, "rename_file", map[string]any{"old_path": "Project Ideas.md", "new_path": "Projects/Idea Backlog.md"})
	wantContains(t, "rename", renamed, "updated 3 link(s) in 2 note(s)")
	if got := v.read(t, "Work/Active Projects.md"); got != "See [[Idea Backlog|Ideas]] and [[Idea Backlog#Big One]]." {
		t.Errorf("links not rewritten: %q", got)
	}
	if got := v.gitRun(t, "show", "--name-only", "--format=%s", "HEAD"); !strings.Contains(got, "MCP: rename Project Ideas.md -> Projects/Idea Backlog.md") ||
		!strings.Contains(got, "Work/Active Projects.md") {
		t.Errorf("rename commit:\n%s", got)
	}
	if got := backlinkFiles(t, s, map[string]any{"path": "Projects/Idea Backlog.md"}); len(got) != 2 {
		t.Errorf("backlinks after rename = %q", got)
	}
	del := s.ok(t, "delete_file", map[string]any{"path": "Projects/Idea Backlog.md"})
	wantContains(t, "delete", del, "3 link(s) in 2 note(s)")
}

// TestExternalChangesReachTheIndex: a file written behind the server's
// back, and a note brought in by a git pull, show up in get_backlinks
// without a restart.
func TestExternalChangesReachTheIndex(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"Target.md": "# Target"})
	remote := filepath.Join(v.base, "remote.git")
	gitCLI(t, "", "init", "-q", "--bare", "-b", "main", remote)
	v.gitRun(t, "remote", "add", "origin", remote)
	v.commitAll(t, "test setup")
	v.gitRun(t, "push", "-q", "origin", "main")

	s := startSession(t, v, withEnv("VAULTMCP_GIT_REMOTE="+remote, "VAULTMCP_GIT_SYNC_INTERVAL=300ms"))
	if got := backlinkFiles(t, s, map[string]any{"note_name": "Target"}); len(got) != 0 {
		t.Fatalf("backlinks at start = %q", got)
	}

	v.write(t, "inbox/From Obsidian.md", "Links to [[Target]].")
	t.Logf("file written on disk: in get_backlinks after %s", eventually(t, s, "Target", "inbox/From Obsidian.md"))
	// The server commits and pushes the outside write; once that is on the
	// remote it has nothing left to push, and the laptop's push below
	// cannot race with it.
	testutil.WaitFor(t, "the outside write committed and pushed", func() bool {
		return remoteHeadIs(t, remote, "vault: sync external changes")
	})

	laptop := filepath.Join(v.base, "laptop")
	gitCLI(t, "", "clone", "-q", remote, laptop)
	if err := os.WriteFile(filepath.Join(laptop, "From Laptop.md"), []byte("Also [[target]]."), 0o644); err != nil {
		t.Fatal(err)
	}
	laptopPush(t, laptop, "laptop note")
	t.Logf("note pulled from the remote: in get_backlinks after %s", eventually(t, s, "Target", "From Laptop.md"))
}

// gitCLI runs the git CLI in dir as "the user's laptop".
func gitCLI(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitTry(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func gitTry(dir string, args ...string) (string, error) {
	testutil.WaitIndexWritten(dir)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=laptop", "GIT_AUTHOR_EMAIL=laptop@example.com",
		"GIT_COMMITTER_NAME=laptop", "GIT_COMMITTER_EMAIL=laptop@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// A note stored with a decomposed name, as macOS writes accents, leaves
// every listing when it is renamed or deleted by its composed name (it
// stayed in backlinks, search_files and grep under its old name until the
// server restarted).
func TestDecomposedNameLeavesTheIndex(t *testing.T) {
	t.Parallel()
	moved := "R\u00e9sum\u00e9 caf\u00e9.md" // composed, as a client types it
	gone := "\u00c9t\u00e9 note.md"          // composed
	decomposed := func(s string) string {    // é -> e + U+0301, É -> E + U+0301
		return strings.NewReplacer("\u00e9", "e\u0301", "\u00c9", "E\u0301").Replace(s)
	}
	v := newVault(t, map[string]string{
		"Target.md":       "# Target",
		decomposed(moved): "links to [[Target]] qqmarker",
		decomposed(gone):  "links to [[Target]] qqmarker",
	})
	s := startSession(t, v)
	if got := backlinkFiles(t, s, map[string]any{"path": "Target.md"}); len(got) != 2 {
		t.Fatalf("backlinks at start = %q", got)
	}
	s.ok(t, "rename_file", map[string]any{"old_path": moved, "new_path": "Notes/" + moved})
	s.ok(t, "delete_file", map[string]any{"path": gone})
	if got := backlinkFiles(t, s, map[string]any{"path": "Target.md"}); !slices.Equal(got, []string{"Notes/" + moved}) {
		t.Errorf("backlinks after the rename and the delete = %q", got)
	}
	if got := s.ok(t, "search_files", map[string]any{"pattern": "**/*.md"}); got != "Notes/"+moved+"\nTarget.md" {
		t.Errorf("search_files = %q", got)
	}
	if got := s.ok(t, "grep", map[string]any{"query": "qqmarker", "output": "files"}); got != "Notes/"+moved {
		t.Errorf("grep = %q", got)
	}
}
