package tools_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"vaultmcp/tools"
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
	if err != nil || !res.Exists || res.Content != "already here" || res.Path != "Journal/2026/01/2026-01-05 Monday.md" {
		t.Fatalf("existing: %+v, %v", res, err)
	}
	res, err = tools.DailyNote(ctx, g.d, tools.DailyNoteArgs{Date: "2026-01-06"})
	if err != nil || res.Exists || res.Path != "Journal/2026/01/2026-01-06 Tuesday.md" || res.Date != "2026-01-06" {
		t.Fatalf("missing: %+v, %v", res, err)
	}

	n := g.commits()
	res, err = tools.NewDailyNote(ctx, g.d, tools.DailyNoteArgs{Date: "2026-01-06"})
	want := "# 2026/01/2026-01-06 Tuesday\n<< [[2026/01/2026-01-05 Monday]] | [[2026/01/2026-01-07 Wednesday]] >>\nWeek 2\n"
	if err != nil || !res.Created || res.Content != want || g.read("Journal/2026/01/2026-01-06 Tuesday.md") != want {
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
