package tools

import (
	"context"
	"encoding/json"
	"errors"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/tokens"
	"vaultmcp/vault/edit"
	"vaultmcp/vault/index"
	"vaultmcp/vault/pattern"
	"vaultmcp/vault/query"
	"vaultmcp/vault/rank"
)

// QueryNotesArgs are query_notes's arguments.
type QueryNotesArgs struct {
	Filter any    `json:"filter"`
	Sort   string `json:"sort"`
	Paging
}

// QueryNotesResult is query_notes's answer.
type QueryNotesResult struct {
	Total int         `json:"total"`
	Notes []NoteEntry `json:"notes"`
	PageInfo
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

// noteProperties renders a note's properties typed, as get_properties
// shows them, from what the index keeps; only a note with a mapping or a
// nested list among its values has its YAML read again.
func noteProperties(m index.NoteMeta) edit.Object {
	out := make(edit.Object, 0, len(m.Properties))
	for _, p := range m.Properties {
		if p.Complex {
			props, err := edit.Properties(m.Content)
			if err != nil {
				break
			}
			out = out[:0]
			for _, p := range props {
				out = append(out, edit.Member{Key: p.Key, Value: p.Value})
			}
			return out
		}
	}
	for _, p := range m.Properties {
		var v any
		switch {
		case p.List:
			items := make([]any, len(p.Values))
			for i, s := range p.Values {
				items[i] = typedValue(s, p.Kinds[i])
			}
			v = items
		case len(p.Values) == 1:
			v = typedValue(p.Values[0], p.Kinds[0])
		}
		out = append(out, edit.Member{Key: p.Key, Value: v})
	}
	return out
}

// typedValue turns a property value the index keeps as text back into
// its JSON type.
func typedValue(s string, kind index.ValueKind) any {
	switch kind {
	case index.KindNumber:
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	case index.KindBool:
		return s == "true"
	}
	return s
}

// Query is query_notes's work: select notes by filter from the live
// index, sorted and paged.
func Query(ctx context.Context, d Deps, a QueryNotesArgs) (*QueryNotesResult, error) {
	f, err := query.Parse(a.Filter)
	if err != nil {
		return nil, queryError(err)
	}
	offset, limit := a.bounds(defaultPageSize)
	if limit < 1 {
		return nil, badInput("limit must be at least 1")
	}
	res, err := d.Queries.Run(ctx, query.Request{Filter: f, Sort: a.Sort, Offset: offset, Limit: limit})
	if err != nil {
		return nil, queryError(err)
	}
	entries := make([]NoteEntry, 0, len(res.Notes))
	for _, m := range res.Notes {
		e := NoteEntry{
			Path: m.Path, Name: strings.TrimSuffix(path.Base(m.Path), path.Ext(m.Path)),
			Modified: m.ModTime.UTC().Format(time.RFC3339), Size: m.Size, Tags: distinctTags(m.Tags), Properties: noteProperties(m),
		}
		entries = append(entries, e)
	}
	s := paginate(a.Paging, res.Total, defaultPageSize, "notes")
	s.End = s.Start + len(entries)
	s = s.fit(a.Paging, d.pageTokens(), func(i int) int {
		b, _ := json.Marshal(entries[i])
		return tokens.Estimate(b)
	})
	return &QueryNotesResult{Total: res.Total, Notes: keep(entries, s), PageInfo: s.info()}, nil
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

// queryError phrases a filter or sort error as the client's mistake.
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
    "total": {"type": "integer"},
    "next_offset": {"type": "integer"},
    "notice": {"type": "string"},
    "notes": {"type": "array", "items": {"type": "object", "properties": {
      "path": {"type": "string"}, "name": {"type": "string"}, "modified": {"type": "string"},
      "size": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}, "properties": {"type": "object"}}}}
  },
  "required": ["total", "notes"]
}`)

// QueryNotes is query_notes; Query does its work.
func QueryNotes(d Deps) server.ServerTool {
	opts := []mcp.ToolOption{
		mcp.WithDescription("Notes by properties, tags, folder, links and modification time, from the live index; sorted, paged. " +
			"filter: an object whose keys must all hold, e.g. {\"tags\": [\"project\"], \"properties\": {\"status\": \"done\", \"priority\": {\"gte\": 2}}, " +
			"\"folder\": \"Projects\", \"links_to\": \"Home\", \"modified_after\": \"2026-01-01\"}; also path (glob), links_from, modified_before, " +
			"any/all/not; operators eq ne gt gte lt lte in contains exists empty. \"project\" matches nested tags. docs/notes.md has the details."),
		mcp.WithAny("filter", schemaType("object", "string"), mcp.Description("Conditions the notes must meet; {} or absent: every note")),
		mcp.WithString("sort", mcp.DefaultString("path"),
			mcp.Description("path, name, modified, size or properties.<key>; leading - for descending")),
	}
	opts = append(opts, pagingOptions("notes", defaultPageSize)...)
	opts = append(opts, mcp.WithRawOutputSchema(queryNotesOutputSchema), annotate("Query notes", true, false, true))
	tool := mcp.NewTool("query_notes", opts...)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a QueryNotesArgs) (*mcp.CallToolResult, error) {
		res, err := Query(ctx, d, a)
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
	Query string `json:"query"`
	Paging
}

// SearchNotesResult is search_notes's answer.
type SearchNotesResult struct {
	Query   string      `json:"query"`
	Total   int         `json:"total"`
	Results []SearchHit `json:"results"`
	PageInfo
}

// SearchHit is one note in search_notes's answer.
type SearchHit struct {
	Path    string  `json:"path"`
	Title   string  `json:"title"`
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet" jsonschema:"The best-matching line"`
	Line    int     `json:"line,omitempty"`
}

// defaultSearchLimit is how many search_notes results come by default.
const defaultSearchLimit = 10

// RankedSearch is search_notes's work: a relevance-ranked search.
func RankedSearch(ctx context.Context, d Deps, a SearchNotesArgs) (*SearchNotesResult, error) {
	offset, limit := a.bounds(defaultSearchLimit)
	if limit < 1 {
		return nil, badInput("limit must be at least 1")
	}
	res, err := d.Ranked.Search(ctx, rank.Query{Text: a.Query, Limit: limit, Offset: offset})
	if err != nil {
		var re *rank.Error
		if errors.As(err, &re) {
			return nil, badInput("%s", re.Msg)
		}
		return nil, err
	}
	hits := make([]SearchHit, 0, len(res.Hits))
	for _, h := range res.Hits {
		hits = append(hits, SearchHit{Path: h.Path, Title: rank.Title(h.Path), Score: h.Score, Snippet: h.Snippet, Line: h.Line})
	}
	s := paginate(a.Paging, res.Total, defaultSearchLimit, "notes")
	s.End = s.Start + len(hits)
	// The title is the path's last part.
	itemCost := tokens.Estimate(`{"path":"","title":"","score":12.345678,"snippet":"","line":1234},`)
	s = s.fit(a.Paging, d.pageTokens(), func(i int) int {
		return 2*tokens.Estimate(hits[i].Path) + tokens.Estimate(hits[i].Snippet) + itemCost
	})
	return &SearchNotesResult{Query: a.Query, Total: res.Total, Results: keep(hits, s), PageInfo: s.info()}, nil
}

// SearchNotes is search_notes; RankedSearch does its work.
func SearchNotes(d Deps) server.ServerTool {
	opts := []mcp.ToolOption{
		mcp.WithDescription("Relevance-ranked full-text search (BM25; words in a note's name, aliases, headings and tags weigh more) with the best-matching line. " +
			"Plurals and accents fold; +word must occur, -word must not, \"a b\" both must, proj* is a prefix. Exact text or regex: grep."),
		mcp.WithString("query", mcp.Required(), mcp.MaxLength(pattern.MaxQuery), mcp.Description("e.g. \"budget review\" or \"+meeting -draft\"")),
	}
	opts = append(opts, pagingOptions("results", defaultSearchLimit)...)
	opts = append(opts, outputSchema[SearchNotesResult](), annotate("Search notes", true, false, true))
	tool := mcp.NewTool("search_notes", opts...)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a SearchNotesArgs) (*mcp.CallToolResult, error) {
		res, err := RankedSearch(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return jsonResult(res)
	})}
}
