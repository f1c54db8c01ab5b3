package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vaultmcp/gitsync"
	"vaultmcp/internal/tokens"
	"vaultmcp/tools"
)

func TestGetBacklinksAnswer(t *testing.T) {
	h := newIndexHarness(t, map[string]string{
		"Project Ideas.md":         "# Ideas\n",
		"Archive/Project Ideas.md": "# Old ideas\n",
		"Daily/2025-01-15.md":      "---\nup: \"[[Project Ideas]]\"\n---\nMet about [[Meeting Notes]].\n\nSee [[Project Ideas|ideas]] and [[Other]].\nAgain [[Project Ideas]].\n",
		"Work/Active.md":           "[[Archive/Project Ideas]] only\n",
	})
	text, sc := h.structured("get_backlinks", `{"note_name":"Project Ideas"}`)
	want := `{"note":"Project Ideas","backlink_count":1,"backlinks":[{"file":"Daily/2025-01-15.md","links":["Project Ideas","Project Ideas|ideas"],"lines":[2,6,7]}],` +
		`"path":"Project Ideas.md","same_name":["Archive/Project Ideas.md"]}`
	if text != want {
		t.Errorf("text =\n%s\nwant\n%s", text, want)
	}
	// The structured answer keeps the documented absolute_path.
	items, _ := sc["backlinks"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["absolute_path"] != filepath.Join(h.root, "Daily", "2025-01-15.md") {
		t.Errorf("structured backlinks = %v", sc["backlinks"])
	}

	// By path, the other note of that name.
	text = h.ok("get_backlinks", `{"path":"Archive/Project Ideas.md"}`)
	if want := `{"note":"Archive/Project Ideas.md","backlink_count":1,"backlinks":[{"file":"Work/Active.md","links":["Archive/Project Ideas"],"lines":[1]}],"path":"Archive/Project Ideas.md"}`; text != want {
		t.Errorf("by path:\n%s\nwant\n%s", text, want)
	}
	// A name no file has.
	text = h.ok("get_backlinks", `{"note_name":"meeting notes"}`)
	if want := `{"note":"meeting notes","backlink_count":1,"backlinks":[{"file":"Daily/2025-01-15.md","links":["Meeting Notes"],"lines":[4]}],` +
		`"notice":"no file is named \"meeting notes\"; these notes link to that name"}`; text != want {
		t.Errorf("unresolved name:\n%s\nwant\n%s", text, want)
	}
	text = h.ok("get_backlinks", `{"note_name":"Project Idea"}`)
	if !strings.Contains(text, `"backlink_count":0`) || !strings.Contains(text, "did you mean Project Ideas.md or Archive/Project Ideas.md?") {
		t.Errorf("a name nothing links to: %s", text)
	}

	h.fails("get_backlinks", `{}`, "give note_name", "or path")
	h.fails("get_backlinks", `{"note_name":"  "}`, "give note_name")
	h.fails("get_backlinks", `{"note_name":"Project Ideas","path":"Project Ideas.md"}`, "not both")
	h.fails("get_backlinks", `{"limit":10001,"note_name":"x"}`, "limit")
}

// A note linked from 2,500 notes: the default page stays small, the count
// is the full count, and a client asking for everything gets everything.
func TestGetBacklinksLarge(t *testing.T) {
	files := map[string]string{"Hub.md": "hub"}
	for i := range 2500 {
		files[filepath.Join("notes", strings.Repeat("n", i%7+1)+"-"+strings.Repeat("x", 20)+strconv.Itoa(i)+".md")] = "[[Hub]] [[Other]] [[Third]]\n"
	}
	h := newIndexHarness(t, files)
	var def, all tools.BacklinksResult
	_, sc := h.structured("get_backlinks", `{"note_name":"Hub"}`)
	decode(t, sc, &def)
	if def.BacklinkCount != 2500 || len(def.Backlinks) != 100 || def.NextOffset == nil || *def.NextOffset != 100 {
		t.Errorf("default page: count %d, %d items, next %v", def.BacklinkCount, len(def.Backlinks), def.NextOffset)
	}
	_, sc = h.structured("get_backlinks", `{"note_name":"Hub","limit":10000}`)
	decode(t, sc, &all)
	if all.BacklinkCount != 2500 || len(all.Backlinks) != 2500 || all.NextOffset != nil || all.Notice != "" {
		t.Errorf("limit 10000: count %d, %d items, next %v, notice %q", all.BacklinkCount, len(all.Backlinks), all.NextOffset, all.Notice)
	}
	for _, b := range all.Backlinks[:3] {
		if !slices.Equal(b.Links, []string{"Hub"}) || !slices.Equal(b.Lines, []int{1}) {
			t.Errorf("%s: links %q lines %v, want only the link to Hub", b.File, b.Links, b.Lines)
		}
	}
}

func decode(t *testing.T, sc map[string]any, v any) {
	t.Helper()
	raw, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
}

// Every tool that takes a path suggests what the client probably meant
// when it names nothing.
func TestNotFoundSuggestions(t *testing.T) {
	h := newIndexHarness(t, map[string]string{
		"Home.md":                "home",
		"Plugins/Canvas.md":      "canvas",
		"Plugins/Dataview.md":    "dataview",
		"Archive/Old/Project.md": "[[Home]]",
		".obsidian/Canvas.md":    "settings are not suggested",
	})
	tests := []struct{ tool, args, want string }{
		{"read_file", `{"path":"Canvas.md"}`, "did you mean Plugins/Canvas.md?"},
		{"read_file", `{"path":"Plugins/Dataveiw.md"}`, "did you mean Plugins/Dataview.md?"},
		{"edit_file", `{"path":"canvas.md","old_text":"a","new_text":"b"}`, "did you mean Plugins/Canvas.md?"},
		{"delete_file", `{"path":"Project.md"}`, "did you mean Archive/Old/Project.md?"},
		{"rename_file", `{"old_path":"HOME.md","new_path":"x.md"}`, "did you mean Home.md?"},
		{"list_directory", `{"path":"plugins"}`, "did you mean Plugins/?"},
		{"list_directory", `{"path":"Old"}`, "did you mean Archive/Old/?"},
		{"search_files", `{"pattern":"*","path":"plugins"}`, "did you mean Plugins/?"},
		{"grep", `{"query":"x","path":"archive"}`, "did you mean Archive/?"},
		{"find_files", `{"path":"Plugin"}`, "did you mean Plugins/?"},
		{"get_backlinks", `{"path":"home.md"}`, "did you mean Home.md?"},
		{"find_links", `{"path":"Dataview.md"}`, "did you mean Plugins/Dataview.md?"},
		{"get_tags", `{"path":"plugins/canvas.md"}`, "did you mean Plugins/Canvas.md?"},
	}
	for _, tt := range tests {
		r := h.fails(tt.tool, tt.args, tt.want)
		if strings.Contains(r.errMsg, ".obsidian") {
			t.Errorf("%s %s suggests a skipped folder: %s", tt.tool, tt.args, r.errMsg)
		}
	}
	// read_file takes a name off only in case or ".md" as the one file
	// it names, saying so (a read is harmless; a change still asks).
	for _, p := range []string{"home.md", "Home"} {
		if got := h.ok("read_file", fmt.Sprintf(`{"path":%q}`, p)); got != "("+p+" is taken as Home.md, the one name that matches it ignoring case, accents and .md.)\n\nhome" {
			t.Errorf("read_file %s = %q", p, got)
		}
	}
	// Nothing like it: no suggestion.
	if r := h.fails("read_file", `{"path":"zzz.md"}`); r.errMsg != "File not found: zzz.md" {
		t.Errorf("no suggestion expected: %q", r.errMsg)
	}
}

// newGitHarness is newIndexHarness with the vault's changes committed by
// a real git repository; head reports its short HEAD.
func newGitHarness(t *testing.T, files map[string]string) (*harness, func() string) {
	t.Helper()
	var repo *gitsync.Repo
	h := newIndexHarness(t, files, func(d *tools.Deps) {
		var err error
		repo, err = gitsync.Open(context.Background(), gitsync.Options{
			Dir: d.Vault.Root(), NoPush: true, SyncInterval: -1, Locker: d.Vault.Locker(),
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if err != nil {
			t.Fatal(err)
		}
		d.Vault.SetRecorder(repo)
	})
	t.Cleanup(func() { repo.Close() })
	return h, func() string { return repo.Status().Head }
}

func TestWriteModes(t *testing.T) {
	h, head := newGitHarness(t, nil)
	if got := h.ok("write_file", `{"path":"a.md","content":"one\n"}`); !strings.HasPrefix(got, "Created a.md (4 bytes, commit ") {
		t.Errorf("create: %q", got)
	}
	first := head()
	if got := h.ok("write_file", `{"path":"a.md","content":"one\n"}`); got != "No change: a.md already holds this content; nothing committed" {
		t.Errorf("same content: %q", got)
	}
	if head() != first {
		t.Error("writing the same content made a commit")
	}
	if got := h.ok("write_file", `{"path":"a.md","content":"two two\n"}`); !strings.HasPrefix(got, "Replaced a.md (was 4 bytes, now 8 bytes, commit ") {
		t.Errorf("replace: %q", got)
	}
	h.fails("write_file", `{"path":"a.md","content":"x","mode":"create"}`, "already exists", "a.md")
	if got := h.read("a.md"); got != "two two\n" {
		t.Errorf("create mode changed an existing file: %q", got)
	}
	if got := h.ok("write_file", `{"path":"new/b.md","content":"b","mode":"create"}`); !strings.HasPrefix(got, "Created new/b.md (1 byte, commit ") {
		t.Errorf("create mode: %q", got)
	}
	// Append starts a new line when the file does not end with one.
	h.ok("write_file", `{"path":"new/b.md","content":"- more\n","mode":"append"}`)
	if got := h.read("new/b.md"); got != "b\n- more\n" {
		t.Errorf("append: %q", got)
	}
	if got := h.ok("write_file", `{"path":"log.md","content":"first\n","mode":"append"}`); !strings.HasPrefix(got, "Created log.md") {
		t.Errorf("append to a missing file: %q", got)
	}
	h.file("crlf.md", "a\r\nb\r\n")
	h.ok("write_file", `{"path":"crlf.md","content":"c\nd\n","mode":"append"}`)
	if got := h.read("crlf.md"); got != "a\r\nb\r\nc\r\nd\r\n" {
		t.Errorf("append to a CRLF file: %q", got)
	}

	before := head()
	if got := h.ok("edit_file", `{"path":"a.md","old_text":"two two","new_text":"two two"}`); !strings.Contains(got, "No change") || !strings.Contains(got, "nothing committed") {
		t.Errorf("edit without change: %q", got)
	}
	if head() != before {
		t.Error("an edit that changes nothing made a commit")
	}
	h.fails("edit_file", `{"path":"a.md","old_text":"two","new_text":"two"}`, "matches 2 times")
	h.fails("write_file", `{"path":"a.md","content":"x","mode":"replace"}`, "mode")
}

// Dotfiles and dot-folders are not notes: scans leave them out unless a
// path names one.
func TestDotfilesLeftOut(t *testing.T) {
	h := newIndexHarness(t, map[string]string{
		"Note.md":             "needle [[Secret]] #visible",
		".github/workflow.md": "needle [[Note]] #hidden",
		".hidden.md":          "needle [[Note]]",
		"sub/.draft.md":       "needle",
		".config/app.json":    `{"needle": 1}`,
	})
	for _, c := range []struct{ tool, args, want string }{
		{"search_files", `{"pattern":"*"}`, "Note.md"},
		{"grep", `{"query":"needle"}`, "Note.md:1: needle [[Secret]] #visible"},
		{"list_directory", `{"path":"","recursive":true}`, "[file] Note.md\n[directory] sub/"},
		{"get_tags", `{}`, "#visible: 1 (in 1 note)"},
		{"get_backlinks", `{"note_name":"Note"}`, `{"note":"Note","backlink_count":0,"backlinks":[],"path":"Note.md"}`},
		{"grep", `{"query":"needle","path":".config"}`, `.config/app.json:1: {"needle": 1}`},
		{"search_files", `{"pattern":"*","path":".github"}`, ".github/workflow.md"},
		{"read_file", `{"path":".hidden.md"}`, "needle [[Note]]"},
	} {
		if got := h.ok(c.tool, c.args); got != c.want {
			t.Errorf("%s %s =\n%s\nwant\n%s", c.tool, c.args, got, c.want)
		}
	}
	if got := h.ok("find_files", `{}`); strings.Contains(got, ".") && strings.Count(got, "\n") != 0 {
		t.Errorf("find_files lists dotfiles:\n%s", got)
	}
}

func TestGrepOutputModes(t *testing.T) {
	h := newIndexHarness(t, map[string]string{
		"a.md":     "x\nx\ny\n",
		"b/c.md":   "x\n",
		"d.md":     "y\n",
		"e.txt":    "X marks\n",
		"f/g.json": "none\n",
	})
	for _, c := range []struct{ args, want string }{
		{`{"query":"x","output":"files"}`, "a.md\nb/c.md\ne.txt"},
		{`{"query":"x","output":"count"}`, "a.md: 2\nb/c.md: 1\ne.txt: 1"},
		{`{"query":"x","output":"count","case_sensitive":true}`, "a.md: 2\nb/c.md: 1"},
		{`{"query":"x","output":"files","limit":2}`, "a.md\nb/c.md\n[showing 1–2 of 3 files (4 matching lines); call again with offset=2 for the next page]"},
		{`{"query":"x","limit":2,"offset":1}`, "a.md:2: x\nb/c.md:1: x\n[showing 2–3 of 4 matching lines in 3 files; call again with offset=3 for the next page]"},
		{`{"query":"zz","output":"files"}`, `No matches for "zz" (5 files searched)`},
	} {
		if got := h.ok("grep", c.args); got != c.want {
			t.Errorf("grep %s =\n%s\nwant\n%s", c.args, got, c.want)
		}
	}
	h.fails("grep", `{"query":"x","output":"paths"}`, "output")
}

// The default page of a list stops before it outgrows DefaultPageTokens
// (estimated), whatever its item count, and says where to go on.
func TestDefaultPageBudget(t *testing.T) {
	files := map[string]string{}
	long := strings.Repeat("long-folder-name-", 12)
	for i := range 600 {
		files[long+"/"+strconv.Itoa(i)+strings.Repeat("n", 150)+".md"] = strings.Repeat("needle ", 40) + "\n"
	}
	h := newIndexHarness(t, files)
	for _, c := range []struct {
		tool, args      string
		budget, atLeast int
	}{
		{"search_files", `{"pattern":"*.md"}`, tools.DefaultPageTokens + 200, 100},
		{"find_files", `{}`, tools.DefaultPageTokens + 200, 100},
		// grep's lines (here ~640 bytes each) have a smaller budget.
		{"grep", `{"query":"needle"}`, tools.GrepPageTokens + 200, 40},
		{"list_directory", `{"path":"","recursive":true}`, tools.DefaultPageTokens + 200, 100},
	} {
		// The budgets leave room for the notice after the page.
		got := h.ok(c.tool, c.args)
		p := textPage(got)
		if toks := tokens.Estimate(got); toks > c.budget || p.next == nil || len(p.items) < c.atLeast {
			t.Errorf("%s: %d estimated tokens, %d items, next %v", c.tool, toks, len(p.items), p.next)
		}
	}
	// An explicit limit is honoured past grep's default budget.
	if p := textPage(h.ok("grep", `{"query":"needle","limit":100}`)); len(p.items) != 100 {
		t.Errorf("grep limit 100: %d lines", len(p.items))
	}
}
