package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
	"vaultmcp/internal/mcpserver"
	"vaultmcp/tools"
	"vaultmcp/vault"
)

// gitVault is a vault with its git history, served by the assembled MCP
// server: the history tools' own harness.
type gitVault struct {
	t       *testing.T
	root    string
	v       *vault.Vault
	repo    *gitsync.Repo
	s       *server.MCPServer
	id      int
	mu      sync.Mutex
	touched [][]string // what each recorded change told the vault's observers
}

var histStart = time.Date(2024, 3, 1, 9, 0, 0, 0, time.FixedZone("", 3600))

func newGitVault(t *testing.T) *gitVault {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var clock sync.Mutex
	now := histStart
	repo, err := gitsync.Open(context.Background(), gitsync.Options{Dir: root, Locker: v.Locker(), Now: func() time.Time {
		clock.Lock()
		defer clock.Unlock()
		now = now.Add(time.Minute)
		return now
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	v.SetRecorder(repo)
	g := &gitVault{t: t, root: root, v: v, repo: repo}
	v.Observe(func(paths []string) {
		g.mu.Lock()
		g.touched = append(g.touched, slices.Clone(paths))
		g.mu.Unlock()
	})
	d := tools.Deps{Vault: v, Git: repo, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if g.s, err = mcpserver.New(d, "test"); err != nil {
		t.Fatal(err)
	}
	g.rpc("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}`)
	return g
}

func (g *gitVault) rpc(method, params string) map[string]any {
	g.t.Helper()
	g.id++
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, g.id, method, params)
	raw, err := json.Marshal(g.s.HandleMessage(context.Background(), json.RawMessage(msg)))
	if err != nil {
		g.t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		g.t.Fatal(err)
	}
	return out
}

// call runs a tool and returns its text and whether it was an error.
func (g *gitVault) call(tool string, args map[string]any) (string, bool) {
	g.t.Helper()
	a, _ := json.Marshal(args)
	resp := g.rpc("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, a))
	res, ok := resp["result"].(map[string]any)
	if !ok {
		g.t.Fatalf("%s %v: protocol error %v", tool, args, resp["error"])
	}
	content, _ := res["content"].([]any)
	if len(content) != 1 {
		g.t.Fatalf("%s: %d content items", tool, len(content))
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	if strings.Contains(text, g.root) {
		g.t.Errorf("%s: the vault's absolute path reached the client: %q", tool, text)
	}
	isErr, _ := res["isError"].(bool)
	return text, isErr
}

func (g *gitVault) ok(tool string, args map[string]any) string {
	g.t.Helper()
	text, isErr := g.call(tool, args)
	if isErr {
		g.t.Fatalf("%s %v: %s", tool, args, text)
	}
	return text
}

// fails calls a tool that must fail and returns its error body.
func (g *gitVault) fails(tool string, args map[string]any, wantParts ...string) map[string]any {
	g.t.Helper()
	text, isErr := g.call(tool, args)
	if !isErr {
		g.t.Fatalf("%s %v succeeded: %s", tool, args, text)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(text), &body); err != nil {
		g.t.Fatalf("%s: error is not JSON: %q", tool, text)
	}
	msg, _ := body["error"].(string)
	for _, w := range wantParts {
		if !strings.Contains(msg, w) {
			g.t.Errorf("%s %v: error %q does not mention %q", tool, args, msg, w)
		}
	}
	return body
}

func (g *gitVault) git(args ...string) string {
	g.t.Helper()
	if g.repo != nil {
		g.repo.FlushIndex() // commits leave it in memory a while
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = g.root
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Laptop", "GIT_AUTHOR_EMAIL=laptop@example.com", "GIT_COMMITTER_NAME=Laptop", "GIT_COMMITTER_EMAIL=laptop@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commitHidden commits a file the tools may not write, as another git
// client could.
func (g *gitVault) commitHidden(rel, content string) {
	g.t.Helper()
	p := filepath.Join(g.root, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(content), 0o644)
	g.v.Locker().Lock()
	defer g.v.Locker().Unlock()
	if _, err := g.repo.Commit(context.Background(), "write "+rel, []string{rel}); err != nil {
		g.t.Fatal(err)
	}
}

func (g *gitVault) head() string { return g.git("rev-parse", "--short", "HEAD") }

func TestGetRecentChangesFormatAndFilters(t *testing.T) {
	g := newGitVault(t)
	g.ok("write_file", map[string]any{"path": "notes/daily.md", "content": "# Daily\n- one\n"})
	g.commitHidden(".claude/secret.md", "hidden\n")
	g.ok("edit_file", map[string]any{"path": "notes/daily.md", "old_text": "- one", "new_text": "- one\n- two"})
	g.ok("rename_file", map[string]any{"old_path": "notes/daily.md", "new_path": "archive/daily.md"})

	got := g.ok("get_recent_changes", map[string]any{"count": 2})
	head := g.head()
	for _, want := range []string{
		"1. 2024-03-01 09:0", " +0100 · " + head + " · vaultmcp <vaultmcp@localhost>\n   MCP: rename notes/daily.md -> archive/daily.md\n   [renamed] notes/daily.md -> archive/daily.md\n",
		"2. ", "   MCP: edit notes/daily.md\n   [modified] notes/daily.md\n  +- two\n",
		"Showing commits 1–2 of 4; next page: offset=2.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("get_recent_changes =\n%s\nwant it to contain %q", got, want)
		}
	}
	// The hidden folder's file is left out of the answer.
	page2 := g.ok("get_recent_changes", map[string]any{"count": 2, "offset": 2})
	if strings.Contains(page2, "[added] .claude") || !strings.Contains(page2, "3. ") || !strings.Contains(page2, "Showing commits 3–4 of 4.") {
		t.Errorf("page 2 =\n%s", page2)
	}
	filesOnly := g.ok("get_recent_changes", map[string]any{"files_only": true, "path": "notes"})
	if !strings.Contains(filesOnly, "[modified] notes/daily.md (+1 -0)\n") || strings.Contains(filesOnly, "+- two") {
		t.Errorf("files_only =\n%s", filesOnly)
	}
	// Filters: the laptop's commit by author; since excludes everything before it.
	os.WriteFile(filepath.Join(g.root, "laptop.md"), []byte("from the laptop\n"), 0o644)
	g.git("add", "laptop.md")
	g.git("commit", "-q", "-m", "laptop edit", "--date=2030-01-01T10:00:00Z")
	byAuthor := g.ok("get_recent_changes", map[string]any{"author": "LAPTOP"})
	if !strings.Contains(byAuthor, "laptop edit") || strings.Contains(byAuthor, "MCP:") || !strings.Contains(byAuthor, "of 1.") {
		t.Errorf("author filter =\n%s", byAuthor)
	}
	none := g.ok("get_recent_changes", map[string]any{"author": "vaultmcp", "since": "2099-01-01"})
	if none != "No changes in the history match the since/author filters." {
		t.Errorf("no match = %q", none)
	}
	if got := g.ok("get_recent_changes", map[string]any{"since": "1d"}); !strings.Contains(got, "laptop edit") {
		t.Errorf("since 1d =\n%s", got) // the CLI commit's commit date is now
	}
	// Dot-folders are left out but counted, and shown when named; hidden
	// folders leave no trace.
	g.commitHidden(".obsidian/workspace.json", "{}\n")
	if got := g.ok("get_recent_changes", map[string]any{"count": 1}); !strings.Contains(got, "   (1 file(s) in dot-folders such as .obsidian not listed; give their path to see them)\n") ||
		strings.Contains(got, "[added] .obsidian") {
		t.Errorf("dot-folder commit =\n%s", got)
	}
	if got := g.ok("get_recent_changes", map[string]any{"count": 1, "path": ".obsidian"}); !strings.Contains(got, "[added] .obsidian/workspace.json\n") {
		t.Errorf("dot-folder by path =\n%s", got)
	}
	if got := g.ok("get_recent_changes", map[string]any{"count": 1, "offset": 4}); strings.Contains(got, "not listed") || !strings.Contains(got, "MCP: write .claude/secret.md") {
		t.Errorf("hidden-folder commit =\n%s", got)
	}
	g.fails("get_recent_changes", map[string]any{"since": "last tuesday"}, "since", "ISO date")
	g.fails("get_recent_changes", map[string]any{"path": "../x"}, "outside the vault")
	g.fails("get_recent_changes", map[string]any{"path": ".git"}, "hidden")
	g.fails("get_recent_changes", map[string]any{"count": 21}, "count")
}

func TestGetRecentChangesBudget(t *testing.T) {
	g := newGitVault(t)
	g.ok("write_file", map[string]any{"path": "first.md", "content": "first\n"})
	for i := 0; i < 300; i++ {
		p := filepath.Join(g.root, "import", fmt.Sprintf("note-%03d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("line of imported note %d\n", i), 30)), 0o644)
	}
	g.git("add", "-A")
	g.git("commit", "-q", "-m", "import")
	g.ok("write_file", map[string]any{"path": "after.md", "content": "after\n"})
	got := g.ok("get_recent_changes", map[string]any{})
	if len(got) > 25<<10 {
		t.Errorf("answer is %d bytes", len(got))
	}
	if !strings.Contains(got, "more file(s) not shown: answer budget of 20.0 KB reached; see them with get_diff(from=\"") ||
		!strings.Contains(got, "MCP: write after.md") || !strings.Contains(got, "   import\n") {
		t.Errorf("budgeted answer:\n%s", got[len(got)-min(len(got), 1500):])
	}
	files := g.ok("get_recent_changes", map[string]any{"files_only": true, "count": 1, "offset": 1})
	if n := strings.Count(files, "[added] import/"); n < 300 {
		t.Errorf("files_only listed %d of 300 files (%d bytes)", n, len(files))
	}
}

// buildNoteHistory writes, edits and renames one note through the tools.
func buildNoteHistory(g *gitVault) (hashes []string) {
	g.ok("write_file", map[string]any{"path": "plan.md", "content": "one\ntwo\nthree\n"})
	hashes = append(hashes, g.head())
	g.ok("edit_file", map[string]any{"path": "plan.md", "old_text": "two", "new_text": "TWO"})
	hashes = append(hashes, g.head())
	g.ok("rename_file", map[string]any{"old_path": "plan.md", "new_path": "projects/plan.md"})
	hashes = append(hashes, g.head())
	g.ok("edit_file", map[string]any{"path": "projects/plan.md", "old_text": "three", "new_text": "THREE"})
	hashes = append(hashes, g.head())
	return hashes
}

func TestGetNoteHistoryTool(t *testing.T) {
	g := newGitVault(t)
	h := buildNoteHistory(g)
	got := g.ok("get_note_history", map[string]any{"path": "projects/plan.md"})
	for _, want := range []string{
		"History of projects/plan.md, newest first (renames followed):\n",
		"1. 2024-03-01 ", h[3] + " · vaultmcp <vaultmcp@localhost> · modified (+1 -1)\n   MCP: edit projects/plan.md\n",
		h[2] + " · vaultmcp <vaultmcp@localhost> · renamed plan.md -> projects/plan.md\n",
		h[1] + " · vaultmcp <vaultmcp@localhost> · modified as plan.md (+1 -1)\n",
		"4. ", h[0] + " · vaultmcp <vaultmcp@localhost> · added as plan.md (+3 -0)\n",
		"Showing commits 1–4 of 4.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("get_note_history =\n%s\nwant it to contain %q", got, want)
		}
	}
	page := g.ok("get_note_history", map[string]any{"path": "projects/plan.md", "limit": 1, "offset": 1})
	if !strings.Contains(page, "2. ") || strings.Contains(page, "1. ") || !strings.Contains(page, "next page: offset=2") {
		t.Errorf("page =\n%s", page)
	}
	if got := g.ok("get_note_history", map[string]any{"path": "nothing.md"}); !strings.Contains(got, "No commits changed nothing.md") {
		t.Errorf("unknown note = %q", got)
	}
	g.fails("get_note_history", map[string]any{"path": "../outside.md"}, "outside the vault")
	g.fails("get_note_history", map[string]any{"path": ".claude/x.md"}, "hidden")
	g.fails("get_note_history", map[string]any{"path": ".git/config"}, "hidden")
	g.fails("get_note_history", map[string]any{}, "path")
}

func TestReadFileVersion(t *testing.T) {
	g := newGitVault(t)
	h := buildNoteHistory(g)
	got := g.ok("read_file", map[string]any{"path": "projects/plan.md", "version": h[0]})
	if !strings.HasPrefix(got, "[plan.md at version "+h[0]+", 2024-03-01 ") || !strings.Contains(got, "\"MCP: write plan.md\"; the note is called projects/plan.md now]\n\none\ntwo\nthree\n") {
		t.Errorf("by hash = %q", got)
	}
	if got := g.ok("read_file", map[string]any{"path": "projects/plan.md", "version": "HEAD~2"}); !strings.HasSuffix(got, "\n\none\nTWO\nthree\n") ||
		!strings.Contains(got, h[1]) {
		t.Errorf("HEAD~2 = %q", got)
	}
	if got := g.ok("read_file", map[string]any{"path": "projects/plan.md", "version": "HEAD"}); !strings.Contains(got, "(HEAD)") || !strings.HasSuffix(got, "one\nTWO\nTHREE\n") {
		t.Errorf("HEAD = %q", got)
	}
	// As of a time between the write (09:01) and the edit (09:03).
	asOf := histStart.Add(2 * time.Minute).Format("2006-01-02T15:04:05-07:00")
	if got := g.ok("read_file", map[string]any{"path": "projects/plan.md", "version": asOf}); !strings.HasSuffix(got, "\n\none\ntwo\nthree\n") {
		t.Errorf("as of %s = %q", asOf, got)
	}
	// Paged by lines as the current file is.
	if got := g.ok("read_file", map[string]any{"path": "projects/plan.md", "version": h[0], "offset": 1, "limit": 1}); !strings.Contains(got, "]\n\ntwo\n\n[... truncated: showing lines 2–2 of 3") {
		t.Errorf("a page of a version = %q", got)
	}
	g.fails("read_file", map[string]any{"path": "projects/plan.md", "version": h[0], "offset": 9}, "past the end", "at version "+h[0])
	// Without a version, the file on disk as before.
	if got := g.ok("read_file", map[string]any{"path": "projects/plan.md"}); got != "one\nTWO\nTHREE\n" {
		t.Errorf("current = %q", got)
	}
	g.fails("read_file", map[string]any{"path": "projects/plan.md", "version": "2020-01-01"}, "history starts at")
	g.fails("read_file", map[string]any{"path": "projects/plan.md", "version": "bogus"}, "not understood", "HEAD~N")
	g.fails("read_file", map[string]any{"path": "new.md", "version": "HEAD"}, "did not exist")
	g.fails("read_file", map[string]any{"path": ".git/config", "version": "HEAD"}, "hidden")
	g.fails("read_file", map[string]any{"path": "../x", "version": "HEAD"}, "outside the vault")
	g.fails("read_file", map[string]any{"path": "projects/plan.md", "version": 3}, "version")
}

func TestGetDiffTool(t *testing.T) {
	g := newGitVault(t)
	h := buildNoteHistory(g)
	got := g.ok("get_diff", map[string]any{"path": "projects/plan.md", "from": h[0]})
	want := "Diff of projects/plan.md from " + h[0] + ", 2024-03-01 09:01:00 +0100, \"MCP: write plan.md\" to " + h[3] +
		" (HEAD), 2024-03-01 09:07:00 +0100, \"MCP: edit projects/plan.md\" (it was plan.md then):\n\n" +
		"[renamed] plan.md -> projects/plan.md (+2 -2)\n@@ -1,3 +1,3 @@\n one\n-two\n-three\n+TWO\n+THREE"
	if got != want {
		t.Errorf("note diff =\n%s\nwant\n%s", got, want)
	}
	vaultDiff := g.ok("get_diff", map[string]any{"from": "HEAD~2", "to": "HEAD~1"})
	if !strings.Contains(vaultDiff, "Diff of the vault from "+h[1]) || !strings.Contains(vaultDiff, "1 file(s) changed") ||
		!strings.Contains(vaultDiff, "[renamed] plan.md -> projects/plan.md\n") || !strings.Contains(vaultDiff, "Showing files 1–1 of 1.") {
		t.Errorf("vault diff =\n%s", vaultDiff)
	}
	if got := g.ok("get_diff", map[string]any{"path": "projects/plan.md", "from": "HEAD"}); !strings.HasPrefix(got, "No changes to projects/plan.md from ") {
		t.Errorf("no change = %q", got)
	}
	g.fails("get_diff", map[string]any{"path": "projects/plan.md"}, "from")
	g.fails("get_diff", map[string]any{"from": "HEAD~9"}, "further than the history")
	g.fails("get_diff", map[string]any{"path": ".claude/a.md", "from": "HEAD~1"}, "hidden")
}

func TestRevertChangeTool(t *testing.T) {
	g := newGitVault(t)
	g.ok("write_file", map[string]any{"path": "doc.md", "content": "a\nb\nc\nd\ne\nf\ng\n"})
	g.ok("edit_file", map[string]any{"path": "doc.md", "old_text": "b\n", "new_text": "B\n"})
	middle := g.head()
	g.ok("edit_file", map[string]any{"path": "doc.md", "old_text": "f\n", "new_text": "F\n"})
	g.mu.Lock()
	g.touched = nil
	g.mu.Unlock()

	got := g.ok("revert_change", map[string]any{"commit": middle})
	if !strings.HasPrefix(got, "Reverted "+middle+" (\"MCP: edit doc.md\") (commit ") || !strings.Contains(got, "- doc.md: edits of "+middle+" undone") {
		t.Errorf("revert = %q", got)
	}
	data, _ := os.ReadFile(filepath.Join(g.root, "doc.md"))
	if string(data) != "a\nb\nc\nd\ne\nF\ng\n" {
		t.Errorf("doc.md after the revert = %q", data)
	}
	if msg := g.git("log", "-1", "--format=%s"); msg != "MCP: revert "+middle+": MCP: edit doc.md" {
		t.Errorf("commit message %q", msg)
	}
	g.mu.Lock()
	if len(g.touched) != 1 || !slices.Equal(g.touched[0], []string{"doc.md"}) {
		t.Errorf("observers were told %v", g.touched)
	}
	g.mu.Unlock()
	if got := g.ok("revert_change", map[string]any{"commit": middle}); !strings.HasPrefix(got, "Nothing to revert") {
		t.Errorf("second revert = %q", got)
	}

	// A conflict: nothing written, the lines shown.
	g.ok("edit_file", map[string]any{"path": "doc.md", "old_text": "d\n", "new_text": "D1\n"})
	conflicting := g.head()
	g.ok("edit_file", map[string]any{"path": "doc.md", "old_text": "D1\n", "new_text": "D2\n"})
	before := g.head()
	body := g.fails("revert_change", map[string]any{"commit": conflicting}, "Cannot revert "+conflicting, "nothing was written",
		"doc.md: a later change touches the same lines", "at line 4", "the commit made it:\n      D1", "it is now:\n      D2", "reverting would put back:\n      d")
	cs, _ := body["conflicts"].([]any)
	if len(cs) != 1 || body["commit"] != conflicting {
		t.Errorf("conflict body %v", body)
	}
	if g.head() != before {
		t.Error("a conflicting revert made a commit")
	}
	if data, _ := os.ReadFile(filepath.Join(g.root, "doc.md")); string(data) != "a\nb\nc\nD2\ne\nF\ng\n" {
		t.Errorf("doc.md changed by a refused revert: %q", data)
	}
	if st := g.git("status", "--porcelain"); st != "" {
		t.Errorf("git status: %s", st)
	}

	// A commit touching a hidden folder is refused as the file tools refuse it.
	g.commitHidden(".claude/notes.md", "x\n")
	g.fails("revert_change", map[string]any{"commit": "HEAD"}, "hidden")
	g.fails("revert_change", map[string]any{"commit": "HEAD~1", "path": "../x.md"}, "outside the vault")
	g.fails("revert_change", map[string]any{"commit": "zzz"}, "not understood")
}

// The history tools read; revert_change writes, destructively.
func TestHistoryToolAnnotations(t *testing.T) {
	want := map[string][3]bool{ // readOnly, destructive, idempotent
		"get_recent_changes": {true, false, true},
		"get_note_history":   {true, false, true},
		"get_diff":           {true, false, true},
		"revert_change":      {false, true, false},
	}
	seen := 0
	for _, st := range tools.All(tools.Deps{Git: &gitsync.Repo{}}) {
		w, ok := want[st.Tool.Name]
		if !ok {
			continue
		}
		seen++
		a := st.Tool.Annotations
		if *a.ReadOnlyHint != w[0] || *a.DestructiveHint != w[1] || *a.IdempotentHint != w[2] || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v, want readOnly=%v destructive=%v idempotent=%v", st.Tool.Name, a, w[0], w[1], w[2])
		}
	}
	if seen != len(want) {
		t.Errorf("%d of %d history tools offered", seen, len(want))
	}
	// Without a repository the work functions say so instead of failing.
	if _, err := tools.Revert(context.Background(), tools.Deps{}, tools.RevertArgs{Commit: "HEAD"}); err == nil || !strings.Contains(err.Error(), "no git history") {
		t.Errorf("Revert without a repository: %v", err)
	}
}
