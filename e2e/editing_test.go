package e2e

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// editingTools are the tools that edit notes by structure, query them by
// properties and search them by relevance, with the arguments each
// requires and whether it only reads.
var editingTools = map[string]struct {
	required []string
	readOnly bool
}{
	"patch_note":        {[]string{"operation", "path", "target", "target_type"}, false},
	"get_properties":    {[]string{"path"}, true},
	"set_properties":    {[]string{"path"}, false},
	"query_notes":       {nil, true},
	"search_notes":      {[]string{"query"}, true},
	"get_daily_note":    {nil, true},
	"create_daily_note": {nil, false},
}

func editingFixture() map[string]string {
	return map[string]string{
		"Projects/Plan.md": "---\n# owner first\nowner: \"[[Ann]]\"\nstatus: draft # until reviewed\ntags:\n  - project\n---\n" +
			"# Plan\r\n\r\n## Tasks\r\n- [ ] one\r\n\r\n## Notes\r\n```\r\n## Not a heading\r\n```\r\nSee [[Home]]. ^keep\r\n",
		"Areas/Tasks.md":             "# Tasks\n## Tasks\nnested\n",
		"Home.md":                    "---\nstatus: done\npriority: 3\n---\n# Home\nThe garden irrigation plan lives in [[Plan]].\n",
		"Garden.md":                  "---\ntags: [garden, project/side]\naliases: [Allotment]\n---\nTomatoes and beans.\n",
		".obsidian/daily-notes.json": `{"folder": "Journal", "format": "YYYY-MM-DD", "template": "Templates/Daily"}`,
		"Templates/Daily.md":         "# {{date:dddd D MMMM YYYY}}\n## Log\n",
	}
}

// commitCount returns how many commits HEAD has.
func commitCount(t *testing.T, v *testVault) int {
	t.Helper()
	n, err := strconv.Atoi(v.gitRun(t, "rev-list", "--count", "HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// lastCommit returns the last commit's subject and the files it touched.
func lastCommit(t *testing.T, v *testVault) (string, []string) {
	t.Helper()
	lines := strings.Split(v.gitRun(t, "show", "--name-only", "--format=%s", "HEAD"), "\n")
	var files []string
	for _, l := range lines[1:] {
		if l != "" {
			files = append(files, l)
		}
	}
	return lines[0], files
}

func TestEditingToolsListed(t *testing.T) {
	t.Parallel()
	s := startSession(t, newVault(t, nil))
	seen := map[string]bool{}
	for _, tool := range s.listTools(t) {
		want, ours := editingTools[tool.Name]
		if !ours {
			continue
		}
		seen[tool.Name] = true
		req := slices.Clone(tool.InputSchema.Required)
		slices.Sort(req)
		if !slices.Equal(req, want.required) && !(len(req) == 0 && want.required == nil) {
			t.Errorf("%s: required %v, want %v", tool.Name, req, want.required)
		}
		a := tool.Annotations
		if *a.ReadOnlyHint != want.readOnly || *a.OpenWorldHint {
			t.Errorf("%s: readOnly %v openWorld %v", tool.Name, *a.ReadOnlyHint, *a.OpenWorldHint)
		}
		if !want.readOnly && tool.Name != "create_daily_note" && !*a.DestructiveHint {
			t.Errorf("%s: a tool that replaces and deletes must say it is destructive", tool.Name)
		}
	}
	for name := range editingTools {
		if !seen[name] {
			t.Errorf("tools/list lacks %s", name)
		}
	}
}

func TestPatchNote(t *testing.T) {
	t.Parallel()
	v := newVault(t, editingFixture())
	s := startSession(t, v)
	plan := v.read(t, "Projects/Plan.md")

	// Append under a heading in a note with a CRLF body: after the
	// section's last line, in CRLF, the rest byte for byte, one commit.
	n := commitCount(t, v)
	out := s.ok(t, "patch_note", map[string]any{"path": "Projects/Plan.md", "target_type": "heading", "target": "Plan::Tasks", "operation": "append", "content": "- [ ] two\n- [ ] three"})
	wantContains(t, "patch_note", out, `"changed":true`, `"commit":"`)
	want := strings.Replace(plan, "- [ ] one\r\n", "- [ ] one\r\n- [ ] two\r\n- [ ] three\r\n", 1)
	if got := v.read(t, "Projects/Plan.md"); got != want {
		t.Fatalf("append:\ngot  %q\nwant %q", got, want)
	}
	if got := commitCount(t, v); got != n+1 {
		t.Errorf("%d commits, want 1", got-n)
	}
	subject, files := lastCommit(t, v)
	if subject != "MCP: patch Projects/Plan.md (append heading Plan::Tasks)" || !slices.Equal(files, []string{"Projects/Plan.md"}) {
		t.Errorf("commit %q %q", subject, files)
	}

	// A block, then a property: one commit each.
	s.ok(t, "patch_note", map[string]any{"path": "Projects/Plan.md", "target_type": "block", "target": "^keep", "operation": "replace", "content": "See [[Home]] and [[Garden]]."})
	s.ok(t, "patch_note", map[string]any{"path": "Projects/Plan.md", "target_type": "frontmatter", "target": "status", "operation": "replace", "content": "active"})
	want = strings.Replace(want, "See [[Home]]. ^keep", "See [[Home]] and [[Garden]]. ^keep", 1)
	want = strings.Replace(want, "status: draft #", "status: active #", 1)
	if got := v.read(t, "Projects/Plan.md"); got != want {
		t.Fatalf("block and property:\ngot  %q\nwant %q", got, want)
	}
	if got := commitCount(t, v); got != n+3 {
		t.Errorf("%d commits, want 3", got-n)
	}
	// The index saw the patch: the new link is a backlink already.
	wantContains(t, "backlinks", s.ok(t, "get_backlinks", map[string]any{"note_name": "Garden"}), "Projects/Plan.md")

	// Refusals name the candidates and change nothing.
	before := v.snapshot(t)
	msg := s.fail(t, "patch_note", map[string]any{"path": "Projects/Plan.md", "target_type": "heading", "target": "Not a heading", "operation": "append", "content": "x"})
	wantContains(t, "not found", msg, "not found", `"Plan::Tasks"`, `"Plan::Notes"`)
	text, _ := s.call(t, "patch_note", map[string]any{"path": "Areas/Tasks.md", "target_type": "heading", "target": "Tasks", "operation": "append", "content": "x"})
	wantContains(t, "ambiguous", text, `"candidates":["Tasks (line 1)","Tasks::Tasks (line 2)"]`)
	s.fail(t, "patch_note", map[string]any{"path": "Projects/Plan.md", "target_type": "line", "target": "1", "operation": "append", "content": "x"})
	s.fail(t, "patch_note", map[string]any{"path": "../outside.md", "target_type": "heading", "target": "x", "operation": "append", "content": "x"})
	v.unchanged(t, before)
}

func TestProperties(t *testing.T) {
	t.Parallel()
	v := newVault(t, editingFixture())
	s := startSession(t, v)
	got := s.ok(t, "get_properties", map[string]any{"path": "Projects/Plan.md"})
	if got != `{"path":"Projects/Plan.md","properties":{"owner":"[[Ann]]","status":"draft","tags":["project"]},"types":{"owner":"text","status":"text","tags":"list"},"version":"919fdecb9b584ced6c606e80463180022054c2f4"}` {
		t.Errorf("get_properties = %s", got)
	}
	n := commitCount(t, v)
	out := s.ok(t, "set_properties", map[string]any{"path": "Projects/Plan.md", "properties": map[string]any{"status": "done", "due": "2026-02-01", "priority": 2}, "remove": []string{"owner"}})
	wantContains(t, "set_properties", out, `"set":["status"]`, `"removed":["owner"]`, `"changed":true`)
	fm := "---\n# owner first\nstatus: done # until reviewed\ntags:\n  - project\ndue: 2026-02-01\npriority: 2\n---\n"
	if got := v.read(t, "Projects/Plan.md"); !strings.HasPrefix(got, fm) || !strings.HasSuffix(got, "^keep\r\n") {
		t.Errorf("after set_properties:\n%q", got)
	}
	if commitCount(t, v) != n+1 {
		t.Errorf("want one commit")
	}
	subject, files := lastCommit(t, v)
	if subject != "MCP: set properties of Projects/Plan.md (status, due, priority, owner)" || !slices.Equal(files, []string{"Projects/Plan.md"}) {
		t.Errorf("commit %q %q", subject, files)
	}
	// The same again changes nothing.
	out = s.ok(t, "set_properties", map[string]any{"path": "Projects/Plan.md", "properties": map[string]any{"status": "done"}})
	wantContains(t, "no-op", out, `"changed":false`)
	if commitCount(t, v) != n+1 {
		t.Errorf("a no-op set committed")
	}
}

func TestQueryAndSearchNotes(t *testing.T) {
	t.Parallel()
	v := newVault(t, editingFixture())
	s := startSession(t, v)
	var q struct {
		Total int `json:"total"`
		Notes []struct {
			Path string `json:"path"`
		} `json:"notes"`
	}
	run := func(args map[string]any) []string {
		t.Helper()
		if err := json.Unmarshal([]byte(s.ok(t, "query_notes", args)), &q); err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, n := range q.Notes {
			paths = append(paths, n.Path)
		}
		return paths
	}
	for _, tc := range []struct {
		filter map[string]any
		sort   string
		want   []string
	}{
		{map[string]any{"tags": "project"}, "", []string{"Garden.md", "Projects/Plan.md"}},
		{map[string]any{"properties": map[string]any{"status": "done", "priority": map[string]any{"gte": 3}}}, "", []string{"Home.md"}},
		{map[string]any{"folder": "Projects"}, "", []string{"Projects/Plan.md"}},
		{map[string]any{"links_to": "Home"}, "", []string{"Projects/Plan.md"}},
		{map[string]any{"links_from": "Home"}, "", []string{"Projects/Plan.md"}},
		{map[string]any{"any": []any{map[string]any{"tags": "garden"}, map[string]any{"properties": map[string]any{"status": "done"}}}}, "-path", []string{"Home.md", "Garden.md"}},
		{map[string]any{"modified_after": time.Now().Add(24 * time.Hour).Format(time.DateOnly)}, "", nil},
	} {
		args := map[string]any{"filter": tc.filter}
		if tc.sort != "" {
			args["sort"] = tc.sort
		}
		if got := run(args); !slices.Equal(got, tc.want) {
			t.Errorf("query_notes %v = %q, want %q", tc.filter, got, tc.want)
		}
	}
	msg := s.fail(t, "query_notes", map[string]any{"filter": map[string]any{"properties": map[string]any{"priority": map[string]any{"bigger": 1}}}})
	wantContains(t, "bad operator", msg, `unknown operator "bigger"`)

	var r struct {
		Total   int `json:"total"`
		Results []struct {
			Path    string `json:"path"`
			Snippet string `json:"snippet"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(s.ok(t, "search_notes", map[string]any{"query": "allotment"})), &r); err != nil {
		t.Fatal(err)
	}
	if r.Total != 1 || r.Results[0].Path != "Garden.md" {
		t.Errorf("search by alias: %+v", r)
	}
	if err := json.Unmarshal([]byte(s.ok(t, "search_notes", map[string]any{"query": "garden"})), &r); err != nil {
		t.Fatal(err)
	}
	if r.Total != 2 || r.Results[0].Path != "Garden.md" || r.Results[1].Snippet != "The garden irrigation plan lives in [[Plan]]." {
		t.Errorf("search: %+v", r)
	}
	// A write is found by the next search and query.
	s.ok(t, "write_file", map[string]any{"path": "New.md", "content": "---\nstatus: fresh\n---\nquinoa salad"})
	if err := json.Unmarshal([]byte(s.ok(t, "search_notes", map[string]any{"query": "quinoa"})), &r); err != nil {
		t.Fatal(err)
	}
	if r.Total != 1 || r.Results[0].Path != "New.md" {
		t.Errorf("search after write: %+v", r)
	}
	if got := run(map[string]any{"filter": map[string]any{"properties": map[string]any{"status": "fresh"}}}); !slices.Equal(got, []string{"New.md"}) {
		t.Errorf("query after write: %q", got)
	}
}

func TestDailyNote(t *testing.T) {
	t.Parallel()
	v := newVault(t, editingFixture())
	s := startSession(t, v)
	out := s.ok(t, "get_daily_note", map[string]any{"date": "2026-03-09"})
	if out != `{"path":"Journal/2026-03-09.md","date":"2026-03-09","exists":false}` {
		t.Errorf("get_daily_note = %s", out)
	}
	n := commitCount(t, v)
	out = s.ok(t, "create_daily_note", map[string]any{"date": "2026-03-09"})
	wantContains(t, "create_daily_note", out, `"created":true`, `"path":"Journal/2026-03-09.md"`)
	if got := v.read(t, "Journal/2026-03-09.md"); got != "# Monday 9 March 2026\n## Log\n" {
		t.Errorf("daily note: %q", got)
	}
	subject, files := lastCommit(t, v)
	if commitCount(t, v) != n+1 || subject != "MCP: create Journal/2026-03-09.md (daily note)" || !slices.Equal(files, []string{"Journal/2026-03-09.md"}) {
		t.Errorf("commit %q %q", subject, files)
	}
	// Then it is a note like any other: patch its log.
	s.ok(t, "patch_note", map[string]any{"path": "Journal/2026-03-09.md", "target_type": "heading", "target": "Log", "operation": "append", "content": "- 09:00 standup"})
	out = s.ok(t, "create_daily_note", map[string]any{"date": "2026-03-09"})
	wantContains(t, "create again", out, `"exists":true`, "- 09:00 standup")
	if strings.Contains(out, `"created":true`) {
		t.Errorf("created twice: %s", out)
	}
	msg := s.fail(t, "get_daily_note", map[string]any{"date": "next tuesday"})
	wantContains(t, "bad date", msg, "YYYY-MM-DD")
}
