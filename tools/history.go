package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
	"vaultmcp/vault"
	"vaultmcp/vault/access"
)

// DefaultHistoryBytes is the answer budget of get_recent_changes and
// get_diff: about 5k tokens, enough for ten ordinary commits with their
// diffs, small enough that one bulk import cannot flood a model's context.
const DefaultHistoryBytes = 20 << 10

// historyBytes is the answer budget of the history tools: the default,
// or less when the server's ceiling on every answer is lower.
func (d Deps) historyBytes() int { return min(DefaultHistoryBytes, d.roomBytes()) }

// historyTimeLayout shows a commit's time in its author's zone, as git
// log does.
const historyTimeLayout = "2006-01-02 15:04:05 -0700"

// hiddenPath reports whether a path lies in a hidden folder (.git,
// .claude): history answers leave those files out without a trace, as
// every listing does.
func hiddenPath(v *vault.Vault) func(string) bool {
	return func(p string) bool {
		for _, part := range strings.Split(p, "/") {
			if v.Hidden(part) {
				return true
			}
		}
		return false
	}
}

// skipPaths leaves out of history answers what scans leave out: dotfiles
// and dot-folders (.obsidian's workspace, which obsidian-git commits with
// every backup), unless the client's path names one. They are counted.
func skipPaths(v *vault.Vault, named string) func(string) bool {
	for _, part := range strings.Split(named, "/") {
		if part != "" && v.Skipped(part) {
			return nil
		}
	}
	return func(p string) bool {
		for _, part := range strings.Split(p, "/") {
			if v.Skipped(part) {
				return true
			}
		}
		return false
	}
}

// errNoHistory is the answer of a history function called without a
// repository (the MCP tools are only offered with one; other callers may
// not know).
var errNoHistory = errors.New("this vault has no git history")

// parseSince parses a since argument ("" is no filter).
func parseSince(s string) (time.Time, error) {
	return parseTimeArg("since", s, time.Now())
}

// historyPath resolves a path given to a history tool as the file tools
// resolve theirs, and then some: a path in the vault or in its history
// (a note deleted or renamed since) is taken as it is; otherwise, when
// exactly one file (or, with folder, folder) of the vault or its history
// has that name but for case, accents or a left-out ".md", it is taken
// instead, and note says so; otherwise the error is not-found with the
// likely names. That last step runs only on a miss.
func (d Deps) historyPath(ctx context.Context, given string, folder bool) (rel, note string, err error) {
	var p vault.Path
	if folder {
		p, err = d.Vault.ResolveFor(ctx, given)
	} else {
		p, err = d.Vault.ResolveFile(ctx, given)
	}
	if err != nil {
		return "", "", err
	}
	if fi, err := os.Lstat(p.Abs); err == nil {
		if fi.IsDir() && !folder {
			return "", "", &vault.Error{Kind: vault.ErrIsDir, Path: given,
				Msg: "Is a directory, not a note: " + given + "; get_recent_changes(path=" + strconv.Quote(p.Rel) + ") lists the changes under it"}
		}
		return p.Rel, "", nil
	}
	file, dir, err := d.Git.InHistory(ctx, p.Rel)
	if err != nil {
		return "", "", fmt.Errorf("read history: %w", err)
	}
	if file || (dir && folder) {
		return p.Rel, "", nil
	}
	names := d.historyNames(ctx, p.Rel, folder)
	if len(names) == 1 {
		rel = strings.TrimSuffix(names[0], "/")
		return rel, takenAs(given, names[0]), nil
	}
	msg := "Not found: " + given + " is neither in the vault nor in its history"
	if len(names) > 1 {
		// Ambiguous: the candidates are the suggestions.
		return "", "", &vault.Error{Kind: vault.ErrNotFound, Msg: msg + didYouMean(names[:min(len(names), maxSuggestions)])}
	}
	if now := d.renamedTo(ctx, p.Rel); now != "" && !folder {
		return "", "", &vault.Error{Kind: vault.ErrNotFound, Msg: msg + "; it was renamed: did you mean " + now + "?"}
	}
	return "", "", &vault.Error{Kind: vault.ErrNotFound, Path: given, Msg: msg}
}

// takenAs is the first line of an answer about name, given as given:
// the one name that matches it but for case, accents or a left-out ".md".
func takenAs(given, name string) string {
	return fmt.Sprintf("(%s is taken as %s, the one name that matches it ignoring case, accents and .md.)\n\n", given, name)
}

// historyNames returns the files (and, with folder, folders, ending in
// "/") of the vault and of its history that rel names but for case,
// accents or ".md", as the client may see them.
func (d Deps) historyNames(ctx context.Context, rel string, folder bool) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] && (folder || !strings.HasSuffix(p, "/")) {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range d.sameName(ctx, rel) {
		add(p)
	}
	q, scope, hidden := newNameQuery(rel), access.From(ctx), hiddenPath(d.Vault)
	_ = d.Git.HistoryPaths(ctx, func(p string, dir bool) bool {
		if s, ok := q.score(p, dir); ok && s == 0 && scope.Visible(p) && !hidden(p) {
			if dir {
				p += "/"
			}
			add(p)
		}
		return true
	})
	slices.Sort(out)
	return out
}

// RecentChangesArgs are get_recent_changes' arguments.
type RecentChangesArgs struct {
	// Limit is the number of commits; Count its older name, still taken.
	Limit     *int   `json:"limit"`
	Count     *int   `json:"count"`
	Offset    int    `json:"offset"`
	Path      string `json:"path"`
	Since     string `json:"since"`
	Author    string `json:"author"`
	FilesOnly bool   `json:"files_only"`
}

// RecentChangesResult is get_recent_changes' answer.
type RecentChangesResult struct {
	Log gitsync.Log
	// Path is the filter as the client gave it.
	Path      string
	FilesOnly bool
	Filtered  bool // since or author was given
	// Budget is the answer budget the files were listed within.
	Budget int
	// Resolved says which path was taken for Path, when it was spelled
	// otherwise ("" when taken as given).
	Resolved string
}

// RecentChanges is get_recent_changes' work: a page of the history with
// per-file diffs (or file lists), within the answer budget.
func RecentChanges(ctx context.Context, d Deps, a RecentChangesArgs) (RecentChangesResult, error) {
	if d.Git == nil {
		return RecentChangesResult{}, errNoHistory
	}
	n := gitsync.DefaultRecent
	switch {
	case a.Limit != nil && a.Count != nil && *a.Limit != *a.Count:
		return RecentChangesResult{}, invalid(fmt.Sprintf("limit=%d and count=%d disagree: give limit only (count is its old name)", *a.Limit, *a.Count))
	case a.Limit != nil:
		n = *a.Limit
	case a.Count != nil:
		n = *a.Count
	}
	opts := gitsync.LogOptions{Count: n, Offset: a.Offset, Author: a.Author, FilesOnly: a.FilesOnly, MaxBytes: d.historyBytes()}
	var resolved string
	if a.Path != "" {
		rel, note, err := d.historyPath(ctx, a.Path, true)
		if err != nil {
			return RecentChangesResult{}, err
		}
		opts.Path, resolved = rel, note
	}
	opts.Hide, opts.Skip = hiddenPath(d.Vault), skipPaths(d.Vault, opts.Path)
	var err error
	if opts.Since, err = parseSince(a.Since); err != nil {
		return RecentChangesResult{}, err
	}
	l, err := d.Git.Log(ctx, opts)
	if err != nil {
		return RecentChangesResult{}, fmt.Errorf("read history: %w", err)
	}
	return RecentChangesResult{Log: l, Path: a.Path, FilesOnly: a.FilesOnly, Filtered: a.Since != "" || a.Author != "", Budget: opts.MaxBytes, Resolved: resolved}, nil
}

// Text renders the answer in the numbered format of get_recent_changes.
func (r RecentChangesResult) Text() string {
	return r.Resolved + r.text()
}

func (r RecentChangesResult) text() string {
	l := r.Log
	if len(l.Commits) == 0 {
		switch {
		case l.Total > 0:
			return fmt.Sprintf("No changes at offset %d: there are %d matching commits.", l.Offset, l.Total) + historyNotices(l.Notices)
		case r.Filtered && r.Path != "":
			return "No changes to " + r.Path + " match the since/author filters." + historyNotices(l.Notices)
		case r.Filtered:
			return "No changes in the history match the since/author filters." + historyNotices(l.Notices)
		case r.Path != "":
			return "No changes to " + r.Path + " in the history." + historyNotices(l.Notices)
		}
		return "No changes in the history yet." + historyNotices(l.Notices)
	}
	var b strings.Builder
	hidden, countsOnly, cut := 0, 0, ""
	for i, c := range l.Commits {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%d. %s · %s · %s <%s>\n", l.Offset+i+1, c.Time.Format(historyTimeLayout), c.Hash, c.Author, c.Email)
		for _, line := range strings.Split(strings.TrimSpace(c.Message), "\n") {
			fmt.Fprintf(&b, "   %s\n", line)
		}
		if c.Merge && len(c.Files) == 0 {
			b.WriteString("   (merge commit)\n")
		}
		if c.Notice != "" {
			fmt.Fprintf(&b, "   (%s)\n", c.Notice)
		}
		for _, f := range c.Files {
			writeFileChange(&b, f, r.FilesOnly || f.CountsOnly, r.Budget, c.Hash)
			if f.CountsOnly {
				countsOnly++
			}
			if f.OverBudget && cut == "" {
				cut = c.Hash
			}
		}
		if c.Skipped > 0 {
			fmt.Fprintf(&b, "   (%d file(s) in dot-folders such as .obsidian not listed; give their path to see them)\n", c.Skipped)
		}
		if more := c.FileCount - len(c.Files); more > 0 {
			hidden += more
			// files_only is offered only to an answer that does not
			// already list files alone: there the budget ran out anyway.
			see := fmt.Sprintf("get_diff(from=\"%s~1\", to=\"%s\")", c.Hash, c.Hash)
			switch {
			case c.Root && r.FilesOnly:
				see = "a path filter"
			case c.Root:
				see = "files_only=true or a path filter"
			case !r.FilesOnly:
				see += " or files_only=true"
			}
			fmt.Fprintf(&b, "   [... %d more file(s) not shown: answer budget of %s reached; see them with %s ...]\n",
				more, humanBytes(int64(r.Budget)), see)
		}
	}
	b.WriteString("\n")
	b.WriteString(historyPage("commits", l.Offset, len(l.Commits), l.Total))
	if countsOnly > 0 {
		fmt.Fprintf(&b, " The answer budget of %s was spent on diff lines, so %d later file(s) are listed with line counts only: "+
			"see one's diff with get_diff(from=\"<hash>~1\", to=\"<hash>\", path=…), or ask for fewer commits (limit, offset) or one path.",
			humanBytes(int64(r.Budget)), countsOnly)
	}
	if hidden > 0 {
		fmt.Fprintf(&b, " %d more file(s) not shown.", hidden)
	}
	b.WriteString(historyNotices(l.Notices))
	return b.String()
}

// writeFileChange renders one file of commit hash: the kind line, then
// its -/+ lines (or only its line counts); budget is the answer's, for
// the notice where it ran out.
func writeFileChange(b *strings.Builder, f gitsync.FileChange, countsOnly bool, budget int, hash string) {
	name := f.Path
	if f.Kind == gitsync.Renamed {
		name = f.OldPath + " -> " + f.Path
	}
	fmt.Fprintf(b, "   [%s] %s", f.Kind, name)
	if countsOnly && (f.Added > 0 || f.Removed > 0) {
		fmt.Fprintf(b, " (+%d -%d)", f.Added, f.Removed)
	}
	b.WriteString("\n")
	switch {
	case f.Notice != "":
		fmt.Fprintf(b, "  (%s)\n", f.Notice)
		return
	case f.Binary:
		b.WriteString("  (binary file, no line diff)\n")
		return
	case countsOnly:
		return
	}
	for _, line := range f.Lines {
		fmt.Fprintf(b, "  %s\n", line)
	}
	switch {
	case f.OverBudget:
		fmt.Fprintf(b, "  [... %d more diff lines not shown: answer budget of %s reached; see them with get_diff(from=\"%s~1\", to=\"%s\", path=%q) ...]\n",
			f.Truncated, humanBytes(int64(budget)), hash, hash, f.Path)
	case f.Truncated > 0:
		fmt.Fprintf(b, "  [... %d more diff lines not shown (%d per file) ...]\n", f.Truncated, gitsync.MaxDiffLines)
	}
}

// historyPage states which part of a list an answer shows and how to get
// the next part.
func historyPage(what string, offset, shown, total int) string {
	if shown == 0 {
		return fmt.Sprintf("No %s at offset %d (%d in total).", what, offset, total)
	}
	s := fmt.Sprintf("Showing %s %d–%d of %d", what, offset+1, offset+shown, total)
	if next := offset + shown; next < total {
		return s + fmt.Sprintf("; next page: offset=%d.", next)
	}
	return s + "."
}

func historyNotices(ns []string) string {
	var b strings.Builder
	for _, n := range ns {
		b.WriteString("\nNote: " + n)
	}
	return b.String()
}

// GetRecentChanges is get_recent_changes: recent commits with
// their per-file diffs, as numbered text.
func GetRecentChanges(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_recent_changes",
		mcp.WithDescription("Show the vault's recent changes from its git history, newest first: each commit's date (with time zone), short hash, author and message and, per file, "+
			"[added]/[modified]/[deleted]/[renamed] with the removed (-) and added (+) lines, at most 80 diff lines per file and about 20 KB in all. "+
			"Changes made by people (Obsidian, other devices) are included. Filter by path, since or author; files_only lists files with line counts."),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(20), mcp.DefaultNumber(gitsync.DefaultRecent), mcp.Description("Number of commits (1–20)")),
		mcp.WithInteger("count", mcp.Min(1), mcp.Max(20), mcp.Description("Deprecated: the old name of limit")),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description("Skip this many newer matching commits (for the next page)")),
		mcp.WithString("path", mcp.Description("Only changes to this file or folder, relative to the vault root (or as it was named in the history)")),
		mcp.WithString("since", mcp.Description("Only commits made at or after this time: "+timeForms)),
		mcp.WithString("author", mcp.Description("Only commits whose author name or email contains this text (case-insensitive), e.g. \"vaultmcp\" for the agent's own changes")),
		mcp.WithBoolean("files_only", mcp.DefaultBool(false), mcp.Description("List the changed files with +added -removed line counts instead of their diffs")),
		annotate("Get recent changes", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a RecentChangesArgs) (*mcp.CallToolResult, error) {
		res, err := RecentChanges(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return textResult(res.Text()), nil
	})}
}

// NoteHistoryArgs are get_note_history's arguments.
type NoteHistoryArgs struct {
	Path   string `json:"path"`
	Limit  int    `json:"limit"`
	Offset int    `json:"offset"`
	Since  string `json:"since"`
	Author string `json:"author"`
}

// NoteHistoryResult is get_note_history's answer.
type NoteHistoryResult struct {
	History gitsync.NoteHistory
	// Given is the path as the client gave it.
	Given    string
	Filtered bool
	// Resolved says which path was taken for Given, when it was spelled
	// otherwise.
	Resolved string
}

// NoteHistory is get_note_history's work: a page of the commits that
// changed one note, following renames.
func NoteHistory(ctx context.Context, d Deps, a NoteHistoryArgs) (NoteHistoryResult, error) {
	if d.Git == nil {
		return NoteHistoryResult{}, errNoHistory
	}
	rel, note, err := d.historyPath(ctx, a.Path, false)
	if err != nil {
		return NoteHistoryResult{}, err
	}
	t, err := parseSince(a.Since)
	if err != nil {
		return NoteHistoryResult{}, err
	}
	h, err := d.Git.NoteHistory(ctx, gitsync.NoteHistoryOptions{Path: rel, Limit: a.Limit, Offset: a.Offset, Since: t, Author: a.Author})
	if err != nil {
		return NoteHistoryResult{}, fmt.Errorf("read history: %w", err)
	}
	return NoteHistoryResult{History: h, Given: a.Path, Filtered: a.Since != "" || a.Author != "", Resolved: note}, nil
}

// Text renders the history as a numbered list.
func (r NoteHistoryResult) Text() string {
	h := r.History
	if h.Total == 0 {
		msg := "No commits changed " + h.Path
		if r.Filtered {
			msg += " that match the since/author filters"
		} else {
			msg += " (it is not committed yet)"
		}
		return r.Resolved + msg + "." + historyNotices(h.Notices)
	}
	var b strings.Builder
	b.WriteString(r.Resolved)
	fmt.Fprintf(&b, "History of %s, newest first (renames followed):\n", h.Path)
	if h.RenamedTo != "" {
		fmt.Fprintf(&b, "(%s is an old name: %s moved the note away; it is called %s now, and get_note_history(path=%q) shows its later history.)\n",
			h.Path, h.RenamedIn, h.RenamedTo, h.RenamedTo)
	}
	for i, v := range h.Versions {
		what := string(v.Kind)
		switch {
		case v.Kind == gitsync.Renamed:
			what = "renamed " + v.OldPath + " -> " + v.Path
		case v.Path != h.Path:
			what += " as " + v.Path
		}
		fmt.Fprintf(&b, "%d. %s · %s · %s <%s> · %s", h.Offset+i+1, v.Time.Format(historyTimeLayout), v.Hash, v.Author, v.Email, what)
		if v.Added > 0 || v.Removed > 0 {
			fmt.Fprintf(&b, " (+%d -%d)", v.Added, v.Removed)
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "   %s\n", subjectLine(v.Message))
		if v.Notice != "" {
			fmt.Fprintf(&b, "   (%s)\n", v.Notice)
		}
	}
	b.WriteString("\n" + historyPage("commits", h.Offset, len(h.Versions), h.Total))
	b.WriteString(" Read a version with read_file(path, version=<hash>); compare versions with get_diff; undo one with revert_change.")
	b.WriteString(historyNotices(h.Notices))
	return b.String()
}

func subjectLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// GetNoteHistory is get_note_history: the commits that changed one note.
func GetNoteHistory(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_note_history",
		mcp.WithDescription("List the commits that changed one note, newest first, following it across renames and moves: "+
			"each with date, short hash, author, message, what happened to the note and the lines added/removed. Paginated."),
		mcp.WithString("path", mcp.Required(), mcp.Description("The note's path relative to the vault root (its current name, or the name it had when deleted)")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(gitsync.MaxHistoryLimit), mcp.DefaultNumber(gitsync.DefaultHistoryLimit), mcp.Description("Commits per page")),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description("Skip this many newer commits (for the next page)")),
		mcp.WithString("since", mcp.Description("Only commits made at or after this time: "+timeForms)),
		mcp.WithString("author", mcp.Description("Only commits whose author name or email contains this text (case-insensitive)")),
		annotate("Get note history", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a NoteHistoryArgs) (*mcp.CallToolResult, error) {
		res, err := NoteHistory(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return textResult(res.Text()), nil
	})}
}

// DiffArgs are get_diff's arguments.
type DiffArgs struct {
	Path   string `json:"path"`
	From   string `json:"from"`
	To     string `json:"to"`
	Limit  int    `json:"limit"`
	Offset int    `json:"offset"`
}

// DiffResult is get_diff's answer.
type DiffResult struct {
	Diff gitsync.Diff
	// Given is the path as the client gave it ("" for the whole vault).
	Given string
	// Budget is the answer budget the files were listed within.
	Budget int
	// Resolved says which path was taken for Given, when it was spelled
	// otherwise.
	Resolved string
}

// Diff is get_diff's work: a unified diff of one note between two
// versions (following renames), or of the whole vault between two commits.
func Diff(ctx context.Context, d Deps, a DiffArgs) (DiffResult, error) {
	if d.Git == nil {
		return DiffResult{}, errNoHistory
	}
	opts := gitsync.DiffOptions{From: a.From, To: a.To, Limit: a.Limit, Offset: a.Offset,
		MaxBytes: d.historyBytes(), Hide: hiddenPath(d.Vault), Skip: skipPaths(d.Vault, "")}
	var resolved string
	if a.Path != "" {
		rel, note, err := d.historyPath(ctx, a.Path, false)
		if err != nil {
			return DiffResult{}, err
		}
		opts.Path, resolved = rel, note
	}
	df, err := d.Git.Diff(ctx, opts)
	if err != nil {
		return DiffResult{}, err
	}
	return DiffResult{Diff: df, Given: a.Path, Budget: opts.MaxBytes, Resolved: resolved}, nil
}

// describeVersion names a resolved version for an answer.
func describeVersion(v gitsync.Version) string {
	s := v.Hash
	if v.Head {
		s += " (HEAD)"
	}
	return fmt.Sprintf("%s, %s, %q", s, v.Time.Format(historyTimeLayout), subjectLine(v.Message))
}

// Text renders the diff.
func (r DiffResult) Text() string {
	return r.Resolved + r.text()
}

// sameVersion explains an empty diff whose two versions are one commit.
func sameVersion(df gitsync.Diff, path string) string {
	if df.From.FullHash != df.To.FullHash {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, " from=%q and to=%q are the same commit %s, so there is nothing to compare", df.From.Spec, df.To.Spec, df.From.Hash)
	if isDate(df.From.Spec) || isDate(df.To.Spec) {
		b.WriteString(" (a date alone means the start of that day: the last commit before it)")
	}
	b.WriteString(". For the changes since a time use get_recent_changes(since=…), or give from=\"HEAD~N\" (N commits back)")
	if path != "" {
		fmt.Fprintf(&b, "; get_note_history(path=%q) lists the commits that changed it", path)
	}
	b.WriteString(".")
	return b.String()
}

// isDate reports whether a version spec is a date alone (YYYY-MM-DD).
func isDate(spec string) bool {
	s := strings.TrimSpace(spec)
	return len(s) == 10 && s[4] == '-' && s[7] == '-'
}

func (r DiffResult) text() string {
	df := r.Diff
	var b strings.Builder
	span := fmt.Sprintf("from %s to %s", describeVersion(df.From), describeVersion(df.To))
	if r.Given != "" {
		if len(df.Files) == 0 {
			return fmt.Sprintf("No changes to %s %s.", df.Path, span) + sameVersion(df, df.Path) + historyNotices(df.Notices)
		}
		fmt.Fprintf(&b, "Diff of %s %s", df.Path, span)
		if df.FromPath != df.Path {
			fmt.Fprintf(&b, " (it was %s then)", df.FromPath)
		}
		b.WriteString(":\n")
	} else {
		skipped := ""
		if df.Skipped > 0 {
			skipped = fmt.Sprintf(" (%d more in dot-folders such as .obsidian not listed; give a path to see one)", df.Skipped)
		}
		if df.Total == 0 {
			return "No changes in the vault " + span + skipped + "." + sameVersion(df, "") + historyNotices(df.Notices)
		}
		fmt.Fprintf(&b, "Diff of the vault %s: %d file(s) changed%s.\n", span, df.Total, skipped)
	}
	for _, f := range df.Files {
		writePatch(&b, f, r.Budget)
	}
	if r.Given == "" {
		b.WriteString("\n" + historyPage("files", df.Offset, len(df.Files), df.Total))
		if next := df.Offset + len(df.Files); next < df.Total {
			fmt.Fprintf(&b, " (%d per file at most; about %s per answer)", gitsync.MaxDiffLines, humanBytes(int64(r.Budget)))
		}
	}
	b.WriteString(historyNotices(df.Notices))
	return strings.TrimSuffix(b.String(), "\n")
}

// writePatch renders one file's unified diff; budget is the answer's,
// for the notice where it ran out.
func writePatch(b *strings.Builder, f gitsync.FilePatch, budget int) {
	name := f.Path
	if f.Kind == gitsync.Renamed {
		name = f.OldPath + " -> " + f.Path
	}
	fmt.Fprintf(b, "\n[%s] %s", f.Kind, name)
	if f.Added > 0 || f.Removed > 0 {
		fmt.Fprintf(b, " (+%d -%d)", f.Added, f.Removed)
	}
	b.WriteString("\n")
	switch {
	case f.Notice != "":
		fmt.Fprintf(b, "(%s)\n", f.Notice)
		return
	case f.Binary:
		b.WriteString("(binary file, no line diff)\n")
		return
	}
	for _, line := range f.Lines {
		b.WriteString(line + "\n")
	}
	switch {
	case f.OverBudget:
		fmt.Fprintf(b, "[... %d more diff lines not shown: answer budget of %s reached; narrow the range (from/to closer together, one path), or read the versions with read_file(path, version, offset) ...]\n",
			f.Truncated, humanBytes(int64(budget)))
	case f.Truncated > 0:
		fmt.Fprintf(b, "[... %d more diff lines not shown (%d per file); narrow the range, or read the versions with read_file(path, version, offset) ...]\n", f.Truncated, gitsync.MaxDiffLines)
	}
}

// GetDiff is get_diff: a unified diff between two versions.
func GetDiff(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_diff",
		mcp.WithDescription("Show a unified diff between two versions: of one note (followed across renames) when path is given, else of the whole vault (paginated by file). "+
			"Versions are a commit hash or its first 4+ digits, HEAD, HEAD~N, or an ISO date meaning \"as of\" (a date alone: the start of that day, so from=<date> shows that day's changes on). "+
			"At most 80 diff lines per file and about 20 KB in all."),
		mcp.WithString("path", mcp.Description("One note, relative to the vault root; leave out for every file that changed")),
		mcp.WithString("from", mcp.Required(), mcp.Description("The older version: commit hash or prefix, HEAD~N, or a time meaning as of then: "+timeForms+" (a day: as it began)")),
		mcp.WithString("to", mcp.Description("The newer version (same forms); default HEAD, the current version")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(gitsync.MaxDiffFiles), mcp.DefaultNumber(gitsync.DefaultDiffFiles), mcp.Description("Files per page (whole-vault diffs)")),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description("Skip this many files (for the next page)")),
		annotate("Get diff", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a DiffArgs) (*mcp.CallToolResult, error) {
		res, err := Diff(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return textResult(res.Text()), nil
	})}
}
