package tools

import (
	"context"
	"encoding/json"
	"errors"
	"path"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/vault/edit"
	"vaultmcp/vault/query"
	"vaultmcp/vault/rank"
)

// maxPageSize caps limit for query_notes and search_notes.
const maxPageSize = 500

// QueryNotesArgs are query_notes's arguments.
type QueryNotesArgs struct {
	Filter any    `json:"filter"`
	Sort   string `json:"sort"`
	Limit  *int   `json:"limit"`
	Offset int    `json:"offset"`
}

// QueryNotesResult is query_notes's answer.
type QueryNotesResult struct {
	Total      int         `json:"total"`
	Offset     int         `json:"offset"`
	NextOffset *int        `json:"next_offset,omitempty"`
	Notes      []NoteEntry `json:"notes"`
}

// NoteEntry is one note in query_notes's answer.
type NoteEntry struct {
	Path       string      `json:"path"`
	Name       string      `json:"name"`
	Modified   string      `json:"modified"`
	Size       int64       `json:"size"`
	Tags       []string    `json:"tags"`
	Properties edit.Object `json:"properties"`
}

// QueryNotes selects notes by filter from the live index.
func (d Deps) QueryNotes(ctx context.Context, a QueryNotesArgs) (QueryNotesResult, error) {
	f, err := query.Parse(a.Filter)
	if err != nil {
		return QueryNotesResult{}, queryError(err)
	}
	limit := defaultPageSize
	if a.Limit != nil {
		limit = *a.Limit
	}
	if limit < 1 || limit > maxPageSize {
		return QueryNotesResult{}, badInput("limit must be between 1 and %d", maxPageSize)
	}
	res, err := d.Queries.Run(ctx, query.Request{Filter: f, Sort: a.Sort, Offset: a.Offset, Limit: limit})
	if err != nil {
		return QueryNotesResult{}, queryError(err)
	}
	out := QueryNotesResult{Total: res.Total, Offset: a.Offset, Notes: []NoteEntry{}}
	if next := a.Offset + len(res.Notes); next < res.Total {
		out.NextOffset = &next
	}
	for _, m := range res.Notes {
		e := NoteEntry{
			Path: m.Path, Name: strings.TrimSuffix(path.Base(m.Path), path.Ext(m.Path)),
			Modified: m.ModTime.UTC().Format(time.RFC3339), Size: m.Size, Tags: distinctTags(m.Tags), Properties: edit.Object{},
		}
		// The index keeps properties as text for filtering; the answer
		// reads them typed, from the note's text the index holds.
		if props, err := edit.Properties(m.Content); err == nil {
			for _, p := range props {
				e.Properties = append(e.Properties, edit.Member{Key: p.Key, Value: p.Value})
			}
		}
		out.Notes = append(out.Notes, e)
	}
	return out, nil
}

// distinctTags lists a note's tags once each (first spelling), without '#'.
func distinctTags(tags []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range tags {
		k := strings.ToLower(t)
		if !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	return out
}

func queryError(err error) error {
	var qe *query.Error
	if errors.As(err, &qe) {
		return badInput("%s", qe.Msg)
	}
	return err
}

var queryNotesOutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "total": {"type": "integer", "description": "Notes matching, over all pages"},
    "offset": {"type": "integer"},
    "next_offset": {"type": "integer", "description": "Offset of the next page; absent on the last page"},
    "notes": {"type": "array", "items": {"type": "object", "properties": {
      "path": {"type": "string"}, "name": {"type": "string"}, "modified": {"type": "string", "description": "RFC 3339, UTC"},
      "size": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}},
      "properties": {"type": "object", "description": "Frontmatter properties in the order written"}}}}
  },
  "required": ["total", "offset", "notes"]
}`)

// filterSchema documents the filter's keys for clients; the query package
// checks it (and says which key is wrong) when the tool runs.
var filterSchema = map[string]any{
	"tags":            map[string]any{"description": "Tag or tags the note must all carry; \"project\" also matches nested tags like \"project/active\""},
	"properties":      map[string]any{"type": "object", "description": "Property conditions, all must hold: {\"status\": \"done\"} (equal, ignoring case; for lists: an item equals), {\"status\": [\"a\", \"b\"]} (any of), {\"priority\": {\"gte\": 2}}, {\"due\": {\"lt\": \"2026-02-01\"}}, {\"owner\": {\"exists\": true}}; operators eq ne gt gte lt lte in contains exists empty"},
	"folder":          map[string]any{"description": "Folder (or list of folders) the note lies in, at any depth"},
	"path":            map[string]any{"description": "Glob (or list) on the note's path, e.g. \"Daily/2026-*.md\""},
	"links_to":        map[string]any{"description": "Note name or path the note links to"},
	"links_from":      map[string]any{"description": "Note name or path that links to the note"},
	"modified_after":  map[string]any{"type": "string", "description": "Date (2026-01-01, local midnight) or RFC 3339 time; modified at or after it"},
	"modified_before": map[string]any{"type": "string", "description": "Modified strictly before this date or time"},
	"any":             map[string]any{"type": "array", "description": "Filters of which at least one must hold"},
	"all":             map[string]any{"type": "array", "description": "Filters that must all hold"},
	"not":             map[string]any{"type": "object", "description": "A filter that must not hold"},
}

// QueryNotes is query_notes; Deps.QueryNotes does its work.
func QueryNotes(d Deps) server.ServerTool {
	tool := mcp.NewTool("query_notes",
		mcp.WithDescription("Find notes by their properties, tags, folder, links and modification time, answered from the live index in milliseconds; sorted and paged. "+
			"filter is a JSON object whose conditions must all hold, e.g. {\"tags\": [\"project\"], \"properties\": {\"status\": \"done\", \"priority\": {\"gte\": 2}}, "+
			"\"folder\": \"Projects\", \"links_to\": \"Home\", \"modified_after\": \"2026-01-01\"}; \"any\", \"all\" and \"not\" combine filters. "+
			"Each note comes with its path, modification time, tags and properties. For words in the text use search_notes; for exact text, grep."),
		mcp.WithAny("filter", schemaType("object", "string"), mcp.Properties(filterSchema),
			mcp.Description("Conditions the notes must meet (an object; {} or absent: every note)")),
		mcp.WithString("sort", mcp.DefaultString("path"),
			mcp.Description("path, name, modified, size or properties.<key>; a leading - sorts descending (e.g. \"-modified\", \"properties.due\"). Notes without the property come last")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(maxPageSize), mcp.DefaultNumber(defaultPageSize), mcp.Description("Notes per page")),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description("Notes to skip (next_offset of the previous page)")),
		mcp.WithRawOutputSchema(queryNotesOutputSchema),
		annotate("Query notes", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a QueryNotesArgs) (*mcp.CallToolResult, error) {
		res, err := d.QueryNotes(ctx, a)
		if err != nil {
			return nil, err
		}
		return jsonResult(res)
	})}
}

// schemaType sets a property's JSON Schema type to one or more types.
func schemaType(types ...string) mcp.PropertyOption {
	return func(schema map[string]any) {
		if len(types) == 1 {
			schema["type"] = types[0]
			return
		}
		schema["type"] = types
	}
}

// SearchNotesArgs are search_notes's arguments.
type SearchNotesArgs struct {
	Query  string `json:"query"`
	Limit  *int   `json:"limit"`
	Offset int    `json:"offset"`
}

// SearchNotesResult is search_notes's answer.
type SearchNotesResult struct {
	Query      string      `json:"query"`
	Total      int         `json:"total" jsonschema:"Notes matching, over all pages"`
	Offset     int         `json:"offset"`
	NextOffset *int        `json:"next_offset,omitempty" jsonschema:"Offset of the next page; absent on the last page"`
	Results    []SearchHit `json:"results"`
}

// SearchHit is one note in search_notes's answer.
type SearchHit struct {
	Path    string  `json:"path"`
	Title   string  `json:"title"`
	Score   float64 `json:"score" jsonschema:"Relevance; higher is better, comparable within one search only"`
	Snippet string  `json:"snippet" jsonschema:"The line that matches best"`
	Line    int     `json:"line,omitempty" jsonschema:"Line number of the snippet; absent when the match is in the name, aliases or tags"`
}

// defaultSearchLimit is how many search_notes results come by default.
const defaultSearchLimit = 10

// SearchNotes runs a relevance-ranked search.
func (d Deps) SearchNotes(ctx context.Context, a SearchNotesArgs) (SearchNotesResult, error) {
	limit := defaultSearchLimit
	if a.Limit != nil {
		limit = *a.Limit
	}
	if limit < 1 || limit > maxPageSize {
		return SearchNotesResult{}, badInput("limit must be between 1 and %d", maxPageSize)
	}
	res, err := d.Ranked.Search(ctx, rank.Query{Text: a.Query, Limit: limit, Offset: a.Offset})
	if err != nil {
		var re *rank.Error
		if errors.As(err, &re) {
			return SearchNotesResult{}, badInput("%s", re.Msg)
		}
		return SearchNotesResult{}, err
	}
	out := SearchNotesResult{Query: a.Query, Total: res.Total, Offset: a.Offset, Results: []SearchHit{}}
	if next := a.Offset + len(res.Hits); next < res.Total {
		out.NextOffset = &next
	}
	for _, h := range res.Hits {
		out.Results = append(out.Results, SearchHit{Path: h.Path, Title: rank.Title(h.Path), Score: h.Score, Snippet: h.Snippet, Line: h.Line})
	}
	return out, nil
}

// SearchNotes is search_notes; Deps.SearchNotes does its work.
func SearchNotes(d Deps) server.ServerTool {
	tool := mcp.NewTool("search_notes",
		mcp.WithDescription("Relevance-ranked full-text search over every note (BM25; a word in a note's name, aliases, headings or tags counts more than one in its body), "+
			"with the best-matching line of each note. Words may match in any form of their plural and without accents; +word must occur, -word must not, "+
			"\"quoted words\" must all occur, proj* matches words starting so. For exact text or regular expressions use grep; for properties and tags, query_notes."),
		mcp.WithString("query", mcp.Required(), mcp.Description("What to look for, e.g. \"budget review\" or \"+meeting -draft\"")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(maxPageSize), mcp.DefaultNumber(defaultSearchLimit), mcp.Description("Results per page")),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description("Results to skip (next_offset of the previous page)")),
		mcp.WithOutputSchema[SearchNotesResult](),
		annotate("Search notes", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a SearchNotesArgs) (*mcp.CallToolResult, error) {
		res, err := d.SearchNotes(ctx, a)
		if err != nil {
			return nil, err
		}
		return jsonResult(res)
	})}
}
