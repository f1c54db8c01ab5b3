package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/vault/index"
	"vaultmcp/vault/search"
)

// The index serves the search engine from memory: note texts, and the
// list of every file for search_files and grep's non-note files.
var (
	_ search.Texts = (*index.Index)(nil)
	_ search.Files = (*index.Index)(nil)
)

// newSearch builds the engine the search tools share (one content cache
// for all of them), over the index's texts when there is an index.
func newSearch(d Deps) *search.Engine {
	var texts search.Texts
	if d.Index != nil {
		texts = d.Index
	}
	return search.New(d.Vault, search.Options{Texts: texts, Logger: d.logger()})
}

func (d Deps) search() *search.Engine {
	if d.Search != nil {
		return d.Search
	}
	return newSearch(d)
}

type searchFilesArgs struct {
	Pattern         string `json:"pattern"`
	Path            string `json:"path"`
	CaseInsensitive bool   `json:"case_insensitive"`
	Limit           int    `json:"limit"`
}

// SearchFiles is search_files (seed 003): files by glob.
func SearchFiles(d Deps) server.ServerTool {
	eng := d.search()
	tool := mcp.NewTool("search_files",
		mcp.WithDescription("Find files by glob pattern; returns matching paths relative to the vault root, one per line, sorted. "+
			"Globs: * (any characters but /), ** (any folders), ?, [a-z], {md,canvas}. "+
			"A pattern without \"/\" matches file names at any depth (\"*.md\" finds every note, like ripgrep -g); "+
			"a pattern with \"/\" matches the path relative to `path` (\"Daily Notes/2025-*\", \"**/Projects/*.md\"); "+
			"a leading \"/\" keeps a name pattern to `path` itself (\"/*.md\"). Only files are listed, not folders. "+
			"To search inside files use grep; to filter by date or size use find_files."),
		mcp.WithString("pattern", mcp.Required(), mcp.Description("Glob pattern, e.g. \"*.md\", \"Daily Notes/2025-*\", \"**/*.{png,jpg}\"")),
		mcp.WithString("path", mcp.Description("Folder to search in, relative to the vault root (default: the whole vault)"), mcp.DefaultString("")),
		mcp.WithBoolean("case_insensitive", mcp.Description("Ignore case when matching"), mcp.DefaultBool(false)),
		mcp.WithInteger("limit", mcp.Description("At most this many paths (default 500)"),
			mcp.Min(1), mcp.Max(search.MaxFileLimit), mcp.DefaultNumber(search.DefaultFileLimit)),
		annotate("Search files", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a searchFilesArgs) (*mcp.CallToolResult, error) {
		res, err := eng.Glob(ctx, search.GlobQuery{Pattern: a.Pattern, Path: a.Path, CaseInsensitive: a.CaseInsensitive, Limit: a.Limit})
		if err != nil {
			return nil, err
		}
		if res.Total == 0 {
			return textResult(fmt.Sprintf("No files match %q%s", a.Pattern, inFolder(a.Path))), nil
		}
		var b strings.Builder
		b.WriteString(strings.Join(res.Paths, "\n"))
		if more := res.Total - len(res.Paths); more > 0 {
			fmt.Fprintf(&b, "\n[... %s more not shown (%s files match); narrow the pattern or the path, or raise limit ...]",
				count(more), count(res.Total))
		}
		return textResult(b.String()), nil
	})}
}

type grepArgs struct {
	Query          string `json:"query"`
	Path           string `json:"path"`
	IsRegex        bool   `json:"is_regex"`
	CaseSensitive  bool   `json:"case_sensitive"`
	IncludePattern string `json:"include_pattern"`
	ContextLines   int    `json:"context_lines"`
}

// Grep is grep (seed 003): lines by text or regular expression.
func Grep(d Deps) server.ServerTool {
	eng := d.search()
	tool := mcp.NewTool("grep",
		mcp.WithDescription("Search the content of the vault's text files for a text or a regular expression; returns matching lines as "+
			"`path:line: content`, in path order, at most 500 (the total is reported when there are more). "+
			"Case-insensitive unless case_sensitive is true. With is_regex the query is an RE2 regular expression (Go syntax: no "+
			"backreferences or lookaround), matched within single lines (^ and $ are line start and end). "+
			"With context_lines, lines around each match are shown as `path-line- content`, and \"--\" separates groups. "+
			"Very long lines are shortened around the match; binary files and Obsidian's .obsidian and .trash folders are skipped. "+
			"To find files by name use search_files."),
		mcp.WithString("query", mcp.Required(), mcp.Description("Text to find, or a regular expression with is_regex")),
		mcp.WithString("path", mcp.Description("Folder or file to search, relative to the vault root (default: the whole vault)"), mcp.DefaultString("")),
		mcp.WithBoolean("is_regex", mcp.Description("Treat query as a regular expression"), mcp.DefaultBool(false)),
		mcp.WithBoolean("case_sensitive", mcp.Description("Match upper and lower case exactly"), mcp.DefaultBool(false)),
		mcp.WithString("include_pattern", mcp.Description("Only search files matching this glob, ignoring case: \"*.md\" (file names at any depth), "+
			"\"Projects/**\" (paths relative to path)")),
		mcp.WithInteger("context_lines", mcp.Description("Lines of context to show before and after each match (0-5)"),
			mcp.Min(0), mcp.Max(search.MaxContext), mcp.DefaultNumber(0)),
		annotate("Grep", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a grepArgs) (*mcp.CallToolResult, error) {
		res, err := eng.Grep(ctx, search.GrepQuery{
			Query: a.Query, Path: a.Path, Regex: a.IsRegex, CaseSensitive: a.CaseSensitive,
			Include: a.IncludePattern, Context: a.ContextLines,
		})
		if err != nil {
			return nil, err
		}
		if res.Total == 0 {
			return textResult(fmt.Sprintf("No matches for %q%s (%s searched)", a.Query, inFolder(a.Path), plural(res.Searched, "file"))), nil
		}
		var b strings.Builder
		for i, l := range res.Lines {
			if i > 0 {
				b.WriteByte('\n')
			}
			if l.Break {
				b.WriteString("--\n")
			}
			sep := byte(':')
			if !l.Match {
				sep = '-'
			}
			b.WriteString(l.Path)
			b.WriteByte(sep)
			b.WriteString(strconv.Itoa(l.Num))
			b.WriteByte(sep)
			b.WriteByte(' ')
			b.WriteString(l.Text)
		}
		if res.Total > res.Shown {
			fmt.Fprintf(&b, "\n[... showing %s of %s matching lines (in %s); narrow the search with path, include_pattern or a more specific query ...]",
				count(res.Shown), count(res.Total), plural(res.Files, "file"))
		}
		return textResult(b.String()), nil
	})}
}

type findArgs struct {
	Path           string `json:"path"`
	Name           string `json:"name"`
	ModifiedAfter  string `json:"modified_after"`
	ModifiedBefore string `json:"modified_before"`
	SizeMin        *int64 `json:"size_min"`
	SizeMax        *int64 `json:"size_max"`
	Limit          int    `json:"limit"`
}

// FindFiles is find_files (seed 003): files by name, date and size.
func FindFiles(d Deps) server.ServerTool {
	eng := d.search()
	tool := mcp.NewTool("find_files",
		mcp.WithDescription("Find files by name, modification time and size; every filter is optional and all given must hold. "+
			"Returns one file per line, sorted by path: `path  size bytes  modified` (modification time in RFC 3339, UTC). "+
			"name is a case-insensitive substring of the file name (\"meeting\"), or a glob on the file name when it holds * ? [ or { (\"2025-*.md\"). "+
			"Dates are YYYY-MM-DD (midnight UTC) or RFC 3339 (2025-06-01T14:30:00+02:00); modified_after includes that instant, "+
			"modified_before excludes it, so modified_after=2025-06-01 with modified_before=2025-06-02 is one day."),
		mcp.WithString("path", mcp.Description("Folder to search in, relative to the vault root (default: the whole vault)"), mcp.DefaultString("")),
		mcp.WithString("name", mcp.Description("Substring of the file name, or a glob on it (ignores case)")),
		mcp.WithString("modified_after", mcp.Description("Only files modified at or after this date/time (YYYY-MM-DD or RFC 3339)")),
		mcp.WithString("modified_before", mcp.Description("Only files modified before this date/time (YYYY-MM-DD or RFC 3339)")),
		mcp.WithInteger("size_min", mcp.Min(0), mcp.Description("Minimum size in bytes (inclusive)")),
		mcp.WithInteger("size_max", mcp.Min(0), mcp.Description("Maximum size in bytes (inclusive)")),
		mcp.WithInteger("limit", mcp.Description("At most this many files (default 500)"),
			mcp.Min(1), mcp.Max(search.MaxFileLimit), mcp.DefaultNumber(search.DefaultFileLimit)),
		annotate("Find files", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a findArgs) (*mcp.CallToolResult, error) {
		q := search.FindQuery{Path: a.Path, Name: a.Name, MaxSize: -1, Limit: a.Limit}
		var err error
		if a.ModifiedAfter != "" {
			if q.ModifiedAfter, err = search.ParseTime("modified_after", a.ModifiedAfter); err != nil {
				return nil, err
			}
		}
		if a.ModifiedBefore != "" {
			if q.ModifiedBefore, err = search.ParseTime("modified_before", a.ModifiedBefore); err != nil {
				return nil, err
			}
		}
		if a.SizeMin != nil {
			q.MinSize = *a.SizeMin
		}
		if a.SizeMax != nil {
			q.MaxSize = *a.SizeMax
		}
		res, err := eng.Find(ctx, q)
		if err != nil {
			return nil, err
		}
		if res.Total == 0 {
			return textResult("No files found" + inFolder(a.Path) + " with these filters"), nil
		}
		var b strings.Builder
		for i, f := range res.Files {
			if i > 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "%s  %d bytes  %s", f.Path, f.Size, f.ModTime.UTC().Format(time.RFC3339))
		}
		if more := res.Total - len(res.Files); more > 0 {
			fmt.Fprintf(&b, "\n[... %s more not shown (%s files match); add filters or raise limit ...]", count(more), count(res.Total))
		}
		return textResult(b.String()), nil
	})}
}

// inFolder names the searched folder in a message, "" for the root.
func inFolder(given string) string {
	if given == "" || given == "/" || given == "." {
		return ""
	}
	return " in " + given
}

// count writes n with thousands separators.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return count(n) + " " + noun + "s"
}
