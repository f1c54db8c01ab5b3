package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/guides"
	"vaultmcp/tools"
	"vaultmcp/vault"
)

func TestGetClaudeContext(t *testing.T) {
	h := newHarness(t, 0)
	h.file("CLAUDE.md", "# Root rules\n")
	h.file("projects/CLAUDE.md", "# Project conventions\nUse kebab-case for filenames.\n")
	h.file("projects/webapp/CLAUDE.md", "# Webapp specifics\nComponents go in components/.\n")
	h.file("projects/webapp/notes/todo.md", "x\n")
	h.file("notes/a.md", "x\n")

	// The documented example, byte for byte.
	want := "--- CLAUDE.md in projects/ ---\n# Project conventions\nUse kebab-case for filenames.\n\n" +
		"--- CLAUDE.md in projects/webapp/ ---\n# Webapp specifics\nComponents go in components/."
	for _, path := range []string{"projects/webapp", "projects/webapp/", "projects/webapp/notes", "projects/webapp/notes/todo.md"} {
		if got := h.ok("get_claude_context", `{"path":"`+path+`"}`); got != want {
			t.Errorf("get_claude_context(%q) =\n%s\nwant\n%s", path, got, want)
		}
	}
	// A folder not made yet gets its parents' rules, and is told so.
	if got := h.ok("get_claude_context", `{"path":"projects/webapp/not/yet"}`); got != want+"\n\n(projects/webapp/not/yet does not exist yet: these are the rules of the folders above it)" {
		t.Errorf("missing folder: %q", got)
	}
	if got := h.ok("get_claude_context", `{"path":"Projects/Webapp/Notes"}`); !strings.Contains(got, "(Projects/Webapp/Notes does not exist yet: these are the rules of the folders above it; did you mean projects/webapp/notes/") {
		t.Errorf("mistyped folder: %q", got)
	}
	if got := h.ok("get_claude_context", `{"path":"projects"}`); got != "--- CLAUDE.md in projects/ ---\n# Project conventions\nUse kebab-case for filenames." {
		t.Errorf("projects: %q", got)
	}
	if got := h.ok("get_claude_context", `{"path":"nowhere"}`); got != tools.NoClaudeContext+"\n\n(nowhere does not exist yet: these are the rules of the folders above it)" {
		t.Errorf("nowhere: %q", got)
	}
	for _, path := range []string{"", "notes", "."} {
		if got := h.ok("get_claude_context", `{"path":"`+path+`"}`); got != tools.NoClaudeContext {
			t.Errorf("get_claude_context(%q) = %q, want the root left out", path, got)
		}
	}

	h.fails("get_claude_context", `{"path":"../elsewhere"}`, "outside the vault")
	h.fails("get_claude_context", `{"path":".claude/rules"}`, "hidden")
	h.fails("get_claude_context", `{"path":"a\u0000b"}`, "NUL")
	h.fails("get_claude_context", `{}`, `missing required argument "path"`)
	h.fails("get_claude_context", `{"path":3}`, `argument "path"`)
	h.fails("get_claude_context", `{"path":"x","depth":2}`, `unknown argument "depth"`)
}

// A CLAUDE.md symlinked from outside the vault is never read.
func TestGetClaudeContextSymlinkOut(t *testing.T) {
	h := newHarness(t, 0)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "CLAUDE.md"), []byte("server secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.file("projects/CLAUDE.md", "# ok\n")
	if err := os.MkdirAll(filepath.Join(h.root, "projects", "evil"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "CLAUDE.md"), filepath.Join(h.root, "projects", "evil", "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	got := h.ok("get_claude_context", `{"path":"projects/evil"}`)
	if strings.Contains(got, "secret") || got != "--- CLAUDE.md in projects/ ---\n# ok" {
		t.Errorf("got %q", got)
	}
}

func TestGetObsidianGuide(t *testing.T) {
	h := newHarness(t, 0)
	tests := []struct {
		args string
		want []string
	}{
		{`{"topic":"conventions"}`, []string{"# Vault conventions", "[[Note#^block-id]]", "> [!note]"}},
		{`{"topic":"create-note"}`, []string{"# New note: zettel"}},
		{`{"topic":"create-note","note_type":"meeting"}`, []string{"# New note: meeting", "## Action items"}},
		{`{"topic":"create-note","note_type":"daily"}`, []string{"# New note: daily"}},
		{`{"topic":"create-note","note_type":"project"}`, []string{"# New note: project"}},
		{`{"topic":"create-note","note_type":"literature"}`, []string{"# New note: literature"}},
		{`{"topic":"search-strategy"}`, []string{"# Search strategy", "`grep`", "`search_files`", "`find_files`", "`get_backlinks`", "`search_concepts`"}},
		{`{"topic":"all"}`, []string{"# Vault conventions", "# New note: daily", "# New note: literature", "# Search strategy"}},
	}
	for _, tt := range tests {
		got := h.ok("get_obsidian_guide", tt.args)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("get_obsidian_guide %s lacks %q", tt.args, w)
			}
		}
	}

	h.fails("get_obsidian_guide", `{"topic":"recipes"}`, `argument "topic"`, "conventions", "create-note", "search-strategy", "all")
	h.fails("get_obsidian_guide", `{"topic":"create-note","note_type":"recipe"}`, `argument "note_type"`, "daily", "meeting", "project", "zettel", "literature")
	h.fails("get_obsidian_guide", `{}`, `missing required argument "topic"`)
	h.fails("get_obsidian_guide", `{"topic":"all","extra":true}`, `unknown argument "extra"`)

	// The vault's own guides win; a guide it lacks stays built in.
	h.file(guides.OverrideDir+"/conventions.md", "# Our conventions\nTitle Case file names.\n")
	h.file(guides.OverrideDir+"/create-note/meeting.md", "# Our meeting notes\n")
	if got := h.ok("get_obsidian_guide", `{"topic":"conventions"}`); got != "# Our conventions\nTitle Case file names.\n" {
		t.Errorf("override not used: %q", got)
	}
	if got := h.ok("get_obsidian_guide", `{"topic":"create-note","note_type":"meeting"}`); got != "# Our meeting notes\n" {
		t.Errorf("template override not used: %q", got)
	}
	if got := h.ok("get_obsidian_guide", `{"topic":"create-note","note_type":"daily"}`); !strings.Contains(got, "# New note: daily") {
		t.Errorf("built-in template lost: %q", got)
	}
}

// The typed functions answer the REST API as the tools answer MCP, and
// refuse what the schema would have refused.
func TestGuidanceFunctions(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "CLAUDE.md"), []byte("rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := tools.Deps{Vault: v} // no Guidance: the functions read the disk
	res, err := tools.ClaudeContext(context.Background(), d, tools.ClaudeContextArgs{Path: "a/b"})
	if err != nil || len(res.Files) != 1 || res.Files[0].Folder != "a" || res.Files[0].Content != "rules\n" {
		t.Errorf("ClaudeContext = %+v, %v", res, err)
	}
	if _, err := tools.ObsidianGuide(context.Background(), d, tools.GuideArgs{Topic: "nope"}); err == nil ||
		!strings.Contains(err.Error(), "valid topics: conventions, create-note, search-strategy, all") {
		t.Errorf("bad topic: %v", err)
	}
	if _, err := tools.ObsidianGuide(context.Background(), d, tools.GuideArgs{Topic: "create-note", NoteType: "nope"}); err == nil ||
		!strings.Contains(err.Error(), "valid note types: daily, meeting, project, zettel, literature") {
		t.Errorf("bad note type: %v", err)
	}
	g, err := tools.ObsidianGuide(context.Background(), d, tools.GuideArgs{Topic: "create-note", NoteType: "daily"})
	if err != nil || !strings.HasPrefix(g.Text, "# New note: daily") {
		t.Errorf("ObsidianGuide = %+v, %v", g, err)
	}
}
