package tools

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/tokens"
	"vaultmcp/vault/index"
	"vaultmcp/vault/pattern"
	"vaultmcp/vault/search"
)

// The index serves the search engine from memory: note texts, and the
// list of every file for search_files and grep's non-note files.
var (
	_ search.Texts = (*index.Index)(nil)
	_ search.Files = (*index.Index)(nil)
	// grep lists the files it reads from disk once per index generation.
	_ search.Generational = (*index.Index)(nil)
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

// SearchFilesArgs are search_files' arguments.
type SearchFilesArgs struct {
	Pattern       string `json:"pattern"`
	Path          string `json:"path"`
	CaseSensitive bool   `json:"case_sensitive"`
	Paging
}

// FilesResult is one page of matching paths.
type FilesResult struct {
	Paths []string
	Total int // matching files over all pages
	PageInfo
	page span
}

// SearchFiles is search_files: files by glob.
func SearchFiles(d Deps) server.ServerTool {
	eng := d.search()
	opts := []mcp.ToolOption{
		mcp.WithDescription("Find files by glob (*, **, ?, [a-z], {md,canvas}); returns sorted paths. " +
			"A pattern without \"/\" matches names at any depth (\"*.md\"); with \"/\" it matches paths below `path` (\"Daily/2025-*\"); " +
			"a leading \"/\" keeps to `path` itself. Ignores case unless case_sensitive. Text inside files: grep; date or size: find_files."),
		mcp.WithString("pattern", mcp.Required(), mcp.MaxLength(pattern.MaxGlob), mcp.Description("Glob, e.g. \"*.md\", \"**/*.{png,jpg}\"")),
		mcp.WithString("path", mcp.Description("Folder to search in (default: the whole vault)"), mcp.DefaultString("")),
		mcp.WithBoolean("case_sensitive", mcp.Description("Match case exactly"), mcp.DefaultBool(false)),
	}
	opts = append(opts, pagingOptions("paths", search.DefaultFileLimit)...)
	opts = append(opts, annotate("Search files", true, false, true))
	tool := mcp.NewTool("search_files", opts...)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a SearchFilesArgs) (*mcp.CallToolResult, error) {
		res, err := Glob(ctx, eng, d, a)
		if err != nil {
			return nil, err
		}
		if res.Total == 0 {
			hint := globHint(a.Pattern, a.CaseSensitive)
			if !a.CaseSensitive {
				if loose, err := eng.Glob(ctx, search.GlobQuery{Pattern: a.Pattern, Path: a.Path, CaseInsensitive: true, IgnoreAccents: true, Limit: 1}); err == nil && loose.Total > 0 {
					hint = accentHint(plural(loose.Total, "file"), loose.Paths[0], "pattern", respell(a.Pattern, path.Base(loose.Paths[0])))
				}
			}
			return textResult(fmt.Sprintf("No files match %q%s. %s", a.Pattern, inFolder(a.Path), hint)), nil
		}
		return textResult(res.page.withNotice(strings.Join(res.Paths, "\n"))), nil
	})}
}

// Glob is search_files' work, on eng.
func Glob(ctx context.Context, eng *search.Engine, d Deps, a SearchFilesArgs) (*FilesResult, error) {
	offset, limit := a.bounds(search.DefaultFileLimit)
	res, err := eng.Glob(ctx, search.GlobQuery{Pattern: a.Pattern, Path: a.Path, CaseInsensitive: !a.CaseSensitive, Limit: offset + limit})
	if err != nil {
		return nil, err
	}
	s := paginate(a.Paging, res.Total, search.DefaultFileLimit, "files")
	page := window(res.Paths, s)
	s = s.fit(a.Paging, d.pageTokens(), func(i int) int { return tokens.Estimate(page[i]) + 1 })
	return &FilesResult{Paths: window(res.Paths, s), Total: res.Total, PageInfo: s.info(), page: s}, nil
}

// globHint says why a glob may have matched nothing.
func globHint(pattern string, caseSensitive bool) string {
	switch {
	case caseSensitive:
		return "Matching was case-sensitive; leave case_sensitive out to ignore case."
	case !strings.ContainsAny(pattern, "*?[{"):
		return fmt.Sprintf("Without wildcards a pattern matches whole names only: try \"*%s*\", or find_files with name=%q for part of a name.",
			strings.Trim(pattern, "/"), path.Base(pattern))
	case strings.Contains(strings.TrimPrefix(pattern, "/"), "/") && !strings.HasPrefix(pattern, "**/"):
		return fmt.Sprintf("A pattern with \"/\" matches paths from the searched folder: try \"**/%s\" to match at any depth.", strings.TrimPrefix(pattern, "/"))
	}
	return "To search inside files use grep."
}

// GrepArgs are grep's arguments.
type GrepArgs struct {
	Query          string `json:"query"`
	Path           string `json:"path"`
	IsRegex        bool   `json:"is_regex"`
	CaseSensitive  bool   `json:"case_sensitive"`
	IncludePattern string `json:"include_pattern"`
	ContextLines   int    `json:"context_lines"`
	Output         string `json:"output"`
	Paging
}

// GrepResult is one page of grep's answer: lines, or files with counts.
type GrepResult struct {
	Lines  []search.Line      // output "lines": matches and context
	Counts []search.FileCount // output "files" and "count"
	// Total counts the matching lines in Files files, of Searched
	// searched; the page's items are lines or files by output.
	Total, Files, Searched int
	PageInfo
	page span
}

// Grep is grep: lines by text or regular expression.
func Grep(d Deps) server.ServerTool {
	eng := d.search()
	opts := []mcp.ToolOption{
		mcp.WithDescription("Search file text for a string, or an RE2 regex with is_regex (^ and $ match at line ends). " +
			"Returns `path:line: content` in path order; context lines read `path-line- content`, groups split by \"--\". " +
			"Ignores case unless case_sensitive. To find files by name use search_files or find_files."),
		mcp.WithString("query", mcp.Required(), mcp.MaxLength(pattern.MaxQuery), mcp.Description("Text, or a regex with is_regex")),
		mcp.WithString("path", mcp.Description("Folder or file to search (default: the whole vault)"), mcp.DefaultString("")),
		mcp.WithBoolean("is_regex", mcp.Description("query is a regular expression"), mcp.DefaultBool(false)),
		mcp.WithBoolean("case_sensitive", mcp.Description("Match case exactly"), mcp.DefaultBool(false)),
		mcp.WithString("include_pattern", mcp.MaxLength(pattern.MaxGlob), mcp.Description("Only files matching this glob: \"*.md\", \"Projects/**\"")),
		mcp.WithInteger("context_lines", mcp.Description("Lines shown around each match"),
			mcp.Min(0), mcp.Max(search.MaxContext), mcp.DefaultNumber(0)),
		mcp.WithString("output", mcp.Enum("lines", "files", "count"), mcp.DefaultString("lines"),
			mcp.Description("lines, or only the matching files, or files with their match counts")),
	}
	opts = append(opts, pagingOptions("matches (files for files/count)", search.DefaultGrepLimit)...)
	opts = append(opts, annotate("Grep", true, false, true))
	tool := mcp.NewTool("grep", opts...)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a GrepArgs) (*mcp.CallToolResult, error) {
		res, err := GrepVault(ctx, eng, d, a)
		if err != nil {
			return nil, err
		}
		if res.Total == 0 {
			msg := fmt.Sprintf("No matches for %q%s (%s searched)", a.Query, inFolder(a.Path), plural(res.Searched, "file"))
			if hint := grepAccentHint(ctx, eng, a); hint != "" {
				msg += ". " + hint
			}
			return textResult(msg), nil
		}
		var b strings.Builder
		for i, l := range res.Lines {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(grepLine(l))
		}
		for i, c := range res.Counts {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(c.Path)
			if a.Output == "count" {
				fmt.Fprintf(&b, ": %d", c.Lines)
			}
		}
		return textResult(res.page.withNotice(b.String())), nil
	})}
}

// GrepPageTokens is what grep's answer aims to stay under when the
// client gives no limit, in estimated tokens (package internal/tokens):
// about 30 KB of English lines, some 100 of them. An agent usually wants
// the first matches to decide what to read; the notice gives the offset
// to read on.
const GrepPageTokens = 10_000

// grepTokens is grep's page budget, within the answer ceiling.
func (d Deps) grepTokens() int { return min(GrepPageTokens, d.pageTokens()) }

// GrepVault is grep's work, on eng.
func GrepVault(ctx context.Context, eng *search.Engine, d Deps, a GrepArgs) (*GrepResult, error) {
	q := search.GrepQuery{
		Query: a.Query, Path: a.Path, Regex: a.IsRegex, CaseSensitive: a.CaseSensitive,
		Include: a.IncludePattern, Context: a.ContextLines,
	}
	files := a.Output == "files" || a.Output == "count"
	if files {
		q.FilesOnly = true
	} else {
		q.Offset, q.Limit = a.bounds(search.DefaultGrepLimit)
	}
	r, err := eng.Grep(ctx, q)
	if err != nil {
		return nil, err
	}
	res := &GrepResult{Total: r.Total, Files: r.Files, Searched: r.Searched}
	if files {
		s := paginate(a.Paging, len(r.Counts), search.DefaultGrepLimit, fmt.Sprintf("files (%s matching lines)", count(r.Total)))
		page := window(r.Counts, s)
		s = s.fit(a.Paging, d.grepTokens(), func(i int) int { return tokens.Estimate(page[i].Path) + 5 })
		res.Counts, res.PageInfo, res.page = window(r.Counts, s), s.info(), s
		return res, nil
	}
	s := paginate(a.Paging, r.Total, search.DefaultGrepLimit, "matching lines in "+plural(r.Files, "file"))
	lines, shown := fitLines(r.Lines, a.Paging, d.grepTokens(), a.ContextLines)
	s.End = s.Start + min(shown, r.Shown)
	res.Lines, res.PageInfo, res.page = lines, s.info(), s
	return res, nil
}

// fitLines keeps, when the client gave no limit, the matches (with their
// context) that fit in budget bytes, and returns them with the number of
// matches kept; at least one match stays.
func fitLines(lines []search.Line, p Paging, budget, context int) ([]search.Line, int) {
	matches := 0
	for _, l := range lines {
		if l.Match {
			matches++
		}
	}
	if p.Limit != nil {
		return lines, matches
	}
	used, kept := 0, 0
	for i, l := range lines {
		used += tokens.Estimate(grepLine(l)) + 1
		if used <= budget || kept == 0 {
			if l.Match {
				kept++
			}
			continue
		}
		// Over budget: end after the last kept match and its trailing
		// context.
		end := i
		for end > 0 && !lines[end-1].Match {
			end--
		}
		for n := 0; n < context && end < len(lines) && !lines[end].Match && !lines[end].Break &&
			lines[end].Path == lines[end-1].Path; n++ {
			end++
		}
		return lines[:end], kept
	}
	return lines, matches
}

func grepLine(l search.Line) string {
	sep := ":"
	if !l.Match {
		sep = "-"
	}
	prefix := ""
	if l.Break {
		prefix = "--\n"
	}
	return prefix + l.Path + sep + strconv.Itoa(l.Num) + sep + " " + l.Text
}

// FindArgs are find_files' arguments.
type FindArgs struct {
	Path           string `json:"path"`
	Name           string `json:"name"`
	ModifiedAfter  string `json:"modified_after"`
	ModifiedBefore string `json:"modified_before"`
	SizeMin        *int64 `json:"size_min"`
	SizeMax        *int64 `json:"size_max"`
	Paging
}

// FindResult is one page of the files found.
type FindResult struct {
	Files []search.FoundFile
	Total int // files found over all pages
	PageInfo
	page span
}

// FindFiles is find_files: files by name, date and size.
func FindFiles(d Deps) server.ServerTool {
	eng := d.search()
	opts := []mcp.ToolOption{
		mcp.WithDescription("Find files by name, modification time and size (all filters given must hold); " +
			"returns `path  size bytes  modified` lines sorted by path. name is a substring of the name, or a glob with * ? [ { (without a \".\" it also matches the name less its extension); case is ignored. " +
			"Times: " + timeForms + "; modified_after is inclusive, modified_before exclusive."),
		mcp.WithString("path", mcp.Description("Folder to search in (default: the whole vault)"), mcp.DefaultString("")),
		mcp.WithString("name", mcp.MaxLength(pattern.MaxGlob), mcp.Description("Substring of the file name, or a glob on it")),
		mcp.WithString("modified_after", mcp.Description("Only files modified at or after this date/time")),
		mcp.WithString("modified_before", mcp.Description("Only files modified before this date/time")),
		mcp.WithInteger("size_min", mcp.Min(0), mcp.Description("Minimum size in bytes")),
		mcp.WithInteger("size_max", mcp.Min(0), mcp.Description("Maximum size in bytes")),
	}
	opts = append(opts, pagingOptions("files", search.DefaultFileLimit)...)
	opts = append(opts, annotate("Find files", true, false, true))
	tool := mcp.NewTool("find_files", opts...)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a FindArgs) (*mcp.CallToolResult, error) {
		res, err := Find(ctx, eng, d, a)
		if err != nil {
			return nil, err
		}
		if res.Total == 0 {
			msg := "No files found" + inFolder(a.Path) + " with these filters"
			if a.Name != "" {
				if loose, err := findLoose(ctx, eng, a); err == nil && loose.Total > 0 {
					msg += ". " + accentHint(plural(loose.Total, "file"), loose.Files[0].Path, "name", respell(a.Name, path.Base(loose.Files[0].Path)))
				}
			}
			return textResult(msg), nil
		}
		var b strings.Builder
		for i, f := range res.Files {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(foundLine(f))
		}
		return textResult(res.page.withNotice(b.String())), nil
	})}
}

// Find is find_files' work, on eng.
func Find(ctx context.Context, eng *search.Engine, d Deps, a FindArgs) (*FindResult, error) {
	offset, limit := a.bounds(search.DefaultFileLimit)
	return find(ctx, eng, d, a, search.FindQuery{Path: a.Path, Name: a.Name, MaxSize: -1, Limit: offset + limit})
}

// findLoose is find_files ignoring accents in the name, for the hint of
// an empty answer: the first file found and the count.
func findLoose(ctx context.Context, eng *search.Engine, a FindArgs) (*FindResult, error) {
	a.Paging = Paging{}
	return find(ctx, eng, Deps{}, a, search.FindQuery{Path: a.Path, Name: a.Name, MaxSize: -1, Limit: 1, IgnoreAccents: true})
}

func find(ctx context.Context, eng *search.Engine, d Deps, a FindArgs, q search.FindQuery) (*FindResult, error) {
	var err error
	now := time.Now()
	if q.ModifiedAfter, err = parseTimeArg("modified_after", a.ModifiedAfter, now); err != nil {
		return nil, err
	}
	if q.ModifiedBefore, err = parseTimeArg("modified_before", a.ModifiedBefore, now); err != nil {
		return nil, err
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
	s := paginate(a.Paging, res.Total, search.DefaultFileLimit, "files")
	page := window(res.Files, s)
	s = s.fit(a.Paging, d.pageTokens(), func(i int) int { return tokens.Estimate(foundLine(page[i])) + 1 })
	return &FindResult{Files: window(res.Files, s), Total: res.Total, PageInfo: s.info(), page: s}, nil
}

func foundLine(f search.FoundFile) string {
	return fmt.Sprintf("%s  %d bytes  %s", f.Path, f.Size, f.ModTime.UTC().Format(time.RFC3339))
}

// accentHint is what an empty answer adds when the search would have
// found n items ignoring accents and Unicode form (and case): how many,
// an example, and the exact argument that finds them. Matching itself
// stays exact; the client decides.
func accentHint(found, example, arg, value string) string {
	return fmt.Sprintf("Ignoring accents, %s would match (e.g. %s): use %s %s.", found, example, arg, strconv.Quote(value))
}

// grepAccentHint is grep's accentHint, "" when a plain-text query finds
// nothing ignoring accents either.
func grepAccentHint(ctx context.Context, eng *search.Engine, a GrepArgs) string {
	if a.IsRegex {
		return ""
	}
	r, err := eng.Grep(ctx, search.GrepQuery{Query: a.Query, Path: a.Path, CaseSensitive: a.CaseSensitive,
		Include: a.IncludePattern, IgnoreAccents: true, Limit: 1})
	if err != nil || r.Total == 0 || len(r.Lines) == 0 {
		return ""
	}
	l := r.Lines[0]
	span, ok := search.LooseSpan(l.Text, a.Query, !a.CaseSensitive)
	if !ok {
		return ""
	}
	return accentHint(plural(r.Total, "line")+" in "+plural(r.Files, "file"), fmt.Sprintf("%s:%d", l.Path, l.Num), "query", span)
}

// respell rewrites the literal parts of a name or glob with the spelling
// they have in name, where they match it ignoring accents: "cafe*" and
// "Café crème.md" give "Café*". Wildcards and parts not found stay.
func respell(pattern, name string) string {
	var b strings.Builder
	run := 0 // start of the current literal run
	flush := func(end int) {
		lit := pattern[run:end]
		if span, ok := search.LooseSpan(name, lit, true); ok && strings.TrimSpace(lit) != "" {
			b.WriteString(span)
		} else {
			b.WriteString(lit)
		}
	}
	for i := 0; i < len(pattern); i++ {
		if strings.IndexByte("*?[]{},/\\", pattern[i]) >= 0 {
			flush(i)
			b.WriteByte(pattern[i])
			run = i + 1
		}
	}
	flush(len(pattern))
	return b.String()
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
