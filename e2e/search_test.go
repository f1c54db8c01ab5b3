package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// searchFixture is a small vault with the things search must handle:
// nested folders, CRLF, a binary file, Obsidian's folders and a hidden
// one, whose content must never show up.
func searchFixture() map[string]string {
	return map[string]string{
		"Welcome.md":                "# Welcome\nTODO: tidy the inbox\n",
		"Daily Notes/2025-01-01.md": "# New year\n- todo: plan the year\n- call Ann\n",
		"Daily Notes/2025-01-02.md": "# Day two\r\nnothing to do\r\n",
		"Projects/Alpha.md":         "---\nstatus: todo\n---\n# Alpha\nSee [[Welcome]].\n",
		"Projects/diagram.png":      "\x89PNG\r\n\x1a\n\x00todo",
		".obsidian/workspace.json":  `{"todo": true}`,
		".trash/old.md":             "todo: deleted\n",
		".claude/notes.md":          "todo: claude\n",
	}
}

func TestSearchTools(t *testing.T) {
	t.Parallel()
	v := newVault(t, searchFixture())
	s := startSession(t, v)

	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search_files", map[string]any{"pattern": "*.md"},
			"Daily Notes/2025-01-01.md\nDaily Notes/2025-01-02.md\nProjects/Alpha.md\nWelcome.md"},
		{"search_files", map[string]any{"pattern": "Daily Notes/2025-*", "limit": 1},
			"Daily Notes/2025-01-01.md\n[showing 1–1 of 2 files; call again with offset=1 for the next page]"},
		{"search_files", map[string]any{"pattern": "*.{png,jpg}", "path": "Projects"}, "Projects/diagram.png"},
		{"grep", map[string]any{"query": "todo"},
			"Daily Notes/2025-01-01.md:2: - todo: plan the year\nProjects/Alpha.md:2: status: todo\nWelcome.md:2: TODO: tidy the inbox"},
		{"grep", map[string]any{"query": `^- \w+ Ann$`, "is_regex": true, "case_sensitive": true},
			"Daily Notes/2025-01-01.md:3: - call Ann"},
		{"grep", map[string]any{"query": "to do$", "is_regex": true}, "Daily Notes/2025-01-02.md:2: nothing to do"},
		{"grep", map[string]any{"query": "plan", "context_lines": 1},
			"Daily Notes/2025-01-01.md-1- # New year\nDaily Notes/2025-01-01.md:2: - todo: plan the year\nDaily Notes/2025-01-01.md-3- - call Ann"},
		{"grep", map[string]any{"query": "todo", "include_pattern": "Projects/**"}, "Projects/Alpha.md:2: status: todo"},
		{"grep", map[string]any{"query": "claude"}, `No matches for "claude" (4 files searched)`},
	} {
		if got := s.ok(t, tc.tool, tc.args); got != tc.want {
			t.Errorf("%s %v =\n%s\nwant\n%s", tc.tool, tc.args, got, tc.want)
		}
	}

	found := s.ok(t, "find_files", map[string]any{"name": "2025", "modified_after": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)})
	lines := strings.Split(found, "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "Daily Notes/2025-01-01.md  44 bytes  20") {
		t.Errorf("find_files = %q", found)
	}
	if got := s.ok(t, "find_files", map[string]any{"modified_before": "2000-01-01"}); got != "No files found with these filters" {
		t.Errorf("find_files before 2000 = %q", got)
	}

	info := s.ok(t, "get_vault_info", nil)
	wantContains(t, "get_vault_info", info, "Total files: 5", "Markdown files: 4", "Folders: 2", "Daily Notes/ (2 files)", "Projects/ (2 files)", "Last sync:")
	res, err := s.callResult("get_vault_info", nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var structured struct {
		TotalFiles    int `json:"total_files"`
		MarkdownFiles int `json:"markdown_files"`
		Sync          *struct {
			Branch string `json:"branch"`
		} `json:"sync"`
	}
	if err := json.Unmarshal(raw, &structured); err != nil || structured.TotalFiles != 5 || structured.MarkdownFiles != 4 ||
		structured.Sync == nil || structured.Sync.Branch == "" {
		t.Errorf("structuredContent = %s (%v)", raw, err)
	}
}

func TestSearchBadInput(t *testing.T) {
	t.Parallel()
	v := newVault(t, searchFixture())
	s := startSession(t, v)
	before := v.snapshot(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"search_files", map[string]any{"pattern": "[a-"}, []string{"invalid pattern"}},
		{"search_files", map[string]any{"pattern": "*", "path": "../outside"}, []string{"outside the vault"}},
		{"search_files", map[string]any{"pattern": "*", "path": ".git"}, []string{"hidden"}},
		{"grep", map[string]any{"query": "a(b", "is_regex": true}, []string{"invalid regular expression", "missing closing )"}},
		{"grep", map[string]any{"query": "x", "path": v.Outside}, []string{"outside the vault"}},
		{"grep", map[string]any{"query": "x", "path": "Missing"}, []string{"not found"}},
		{"grep", map[string]any{"query": "x", "context_lines": 9}, []string{"context_lines"}},
		{"find_files", map[string]any{"modified_after": "next tuesday"}, []string{"modified_after", "2024-05-01", "2 weeks ago"}},
		{"find_files", map[string]any{"size_min": 5, "size_max": 1}, []string{"size_min"}},
		{"find_files", map[string]any{"path": "Welcome.md"}, []string{"Not a directory"}},
	} {
		msg := s.fail(t, tc.tool, tc.args)
		wantContains(t, fmt.Sprintf("%s %v", tc.tool, tc.args), msg, tc.want...)
	}
	v.unchanged(t, before)
}

func TestSearchStaysInTheVault(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"inside.md": "secret inside\n"})
	v.write(t, "../outside/secret.md", "secret outside\n")
	v.symlink(t, "link.md", filepath.Join(v.Outside, "secret.md"))
	v.symlink(t, "linked", v.Outside)
	s := startSession(t, v)
	if got := s.ok(t, "grep", map[string]any{"query": "secret"}); got != "inside.md:1: secret inside" {
		t.Errorf("grep followed a symlink out of the vault: %q", got)
	}
	if got := s.ok(t, "search_files", map[string]any{"pattern": "**/secret*"}); !strings.HasPrefix(got, "No files match") {
		t.Errorf("search_files listed a file outside the vault: %q", got)
	}
}

func TestSearchEmptyVault(t *testing.T) {
	t.Parallel()
	v := newVault(t, nil)
	s := startSession(t, v)
	if got := s.ok(t, "grep", map[string]any{"query": "x"}); got != `No matches for "x" (0 files searched)` {
		t.Errorf("grep = %q", got)
	}
	if got := s.ok(t, "search_files", map[string]any{"pattern": "*"}); got != `No files match "*". To search inside files use grep.` {
		t.Errorf("search_files = %q", got)
	}
	wantContains(t, "get_vault_info", s.ok(t, "get_vault_info", nil), "Total files: 0", "Top-level folders: none")
}

// A write through the server is found by the next grep (read your
// writes), and a file changed behind the server's back is found once the
// watcher has seen it.
func TestGrepSeesChanges(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"a.md": "alpha\n"})
	s := startSession(t, v)
	s.ok(t, "grep", map[string]any{"query": "alpha"})
	s.ok(t, "write_file", map[string]any{"path": "notes/new.md", "content": "a fresh zebra\n"})
	if got := s.ok(t, "grep", map[string]any{"query": "zebra"}); got != "notes/new.md:1: a fresh zebra" {
		t.Errorf("grep after write_file = %q", got)
	}
	v.write(t, "outside-edit.md", "an okapi appears\n")
	start := time.Now()
	for {
		got := s.ok(t, "grep", map[string]any{"query": "okapi"})
		if got == "outside-edit.md:1: an okapi appears" {
			break
		}
		if time.Since(start) > 15*time.Second {
			t.Fatalf("an external edit never reached grep: %q", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
