package tools_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vaultmcp/internal/tokens"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/access"
	"vaultmcp/vault/daily"
)

func TestDailyNotes(t *testing.T) {
	ctx := context.Background()
	g := newNotesVault(t, map[string]string{
		".obsidian/daily-notes.json":           `{"folder": "Journal", "format": "YYYY/MM/YYYY-MM-DD dddd", "template": "Templates/Day"}`,
		"Templates/Day.md":                     "# {{title}}\n<< [[{{yesterday}}]] | [[{{tomorrow}}]] >>\nWeek {{date:W}}\n",
		"Journal/2026/01/2026-01-05 Monday.md": "already here",
	})
	res, err := tools.DailyNote(ctx, g.d, tools.DailyNoteArgs{Date: "2026-01-05"})
	if err != nil || !res.Exists || res.Content != "already here" || res.Path != "Journal/2026/01/2026-01-05 Monday.md" || res.Version != vault.Version([]byte("already here")) {
		t.Fatalf("existing: %+v, %v", res, err)
	}
	res, err = tools.DailyNote(ctx, g.d, tools.DailyNoteArgs{Date: "2026-01-06"})
	if err != nil || res.Exists || res.Path != "Journal/2026/01/2026-01-06 Tuesday.md" || res.Date != "2026-01-06" {
		t.Fatalf("missing: %+v, %v", res, err)
	}

	n := g.commits()
	res, err = tools.NewDailyNote(ctx, g.d, tools.DailyNoteArgs{Date: "2026-01-06"})
	want := "# 2026/01/2026-01-06 Tuesday\n<< [[2026/01/2026-01-05 Monday]] | [[2026/01/2026-01-07 Wednesday]] >>\nWeek 2\n"
	if err != nil || !res.Created || res.Content != want || g.read("Journal/2026/01/2026-01-06 Tuesday.md") != want || res.Version != vault.Version([]byte(want)) {
		t.Fatalf("create: %+v, %v", res, err)
	}
	g.oneCommit(n, "Journal/2026/01/2026-01-06 Tuesday.md", "MCP: create Journal/2026/01/2026-01-06 Tuesday.md (daily note)")

	// Creating again returns the note as it is, committing nothing.
	g.write("Journal/2026/01/2026-01-06 Tuesday.md", "edited")
	g.git("commit", "-qam", "edit")
	n = g.commits()
	res, err = tools.NewDailyNote(ctx, g.d, tools.DailyNoteArgs{Date: "2026-01-06"})
	if err != nil || res.Created || res.Content != "edited" || g.commits() != n {
		t.Fatalf("create again: %+v, %v", res, err)
	}

	// Today, by default.
	before := daily.Settings{Folder: "Journal", Format: "YYYY/MM/YYYY-MM-DD dddd"}.Path(time.Now())
	res, err = tools.DailyNote(ctx, g.d, tools.DailyNoteArgs{})
	after := daily.Settings{Folder: "Journal", Format: "YYYY/MM/YYYY-MM-DD dddd"}.Path(time.Now())
	if err != nil || (res.Path != before && res.Path != after) {
		t.Errorf("today: %+v, %v (want %s)", res, err, before)
	}
	if _, err := tools.DailyNote(ctx, g.d, tools.DailyNoteArgs{Date: "someday"}); err == nil || !strings.Contains(err.Error(), "YYYY-MM-DD") {
		t.Errorf("bad date: %v", err)
	}

	// A long day is read_file's first page, cut at a line's end (in Greek,
	// by tokens well before 64 KB), with the read_file call that reads on.
	greek := strings.Repeat("Σημείωση για τη συνάντηση.\n", 2000)
	g.write("Journal/2026/01/2026-01-07 Wednesday.md", greek)
	res, err = tools.DailyNote(ctx, g.d, tools.DailyNoteArgs{Date: "2026-01-07"})
	lines := strings.Count(res.Content, "\n")
	want = fmt.Sprintf(`read on with read_file path="Journal/2026/01/2026-01-07 Wednesday.md" offset=%d`, lines)
	if err != nil || !res.Truncated || !strings.HasPrefix(greek, res.Content) || !strings.HasSuffix(res.Content, "\n") ||
		tokens.Estimate(res.Content) > tools.DefaultPageTokens || !strings.Contains(res.Notice, want) {
		t.Errorf("long Greek day: truncated %v, %d bytes, %d estimated tokens, notice %q, %v", res.Truncated, len(res.Content), tokens.Estimate(res.Content), res.Notice, err)
	}
	// One line longer than a page: read on inside it.
	g.write("Journal/2026/01/2026-01-08 Thursday.md", strings.Repeat("word ", 30_000))
	res, err = tools.DailyNote(ctx, g.d, tools.DailyNoteArgs{Date: "2026-01-08"})
	want = fmt.Sprintf(`offset=0 column=%d`, len(res.Content))
	if err != nil || !res.Truncated || !strings.Contains(res.Notice, want) {
		t.Errorf("one long line: truncated %v, notice %q, %v", res.Truncated, res.Notice, err)
	}
	// A short one is whole, with no notice.
	res, err = tools.DailyNote(ctx, g.d, tools.DailyNoteArgs{Date: "2026-01-05"})
	if err != nil || res.Truncated || res.Notice != "" {
		t.Errorf("short day: %+v, %v", res, err)
	}
}

func TestDailyNotesDefaultsAndBrokenSettings(t *testing.T) {
	ctx := context.Background()
	g := newNotesVault(t, nil)
	res, err := tools.NewDailyNote(ctx, g.d, tools.DailyNoteArgs{Date: "2026-03-01"})
	if err != nil || res.Path != "2026-03-01.md" || !res.Created || res.Content != "" {
		t.Fatalf("defaults: %+v, %v", res, err)
	}
	g.write(".obsidian/daily-notes.json", `{"template": "Missing"}`)
	res, err = tools.NewDailyNote(ctx, g.d, tools.DailyNoteArgs{Date: "2026-03-02"})
	if err != nil || !res.Created || !strings.Contains(res.Warning, "Missing.md does not exist") {
		t.Fatalf("missing template: %+v, %v", res, err)
	}
	g.write(".obsidian/daily-notes.json", `{"folder": `)
	if _, err := tools.DailyNote(ctx, g.d, tools.DailyNoteArgs{}); err == nil || !strings.Contains(err.Error(), "daily-notes.json") {
		t.Errorf("broken settings: %v", err)
	}
}

// TestDailyNotesUnderScope checks the daily notes under access scopes:
// a folder or template the scope hides is refused without being named
// (the client did not name it: the vault's settings did), and nothing is
// created.
func TestDailyNotesUnderScope(t *testing.T) {
	g := newNotesVault(t, map[string]string{
		".obsidian/daily-notes.json": `{"folder": "Journal", "template": "Templates/Day"}`,
		"Templates/Day.md":           "TEMPLATESECRET {{title}}\n",
		"Journal/2026-01-05.md":      "already here",
	})
	scoped := func(r access.Rules) context.Context {
		return access.With(context.Background(), access.MustNew(`the token "t"`, r))
	}
	for _, c := range []struct {
		name   string
		ctx    context.Context
		create bool
		date   string
		want   string // "" for success
	}{
		{"get, folder visible", scoped(access.Rules{Deny: []string{"Templates"}}), false, "2026-01-05", ""},
		{"get, folder hidden", scoped(access.Rules{Deny: []string{"Journal"}}), false, "2026-01-05", "daily notes' folder"},
		{"get, outside an allow list", scoped(access.Rules{Allow: []string{"Templates"}}), false, "2026-01-05", "daily notes' folder"},
		{"create, template hidden", scoped(access.Rules{Deny: []string{"Templates"}}), true, "2026-01-06", "daily-note template"},
		{"create, template outside an allow list", scoped(access.Rules{Allow: []string{"Journal"}}), true, "2026-01-06", "daily-note template"},
		{"create, folder hidden", scoped(access.Rules{Deny: []string{"Journal"}}), true, "2026-01-06", "daily notes' folder"},
		{"create, read-only", scoped(access.Rules{ReadOnly: true}), true, "2026-01-06", "read-only"},
		{"create, existing note under a hidden template", scoped(access.Rules{Deny: []string{"Templates"}}), true, "2026-01-05", ""},
		{"create, both visible", scoped(access.Rules{Allow: []string{"Journal", "Templates"}}), true, "2026-01-07", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := g.commits()
			work := tools.DailyNote
			if c.create {
				work = tools.NewDailyNote
			}
			res, err := work(c.ctx, g.d, tools.DailyNoteArgs{Date: c.date})
			if c.want == "" {
				if err != nil {
					t.Fatalf("want success, got %v", err)
				}
				return
			}
			if err == nil || !errors.Is(err, vault.ErrDenied) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an access refusal about %q, got %+v, %v", c.want, res, err)
			}
			for _, hidden := range []string{"Journal/", "Templates/Day", "TEMPLATESECRET"} {
				if strings.Contains(err.Error(), hidden) {
					t.Errorf("the refusal names %q: %v", hidden, err)
				}
			}
			if g.commits() != n {
				t.Error("a refused daily note made a commit")
			}
		})
	}
	if got := g.read("Journal/2026-01-07.md"); got != "TEMPLATESECRET 2026-01-07\n" {
		t.Errorf("created inside the scope: %q", got)
	}
	if _, err := os.Stat(filepath.Join(g.root, "Journal", "2026-01-06.md")); err == nil {
		t.Error("a refused create_daily_note created the note")
	}
}
