package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/vault"
	"vaultmcp/vault/access"
	"vaultmcp/vault/daily"
)

// DailyNoteArgs are get_daily_note's and create_daily_note's arguments.
type DailyNoteArgs struct {
	Date string `json:"date"`
}

// DailyNoteResult is their answer.
type DailyNoteResult struct {
	Path    string `json:"path"`
	Date    string `json:"date"`
	Exists  bool   `json:"exists"`
	Created bool   `json:"created,omitempty"`
	Commit  string `json:"commit,omitempty"`
	Content string `json:"content,omitempty"`
	// Truncated is set when Content holds only the first part of a very
	// large note: read_file's first page of it, which Notice says how to
	// read on from.
	Truncated bool   `json:"truncated,omitempty"`
	Notice    string `json:"notice,omitempty" jsonschema:"How to read the rest of a long note"`
	Warning   string `json:"warning,omitempty"`
	// Version is the git blob id of the note read or created.
	Version string `json:"version,omitempty" jsonschema:"The note's version: pass it as if_version to write only if the note is unchanged"`
}

// dailySettings reads the vault's daily-note settings; a vault without
// them uses Obsidian's defaults.
func (d Deps) dailySettings() (daily.Settings, error) {
	f, err := d.Vault.ReadFile(context.Background(), daily.SettingsFile, 64<<10) // the vault's settings, read for the server
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
func (d Deps) dailyNote(ctx context.Context, a DailyNoteArgs, now time.Time) (daily.Settings, time.Time, DailyNoteResult, error) {
	s, err := d.dailySettings()
	if err != nil {
		return s, time.Time{}, DailyNoteResult{}, err
	}
	date, err := daily.ParseDate(a.Date, now)
	if err != nil {
		return s, date, DailyNoteResult{}, badInput("%v", err)
	}
	res := DailyNoteResult{Path: s.Path(date), Date: date.Format(time.DateOnly)}
	if !access.From(ctx).Visible(res.Path) {
		// The path comes from the vault's settings, not from the
		// client: refuse without naming where the scope hides it.
		return s, date, DailyNoteResult{}, dailyDenied("the daily notes' folder")
	}
	// The content is read_file's first page of the note, so that a long
	// one reads on from where this answer stops, at a line's end.
	r, err := Read(ctx, d, ReadArgs{Path: res.Path, Exact: true})
	switch {
	case err == nil:
		res.Exists = true
		res.Content, res.Truncated, res.Notice = r.dailyPage()
		res.Version = r.Version
		d.noteRead(ctx, r.Path, r.Version)
	case !errors.Is(err, vault.ErrNotFound):
		return s, date, res, err
	}
	return s, date, res, nil
}

// dailyDenied refuses a daily note whose folder or template (what, as
// the vault's daily-note settings name it) the request's access scope
// hides.
func dailyDenied(what string) error {
	return &vault.Error{Kind: vault.ErrDenied,
		Msg: "Access denied: " + what + " (set in " + daily.SettingsFile + ") is outside the folders this session may access, so nothing was read or changed"}
}

// DailyNote is get_daily_note's work: find the daily note of a date
// (today by default) and read it.
func DailyNote(ctx context.Context, d Deps, a DailyNoteArgs) (*DailyNoteResult, error) {
	_, _, res, err := d.dailyNote(ctx, a, time.Now())
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// NewDailyNote is create_daily_note's work: create the daily note of a
// date from the vault's template unless it exists, and return it.
func NewDailyNote(ctx context.Context, d Deps, a DailyNoteArgs) (*DailyNoteResult, error) {
	now := time.Now()
	s, date, res, err := d.dailyNote(ctx, a, now)
	if err != nil {
		return nil, err
	}
	if res.Exists {
		return &res, nil
	}
	content := ""
	if tp := s.TemplatePath(); tp != "" {
		if !access.From(ctx).Visible(tp) {
			// Filling the note from a template the session may not read
			// would copy hidden text into a note it can read.
			return nil, dailyDenied("the daily-note template")
		}
		f, err := d.Vault.ReadFile(ctx, tp, 0)
		switch {
		case err == nil:
			content = s.Fill(string(f.Data), date, now)
		case errors.Is(err, vault.ErrNotFound):
			// Obsidian creates the note empty and says so; so do we.
			res.Warning = "the daily-note template " + tp + " does not exist; the note was created empty"
		default:
			return nil, err
		}
	}
	w, err := d.Vault.CreateFile(ctx, res.Path, func(rel string) string { return "create " + rel + " (daily note)" }, []byte(content))
	if errors.Is(err, vault.ErrExists) {
		// Made meanwhile (Obsidian on the same disk): read it. A clash
		// with a case variant ("journal/" for "Journal") is ErrExists too,
		// but there is nothing to read: the error itself says what to do.
		if again, rerr := DailyNote(ctx, d, a); rerr != nil || again.Exists {
			return again, rerr
		}
	}
	if err != nil {
		return nil, err
	}
	res.Path, res.Exists, res.Created, res.Commit, res.Content = w.Path.Rel, true, true, w.Commit, content
	res.Version = vault.Version([]byte(content))
	return &res, nil
}

var dailyDescription = "Follows .obsidian/daily-notes.json (folder, moment.js format, template), else YYYY-MM-DD.md in the root."

// GetDailyNote is get_daily_note; DailyNote does its work.
func GetDailyNote(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_daily_note",
		mcp.WithDescription("The daily note of a date: its path (also when missing, exists: false) and content. "+dailyDescription),
		mcp.WithString("date", mcp.Description("YYYY-MM-DD, today, yesterday, tomorrow or an offset like -1"), mcp.DefaultString("today")),
		outputSchema[DailyNoteResult](),
		annotate("Get daily note", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a DailyNoteArgs) (*mcp.CallToolResult, error) {
		res, err := DailyNote(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return jsonResult(res)
	})}
}

// CreateDailyNote is create_daily_note; NewDailyNote does its work.
func CreateDailyNote(d Deps) server.ServerTool {
	tool := mcp.NewTool("create_daily_note",
		mcp.WithDescription("Create the daily note of a date from the template, committed; an existing one is returned, never overwritten. "+dailyDescription),
		mcp.WithString("date", mcp.Description("YYYY-MM-DD, today, yesterday, tomorrow or an offset like -1"), mcp.DefaultString("today")),
		outputSchema[DailyNoteResult](),
		annotate("Create daily note", false, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a DailyNoteArgs) (*mcp.CallToolResult, error) {
		res, err := NewDailyNote(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return jsonResult(res)
	})}
}

// dailyPage is the content of a daily note that exists (get_daily_note,
// and create_daily_note when the note was there already): read_file's
// first page, and when that is not the whole note, a notice naming the
// read_file call that reads on. A note that is not text has no content,
// and the notice says what it is.
func (r ReadResult) dailyPage() (content string, truncated bool, notice string) {
	if r.Page.Binary {
		return "", false, renderPage(r.Path, r.Page)
	}
	offset, column, more := r.Next()
	switch {
	case !more:
		return string(r.Page.Text), false, ""
	case column > 0:
		notice = fmt.Sprintf("line %s is longer than one answer: read on with read_file path=%q offset=%d column=%d", count(offset+1), r.Path, offset, column)
	default:
		notice = fmt.Sprintf("showing lines 1–%s of %s (%s of %s): read on with read_file path=%q offset=%d",
			count(r.Page.last()), count(r.Page.TotalLines), humanBytes(int64(len(r.Page.Text))), humanBytes(r.Page.Size), r.Path, offset)
	}
	return string(r.Page.Text), true, notice
}
