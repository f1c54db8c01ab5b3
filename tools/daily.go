package tools

import (
	"context"
	"errors"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/vault"
	"vaultmcp/vault/daily"
)

// DailyNoteArgs are get_daily_note's and create_daily_note's arguments.
type DailyNoteArgs struct {
	Date string `json:"date"`
}

// DailyNoteResult is their answer.
type DailyNoteResult struct {
	Path    string `json:"path" jsonschema:"Where the daily note of that date lives (or would)"`
	Date    string `json:"date" jsonschema:"The date, YYYY-MM-DD"`
	Exists  bool   `json:"exists"`
	Created bool   `json:"created,omitempty" jsonschema:"create_daily_note made the note just now"`
	Commit  string `json:"commit,omitempty"`
	Content string `json:"content,omitempty" jsonschema:"The note's text, when it exists"`
	// Truncated is set when Content holds only the first part of a very
	// large note.
	Truncated bool   `json:"truncated,omitempty"`
	Warning   string `json:"warning,omitempty" jsonschema:"Something in the vault's daily-note settings that was not as expected"`
}

// dailySettings reads the vault's daily-note settings; a vault without
// them uses Obsidian's defaults.
func (d Deps) dailySettings() (daily.Settings, error) {
	f, err := d.Vault.ReadFile(daily.SettingsFile, 64<<10)
	if errors.Is(err, vault.ErrNotFound) || errors.Is(err, vault.ErrHidden) {
		// No settings (or the settings folder is configured hidden):
		// Obsidian's defaults.
		return daily.Settings{}, nil
	}
	if err != nil {
		return daily.Settings{}, err
	}
	s, err := daily.ParseSettings(f.Data)
	if err != nil {
		return daily.Settings{}, badInput("%v; fix it (or delete it for the defaults) before using daily notes", err)
	}
	return s, nil
}

// dailyNote works out the daily note of a date and reads it if it
// exists.
func (d Deps) dailyNote(a DailyNoteArgs, now time.Time) (daily.Settings, time.Time, DailyNoteResult, error) {
	s, err := d.dailySettings()
	if err != nil {
		return s, time.Time{}, DailyNoteResult{}, err
	}
	date, err := daily.ParseDate(a.Date, now)
	if err != nil {
		return s, date, DailyNoteResult{}, badInput("%v", err)
	}
	res := DailyNoteResult{Path: s.Path(date), Date: date.Format(time.DateOnly)}
	f, err := d.Vault.ReadFile(res.Path, d.maxRead())
	switch {
	case err == nil:
		res.Exists, res.Content, res.Truncated = true, string(trimPartialRune(f.Data)), f.Truncated
	case !errors.Is(err, vault.ErrNotFound):
		return s, date, res, err
	}
	return s, date, res, nil
}

// GetDailyNote finds the daily note of a date (today by default).
func (d Deps) GetDailyNote(ctx context.Context, a DailyNoteArgs) (DailyNoteResult, error) {
	_, _, res, err := d.dailyNote(a, time.Now())
	return res, err
}

// CreateDailyNote creates the daily note of a date from the vault's
// template unless it exists, and returns it.
func (d Deps) CreateDailyNote(ctx context.Context, a DailyNoteArgs) (DailyNoteResult, error) {
	now := time.Now()
	s, date, res, err := d.dailyNote(a, now)
	if err != nil || res.Exists {
		return res, err
	}
	content := ""
	if tp := s.TemplatePath(); tp != "" {
		f, err := d.Vault.ReadFile(tp, 0)
		switch {
		case err == nil:
			content = s.Fill(string(f.Data), date, now)
		case errors.Is(err, vault.ErrNotFound):
			// Obsidian creates the note empty and says so; so do we.
			res.Warning = "the daily-note template " + tp + " does not exist; the note was created empty"
		default:
			return res, err
		}
	}
	w, err := d.Vault.CreateFile(ctx, res.Path, func(rel string) string { return "create " + rel + " (daily note)" }, []byte(content))
	if errors.Is(err, vault.ErrExists) {
		// Made meanwhile (Obsidian on the same disk): read it.
		_, _, res, err = d.dailyNote(a, now)
		return res, err
	}
	if err != nil {
		return res, err
	}
	res.Path, res.Exists, res.Created, res.Commit, res.Content = w.Path.Rel, true, true, w.Commit, content
	return res, nil
}

var dailyDescription = "Daily notes follow the vault's Daily notes settings (.obsidian/daily-notes.json: folder, moment.js file-name format, template), " +
	"else Obsidian's defaults (YYYY-MM-DD.md in the vault root). date is YYYY-MM-DD, today (the default), yesterday, tomorrow or a day offset like -1; " +
	"days are counted in the server's time zone."

// GetDailyNote is get_daily_note; Deps.GetDailyNote does its work.
func GetDailyNote(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_daily_note",
		mcp.WithDescription("Find the daily note of a date and read it: its path (also when it does not exist yet, exists: false) and content. "+dailyDescription),
		mcp.WithString("date", mcp.Description("YYYY-MM-DD, today, yesterday, tomorrow or a day offset like -1"), mcp.DefaultString("today")),
		mcp.WithOutputSchema[DailyNoteResult](),
		annotate("Get daily note", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a DailyNoteArgs) (*mcp.CallToolResult, error) {
		res, err := d.GetDailyNote(ctx, a)
		if err != nil {
			return nil, err
		}
		return jsonResult(res)
	})}
}

// CreateDailyNote is create_daily_note; Deps.CreateDailyNote does its
// work.
func CreateDailyNote(d Deps) server.ServerTool {
	tool := mcp.NewTool("create_daily_note",
		mcp.WithDescription("Create the daily note of a date from the vault's daily-note template ({{date}}, {{title}}, {{time}}, {{date:FORMAT}} filled in), committed; "+
			"an existing note is never overwritten but returned as it is (created: false). "+dailyDescription),
		mcp.WithString("date", mcp.Description("YYYY-MM-DD, today, yesterday, tomorrow or a day offset like -1"), mcp.DefaultString("today")),
		mcp.WithOutputSchema[DailyNoteResult](),
		annotate("Create daily note", false, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a DailyNoteArgs) (*mcp.CallToolResult, error) {
		res, err := d.CreateDailyNote(ctx, a)
		if err != nil {
			return nil, err
		}
		return jsonResult(res)
	})}
}
