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
	"vaultmcp/vault/changes"
	"vaultmcp/vault/index"
)

// gitVault is a vault with its git history, served by the assembled MCP
// server: the history tools' own harness.
type gitVault struct {
	t       testing.TB
	root    string
	v       *vault.Vault
	repo    *gitsync.Repo
	d       tools.Deps
	s       *server.MCPServer
	id      int
	mu      sync.Mutex
	touched [][]string // what each recorded change told the vault's observers
}

var histStart = time.Date(2024, 3, 1, 9, 0, 0, 0, time.FixedZone("", 3600))

func newGitVault(t testing.TB) *gitVault {
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
	// An index, so renames relink and suggestions come from it as in the
	// server.
	ix := index.New(v, slog.New(slog.DiscardHandler))
	v.Observe(ix.Changed)
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	g := &gitVault{t: t, root: root, v: v, repo: repo}
	v.Observe(func(b changes.Batch) {
		g.mu.Lock()
		g.touched = append(g.touched, slices.Clone(b.Paths))
		g.mu.Unlock()
	})
	d := tools.Deps{Vault: v, Git: repo, Index: ix, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	g.d = d
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
	content, _ = splitVersion(content)
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
	g.fails("get_recent_changes", map[string]any{"since": "last tuesday"}, "since", "ISO date", "2 weeks ago")
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

	// A commit with more files than even files_only fits: its notice
	// points at get_diff, not at files_only, which the call already set.
	for i := 0; i < 600; i++ {
		p := filepath.Join(g.root, "bulk", fmt.Sprintf("a rather long imported note name number %03d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x\n"), 0o644)
	}
	g.git("add", "-A")
	g.git("commit", "-q", "-m", "bulk")
	bulk := g.ok("get_recent_changes", map[string]any{"files_only": true, "count": 1})
	if !strings.Contains(bulk, "more file(s) not shown: answer budget of 20.0 KB reached; see them with get_diff(from=\"") ||
		strings.Contains(bulk, "files_only=true") {
		t.Errorf("files_only answer cut by the budget:\n%s", bulk[len(bulk)-min(len(bulk), 600):])
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
	g.fails("get_note_history", map[string]any{"path": "nothing.md"}, "Not found: nothing.md is neither in the vault nor in its history")
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
	if got := g.ok("read_file", map[string]any{"path": "projects/plan.md", "version": h[0], "offset": 9}); !strings.HasPrefix(got, "[plan.md at version "+h[0]) ||
		!strings.HasSuffix(got, "]\n\n[offset=9 is past the end: plan.md has 3 lines; offset=0 reads from the start]") {
		t.Errorf("past the end of a version = %q", got)
	}
	// Without a version, the file on disk as before.
	if got := g.ok("read_file", map[string]any{"path": "projects/plan.md"}); got != "one\nTWO\nTHREE\n" {
		t.Errorf("current = %q", got)
	}
	g.fails("read_file", map[string]any{"path": "projects/plan.md", "version": "2020-01-01"}, "history starts at")
	g.fails("read_file", map[string]any{"path": "projects/plan.md", "version": "bogus"}, "not understood", "HEAD~N")
	g.fails("read_file", map[string]any{"path": "new.md", "version": "HEAD"}, "neither in the vault nor in its history")
	g.ok("write_file", map[string]any{"path": "new.md", "content": "new\n"})
	g.fails("read_file", map[string]any{"path": "new.md", "version": "HEAD~1"}, "did not exist")
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
	if st := withoutTemps(g.git("status", "--porcelain")); st != "" {
		t.Errorf("git status: %s", st)
	}

	// A commit touching a hidden folder is refused as the file tools refuse it.
	g.commitHidden(".claude/notes.md", "x\n")
	g.fails("revert_change", map[string]any{"commit": "HEAD"}, "hidden")
	g.fails("revert_change", map[string]any{"commit": "HEAD~1", "path": "../x.md"}, "outside the vault")
	g.fails("revert_change", map[string]any{"commit": "zzz"}, "not understood")
}

// Reverting a commit of 200 long-named files answers within the history
// tools' budget, naming as many files as it holds and counting the rest;
// so does a refused revert, its conflicts field showing the same files.
func TestRevertOfManyFilesKeepsItsBudget(t *testing.T) {
	g := newGitVault(t)
	name := func(i int) string {
		return fmt.Sprintf("import/Réunions d’équipe/compte rendu détaillé de la réunion hebdomadaire du projet numéro %04d.md", i)
	}
	w := newHistoryWriter(histStart)
	var ops []fileOp
	for i := 0; i < 300; i++ {
		ops = append(ops, writeOp(name(i), fmt.Sprintf("note %d\nfirst line\n", i)))
	}
	w.commit(ana, "import", ops...)
	ops = nil
	for i := 0; i < 200; i++ {
		ops = append(ops, writeOp(name(i), fmt.Sprintf("note %d\nfirst line, edited\n", i)))
	}
	w.commit(ana, "edit two thirds", ops...)
	w.write(t, g.root, true)
	imported, edited := g.git("rev-parse", "--short", "HEAD~1"), g.head()
	const most = 21 << 10 // the 20 KB budget and the answer's first and last lines

	body := g.fails("revert_change", map[string]any{"commit": imported}, "Cannot revert "+imported, "more conflicting file(s) not shown (200 in all)",
		`get_diff(from="`+imported+`~1", to="`+imported+`")`)
	raw, _ := json.Marshal(body)
	cs, _ := body["conflicts"].([]any)
	if msg, _ := body["error"].(string); len(msg) > most || len(raw) > 3*most || len(cs) == 0 || len(cs) >= 200 || body["conflict_count"] != 200.0 ||
		!strings.Contains(msg, fmt.Sprintf("[... %d more conflicting", 200-len(cs))) {
		t.Errorf("refused revert: %d bytes, %d of %v conflicts listed:\n%.3000s", len(raw), len(cs), body["conflict_count"], msg)
	}

	got := g.ok("revert_change", map[string]any{"commit": edited})
	listed := strings.Count(got, "\n- import/")
	if len(got) > most || listed == 0 || listed >= 200 ||
		!strings.Contains(got, fmt.Sprintf("[... and %d more file(s) reverted (200 in all), not listed here: get_diff(from=\"%s~1\", to=\"%s\") lists them ...]", 200-listed, g.head(), g.head())) {
		t.Errorf("revert of 200 files: %d bytes, %d listed:\n%s", len(got), listed, got[max(0, len(got)-600):])
	}
	if data, _ := os.ReadFile(filepath.Join(g.root, name(199))); string(data) != "note 199\nfirst line\n" {
		t.Errorf("a file not listed was not reverted: %q", data)
	}
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

// longParagraphs is a note of n one-line paragraphs of about 2 KB.
func longParagraphs(n int, word string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d. %s\n", i, strings.Repeat(word+" réunion ", 2000/(len(word)+10)))
	}
	return b.String()
}

// The answers of an agent trial on a varied vault: every history answer
// keeps to its budget, however long the lines and however many files.
func TestHistoryAnswersKeepTheirBudget(t *testing.T) {
	g := newGitVault(t)
	long := "Réunions/Compte rendu long.md"
	g.ok("write_file", map[string]any{"path": "other.md", "content": "other\n"})
	g.ok("write_file", map[string]any{"path": long, "content": longParagraphs(100, "alpha")})
	g.ok("write_file", map[string]any{"path": long, "content": longParagraphs(100, "beta")})
	// A note linked 120 times from one journal of long lines, renamed.
	var journal strings.Builder
	for i := 0; i < 120; i++ {
		fmt.Fprintf(&journal, "%d %s [[Cible]] %s\n", i, strings.Repeat("avant ", 60), strings.Repeat("après ", 60))
	}
	g.ok("write_file", map[string]any{"path": "Cible.md", "content": "cible\n"})
	g.ok("write_file", map[string]any{"path": "Journal/Grand Journal de Bord.md", "content": journal.String()})
	g.ok("rename_file", map[string]any{"old_path": "Cible.md", "new_path": "Archive/Cible renommée.md"})
	const max = 21 << 10 // the 20 KB budget and the page's own lines
	cases := []struct {
		tool string
		args map[string]any
		want []string
	}{
		// Each commit gets its share: the rewrite of the long note shows
		// the start of its diff, the commit before it its counts.
		{"get_recent_changes", map[string]any{}, []string{"[renamed] Cible.md -> Archive/Cible renommée.md", "answer budget of 20.0 KB reached",
			"[modified] " + long + "\n  -0. alpha", "[added] " + long + " (+100 -0)"}},
		{"get_recent_changes", map[string]any{"limit": 1, "offset": 3}, []string{"[modified] " + long, "more diff lines not shown: answer budget of 20.0 KB reached; see them with get_diff(from=\"", "…\n"}},
		{"get_recent_changes", map[string]any{"count": 1}, []string{"[modified] Journal/Grand Journal de Bord.md"}},
		{"get_diff", map[string]any{"from": "HEAD~4", "path": long}, []string{"Diff of " + long, "answer budget of 20.0 KB reached; narrow the range"}},
		{"get_diff", map[string]any{"from": "HEAD~5"}, []string{"Diff of the vault"}},
	}
	for _, c := range cases {
		got := g.ok(c.tool, c.args)
		if len(got) > max {
			t.Errorf("%s %v: %d bytes", c.tool, c.args, len(got))
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %v: want %q in\n%s", c.tool, c.args, w, got)
			}
		}
		for _, line := range strings.Split(got, "\n") {
			if len(line) > gitsync.MaxLineBytes+len("…")+2 && !strings.HasPrefix(line, "Showing") && !strings.HasPrefix(line, "Diff of") {
				t.Errorf("%s %v: a line of %d bytes: %.80q", c.tool, c.args, len(line), line)
				break
			}
		}
	}
}

// History tools resolve paths as the other tools do: another case, a
// left-out .md or a name the note had before, with suggestions otherwise.
func TestHistoryToolsResolvePaths(t *testing.T) {
	g := newGitVault(t)
	alpha, budget := "Projects/Projet Alpha.md", "Projects/Réunion budget 2026.md"
	g.ok("write_file", map[string]any{"path": alpha, "content": "alpha\n"})
	g.ok("write_file", map[string]any{"path": budget, "content": "budget\n"})
	g.ok("edit_file", map[string]any{"path": alpha, "old_text": "alpha", "new_text": "alpha 2"})
	g.ok("edit_file", map[string]any{"path": budget, "old_text": "budget", "new_text": "budget 2"})
	g.ok("write_file", map[string]any{"path": "Gone/Ancienne Note.md", "content": "old\n"})
	g.ok("delete_file", map[string]any{"path": "Gone/Ancienne Note.md"})
	g.ok("write_file", map[string]any{"path": "Journal/Grand Journal de Bord.md", "content": "journal\n"})
	g.ok("rename_file", map[string]any{"old_path": "Journal/Grand Journal de Bord.md", "new_path": "Journal/Journal.md"})
	g.ok("write_file", map[string]any{"path": "Reunion.md", "content": "1\n"})
	g.ok("write_file", map[string]any{"path": "Réunion.md", "content": "2\n"})
	taken := func(given, rel string) string {
		return "(" + given + " is taken as " + rel + ", the one name that matches it ignoring case, accents and .md.)\n\n"
	}
	cases := []struct {
		tool  string
		args  map[string]any
		want  []string
		fails bool
	}{
		{"get_recent_changes", map[string]any{"path": "projects"}, []string{taken("projects", "Projects/"), "MCP: edit Projects/Réunion budget 2026.md", "of 4."}, false},
		{"get_recent_changes", map[string]any{"path": "gone"}, []string{taken("gone", "Gone/"), "[deleted] Gone/Ancienne Note.md"}, false},
		{"get_note_history", map[string]any{"path": "projects/projet alpha.md"}, []string{taken("projects/projet alpha.md", alpha), "History of " + alpha, "of 2."}, false},
		{"get_note_history", map[string]any{"path": "Projects/Projet Alpha"}, []string{"History of " + alpha}, false},
		{"get_note_history", map[string]any{"path": "gone/ancienne note"}, []string{taken("gone/ancienne note", "Gone/Ancienne Note.md"), "· deleted (+0 -1)"}, false},
		{"get_note_history", map[string]any{"path": "Gone/Ancienne Note.md"}, []string{"History of Gone/Ancienne Note.md"}, false},
		{"get_note_history", map[string]any{"path": "Journal/Grand Journal de Bord.md"}, []string{
			"· renamed Journal/Grand Journal de Bord.md -> Journal/Journal.md\n",
			"(Journal/Grand Journal de Bord.md is an old name: ", "it is called Journal/Journal.md now"}, false},
		{"get_diff", map[string]any{"from": "HEAD~9", "path": "projects/projet alpha.md"}, []string{"Diff of " + alpha, "+alpha 2"}, false},
		{"read_file", map[string]any{"version": "HEAD~9", "path": "projects/projet alpha"}, []string{"[" + alpha + " at version "}, false},
		{"revert_change", map[string]any{"commit": "HEAD~6", "path": "projects/réunion budget 2026.md"}, []string{taken("projects/réunion budget 2026.md", budget), "- " + budget + ": edits of"}, false},
		// Two notes match but for accents: both offered.
		{"get_note_history", map[string]any{"path": "reunion.md"}, []string{"Not found: reunion.md", "did you mean Reunion.md or Réunion.md?"}, true},
		// A typo: suggested, not taken.
		{"get_note_history", map[string]any{"path": "Projects/Projet Alpah.md"}, []string{"did you mean " + alpha + "?"}, true},
		// An old name, for the current file: the name now is offered.
		{"read_file", map[string]any{"path": "Journal/Grand Journal de Bord.md"}, []string{"did you mean Journal/Journal.md?"}, true},
		{"get_recent_changes", map[string]any{"path": "nowhere"}, []string{"Not found: nowhere is neither in the vault nor in its history"}, true},
		{"get_note_history", map[string]any{"path": "Projects"}, []string{"Is a directory, not a note: Projects", `get_recent_changes(path="Projects")`}, true},
	}
	for _, c := range cases {
		if c.fails {
			g.fails(c.tool, c.args, c.want...)
			continue
		}
		got := g.ok(c.tool, c.args)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %v: want %q in\n%s", c.tool, c.args, w, got)
			}
		}
	}
}

// limit is get_recent_changes' page size; count, its old name, still
// works; a date alone as a version is the start of that day, and a diff
// between one commit and itself says what to ask instead.
func TestGetRecentChangesLimitAndDates(t *testing.T) {
	g := newGitVault(t)
	buildNoteHistory(g)
	cases := []struct {
		args map[string]any
		want string // "" : fails
		err  string
	}{
		{map[string]any{"limit": 1}, "Showing commits 1–1 of 4; next page: offset=1.", ""},
		{map[string]any{"count": 2}, "Showing commits 1–2 of 4; next page: offset=2.", ""},
		{map[string]any{"limit": 3, "count": 3}, "Showing commits 1–3 of 4; next page: offset=3.", ""},
		{map[string]any{"limit": 1, "count": 2}, "", "limit=1 and count=2 disagree"},
		{map[string]any{"limit": 21}, "", "limit"},
	}
	for _, c := range cases {
		if c.want == "" {
			g.fails("get_recent_changes", c.args, c.err)
			continue
		}
		if got := g.ok("get_recent_changes", c.args); !strings.Contains(got, c.want) {
			t.Errorf("%v:\n%s", c.args, got)
		}
	}
	// The commits are made on 2024-03-01: as of the next day is HEAD.
	got := g.ok("get_diff", map[string]any{"from": "2024-03-02", "path": "projects/plan.md"})
	for _, w := range []string{"No changes to projects/plan.md", "from=\"2024-03-02\" and to=\"HEAD\" are the same commit", "a date alone means the start of that day",
		"get_recent_changes(since=…)", "HEAD~N", "get_note_history(path=\"projects/plan.md\")"} {
		if !strings.Contains(got, w) {
			t.Errorf("same commit: want %q in\n%s", w, got)
		}
	}
	g.fails("get_diff", map[string]any{"from": "2024-03-01", "path": "projects/plan.md"}, "history starts at", "a date alone is the start of that day", `since="2024-03-01"`)
	if got := g.ok("get_diff", map[string]any{"from": "HEAD~1", "to": "HEAD~1"}); !strings.Contains(got, "are the same commit") || strings.Contains(got, "a date alone") {
		t.Errorf("HEAD~1 to itself:\n%s", got)
	}
}

// FuzzHistoryPath checks the history tools' path resolution: whatever the
// path, an answer or an error, never a panic, and a path taken for
// another is one the vault or its history holds.
func FuzzHistoryPath(f *testing.F) {
	for _, s := range []string{"projects/projet alpha.md", "Projects/Projet Alpha", "PROJECTS", "gone/ancienne note", "Réunion.md",
		"../x.md", ".git/config", "a//b/../c.md", "\x00", "projects/", "Projects/Projet Alpah.md", "é/É.md", "/"} {
		f.Add(s)
	}
	g := newGitVault(f)
	g.ok("write_file", map[string]any{"path": "Projects/Projet Alpha.md", "content": "alpha\n"})
	g.ok("write_file", map[string]any{"path": "Gone/Ancienne Note.md", "content": "old\n"})
	g.ok("delete_file", map[string]any{"path": "Gone/Ancienne Note.md"})
	g.ok("write_file", map[string]any{"path": "Reunion.md", "content": "1\n"})
	g.ok("write_file", map[string]any{"path": "Réunion.md", "content": "2\n"})
	known := map[string]bool{"Projects/Projet Alpha.md": true, "Gone/Ancienne Note.md": true, "Reunion.md": true, "Réunion.md": true}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, p string) {
		res, err := tools.NoteHistory(ctx, g.d, tools.NoteHistoryArgs{Path: p})
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("%q: empty error", p)
			}
			return
		}
		if res.Resolved != "" && !known[res.History.Path] {
			t.Fatalf("%q taken as %q", p, res.History.Path)
		}
		if rc, err := tools.RecentChanges(ctx, g.d, tools.RecentChangesArgs{Path: p}); err == nil && rc.Resolved != "" && !strings.Contains(rc.Resolved, "taken as") {
			t.Fatalf("%q: %q", p, rc.Resolved)
		}
	})
}

// Every tool that takes a time reads the same forms, relative ones
// included, and names the argument and the forms when it cannot.
func TestTimeFormsAreTheSameEverywhere(t *testing.T) {
	t.Parallel()
	g := newGitVault(t)
	g.ok("write_file", map[string]any{"path": "a.md", "content": "x\n"})
	uses := []struct {
		tool, arg string
		args      func(string) map[string]any
	}{
		{"find_files", "modified_after", func(s string) map[string]any { return map[string]any{"modified_after": s} }},
		{"find_files", "modified_before", func(s string) map[string]any { return map[string]any{"modified_before": s} }},
		{"query_notes", "modified_after", func(s string) map[string]any { return map[string]any{"filter": map[string]any{"modified_after": s}} }},
		{"query_notes", "modified_before", func(s string) map[string]any { return map[string]any{"filter": map[string]any{"modified_before": s}} }},
		{"get_recent_changes", "since", func(s string) map[string]any { return map[string]any{"since": s} }},
		{"get_note_history", "since", func(s string) map[string]any { return map[string]any{"path": "a.md", "since": s} }},
		{"get_diff", "", func(s string) map[string]any { return map[string]any{"from": s, "path": "a.md"} }},
		{"read_file", "", func(s string) map[string]any { return map[string]any{"path": "a.md", "version": s} }},
	}
	forms := []string{"2024-05-01", "2024-05-01T14:30", "2024-05-01 14:30:00", "2024-05-01T14:30:00Z", "2024-05-01T14:30:00+02:00",
		"now", "today", "yesterday", "90m", "36h", "7d", "2w", "3mo", "1y", "2 weeks ago", "an hour ago", "last month"}
	for _, u := range uses {
		for _, f := range forms {
			text, isErr := g.call(u.tool, u.args(f))
			// A version before the history began is an error of its own.
			if isErr && (strings.Contains(text, "not a") || strings.Contains(text, "not understood")) {
				t.Errorf("%s(%s=%q) = %s", u.tool, u.arg, f, text)
			}
		}
		want := []string{"2 weeks ago"}
		if u.arg != "" {
			want = append(want, u.arg)
		}
		g.fails(u.tool, u.args("last fortnight"), want...)
	}
}
