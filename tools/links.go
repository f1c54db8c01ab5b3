package tools

import (
	"context"
	"path/filepath"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// defaultPageSize is the page size of paginated lists.
const defaultPageSize = 50

type backlinksArgs struct {
	NoteName string `json:"note_name"`
	Path     string `json:"path"`
}

// backlinksResult is seed 000's output shape.
type backlinksResult struct {
	Note          string         `json:"note" jsonschema:"The target note name or path that was queried"`
	BacklinkCount int            `json:"backlink_count" jsonschema:"Number of notes linking to this note"`
	Backlinks     []backlinkItem `json:"backlinks"`
}

type backlinkItem struct {
	File         string   `json:"file" jsonschema:"Relative path from vault root"`
	AbsolutePath string   `json:"absolute_path" jsonschema:"Full filesystem path"`
	Links        []string `json:"links" jsonschema:"All links found in this note, as written"`
}

// GetBacklinks is get_backlinks (seed 000, with seed 003's path input).
func GetBacklinks(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_backlinks",
		mcp.WithDescription("Find every note that links to a note — by [[wikilink]], embed or Markdown link — resolved the way Obsidian resolves links "+
			"(case-insensitive; with or without folders, .md, headings, block ids and aliases). Give note_name (the name without .md, e.g. \"Project Ideas\") "+
			"or path (e.g. \"Work/Project Ideas.md\"). A note that does not exist yet still shows the notes linking to it. "+
			"Each result lists all links found in the linking note, as written. Answered from a live index in milliseconds."),
		mcp.WithString("note_name", mcp.Description("Name of the target note without the .md extension, e.g. \"Project Ideas\"")),
		mcp.WithString("path", mcp.Description("Path of the target file relative to the vault root, instead of note_name")),
		mcp.WithOutputSchema[backlinksResult](),
		annotate("Get backlinks", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a backlinksArgs) (*mcp.CallToolResult, error) {
		var (
			note string
			bl   []index.Backlink
			err  error
		)
		switch {
		case a.Path != "":
			note = a.Path
			p, perr := d.Vault.ResolveFile(ctx, a.Path)
			if perr != nil {
				return nil, perr
			}
			ok, herr := d.Index.HasFile(ctx, p.Rel)
			if herr != nil {
				return nil, herr
			}
			if !ok {
				return nil, &vault.Error{Kind: vault.ErrNotFound, Path: a.Path, Msg: "File not found: " + a.Path}
			}
			bl, err = d.Index.Backlinks(ctx, p.Rel)
		case a.NoteName != "":
			note = a.NoteName
			bl, err = d.Index.BacklinksByName(ctx, a.NoteName)
		default:
			// Seed 000: an empty name has no backlinks.
			return jsonResult(backlinksResult{Backlinks: []backlinkItem{}})
		}
		if err != nil {
			return nil, err
		}
		res := backlinksResult{Note: note, BacklinkCount: len(bl), Backlinks: make([]backlinkItem, len(bl))}
		for i, b := range bl {
			res.Backlinks[i] = backlinkItem{
				File:         b.Source,
				AbsolutePath: filepath.Join(d.Vault.Root(), filepath.FromSlash(b.Source)),
				Links:        b.Links,
			}
		}
		return jsonResult(res)
	})}
}

type brokenArgs struct {
	Limit  *int `json:"limit"`
	Offset int  `json:"offset"`
}

// brokenResult is seed 000's output shape.
type brokenResult struct {
	FilesWithBrokenLinks int          `json:"files_with_broken_links" jsonschema:"Number of notes containing broken links"`
	BrokenLinks          []brokenItem `json:"broken_links"`
}

type brokenItem struct {
	File        string   `json:"file" jsonschema:"Relative path from vault root"`
	BrokenLinks []string `json:"broken_links" jsonschema:"Broken link targets, as written"`
}

// GetBrokenLinks is get_broken_links (seed 000).
func GetBrokenLinks(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_broken_links",
		mcp.WithDescription("Find links that point to notes or attachments that do not exist, grouped by note and sorted by path. "+
			"A link to an existing attachment, or to a heading or block of an existing note, is not broken; links inside code, comments and math are not links. "+
			"files_with_broken_links counts all such notes; limit and offset page through them."),
		mcp.WithInteger("limit", mcp.Description("At most this many notes (default: all)"), mcp.Min(1)),
		mcp.WithInteger("offset", mcp.Description("Skip this many notes first"), mcp.Min(0), mcp.DefaultNumber(0)),
		mcp.WithOutputSchema[brokenResult](),
		annotate("Get broken links", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a brokenArgs) (*mcp.CallToolResult, error) {
		broken, err := d.Index.Broken(ctx)
		if err != nil {
			return nil, err
		}
		res := brokenResult{FilesWithBrokenLinks: len(broken), BrokenLinks: []brokenItem{}}
		for _, b := range page(broken, a.Offset, a.Limit) {
			res.BrokenLinks = append(res.BrokenLinks, brokenItem{File: b.Source, BrokenLinks: b.Targets})
		}
		return jsonResult(res)
	})}
}

// page cuts one page out of items; a nil limit means all.
func page[T any](items []T, offset int, limit *int) []T {
	if offset >= len(items) {
		return nil
	}
	items = items[offset:]
	if limit != nil && *limit < len(items) {
		items = items[:*limit]
	}
	return items
}

type findLinksArgs struct {
	Path      string `json:"path"`
	Direction string `json:"direction"`
	Limit     *int   `json:"limit"`
	Offset    int    `json:"offset"`
}

type outlinkItem struct {
	Name string  `json:"name"`
	Path *string `json:"path"`
}

type backlinkSection struct {
	Results []string `json:"results"`
	Total   int      `json:"total"`
}

type outlinkSection struct {
	Results []outlinkItem `json:"results"`
	Total   int           `json:"total"`
}

// findLinksResult covers seed 002's three shapes: results/total for one
// direction, backlinks/outlinks sections for both.
type findLinksResult struct {
	Success   bool             `json:"success"`
	Results   any              `json:"results,omitempty"`
	Total     *int             `json:"total,omitempty"`
	Backlinks *backlinkSection `json:"backlinks,omitempty"`
	Outlinks  *outlinkSection  `json:"outlinks,omitempty"`
}

var findLinksOutputSchema = []byte(`{
  "type": "object",
  "properties": {
    "success": {"type": "boolean"},
    "results": {"type": "array", "description": "direction=backlinks: paths of linking notes; direction=outlinks: {name, path} of link targets (path null when the link is broken)"},
    "total": {"type": "integer", "description": "number of results over all pages"},
    "backlinks": {"type": "object", "properties": {"results": {"type": "array", "items": {"type": "string"}}, "total": {"type": "integer"}}},
    "outlinks": {"type": "object", "properties": {"results": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "path": {"type": ["string", "null"]}}}}, "total": {"type": "integer"}}}
  },
  "required": ["success"]
}`)

// FindLinks is find_links (seed 002): backlinks, outlinks or both of one
// note, each direction paginated on its own.
func FindLinks(d Deps) server.ServerTool {
	tool := mcp.NewTool("find_links",
		mcp.WithDescription("Links of one note: direction \"backlinks\" (notes linking to it), \"outlinks\" (what it links to; path is null for a broken link) "+
			"or \"both\" (default; each section paginated on its own). Resolved the way Obsidian resolves links, from a live index."),
		mcp.WithString("path", mcp.Required(), mcp.Description("Path of the note relative to the vault root (an absolute path inside the vault works too)")),
		mcp.WithString("direction", mcp.Enum("backlinks", "outlinks", "both"), mcp.DefaultString("both"), mcp.Description("Which links to return")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(1000), mcp.DefaultNumber(defaultPageSize), mcp.Description("Results per direction")),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description("Results to skip per direction")),
		mcp.WithRawOutputSchema(findLinksOutputSchema),
		annotate("Find links", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a findLinksArgs) (*mcp.CallToolResult, error) {
		fail := func(err error) (*mcp.CallToolResult, error) {
			return nil, &toolError{msg: err.Error(), fields: map[string]any{"success": false}}
		}
		p, err := d.Vault.ResolveFile(ctx, a.Path)
		if err != nil {
			return fail(err)
		}
		ok, err := d.Index.HasFile(ctx, p.Rel)
		if err != nil {
			return fail(err)
		}
		if !ok {
			return fail(&vault.Error{Kind: vault.ErrNotFound, Path: a.Path, Msg: "File not found: " + a.Path})
		}
		limit := defaultPageSize
		if a.Limit != nil {
			limit = *a.Limit
		}
		dir := a.Direction
		if dir == "" {
			dir = "both"
		}
		var back *backlinkSection
		var out *outlinkSection
		if dir == "backlinks" || dir == "both" {
			bl, err := d.Index.Backlinks(ctx, p.Rel)
			if err != nil {
				return fail(err)
			}
			paths := make([]string, len(bl))
			for i, b := range bl {
				paths[i] = b.Source
			}
			back = &backlinkSection{Results: nonNil(page(paths, a.Offset, &limit)), Total: len(paths)}
		}
		if dir == "outlinks" || dir == "both" {
			ol, _, err := d.Index.Outlinks(ctx, p.Rel)
			if err != nil {
				return fail(err)
			}
			items := make([]outlinkItem, len(ol))
			for i, o := range ol {
				items[i] = outlinkItem{Name: o.Name}
				if o.Path != "" {
					items[i].Path = &o.Path
				}
			}
			out = &outlinkSection{Results: nonNil(page(items, a.Offset, &limit)), Total: len(items)}
		}
		switch dir {
		case "backlinks":
			return jsonResult(findLinksResult{Success: true, Results: back.Results, Total: &back.Total})
		case "outlinks":
			return jsonResult(findLinksResult{Success: true, Results: out.Results, Total: &out.Total})
		}
		return jsonResult(findLinksResult{Success: true, Backlinks: back, Outlinks: out})
	})}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
