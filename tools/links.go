package tools

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/tokens"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// Default page sizes of the link tools. Each answer also stops before it
// outgrows DefaultPageTokens.
const (
	defaultBacklinks = 100
	defaultBroken    = 100
	// defaultPageSize is find_links' page, per direction.
	defaultPageSize = 50
)

// BacklinksArgs are get_backlinks' arguments: note_name or path.
type BacklinksArgs struct {
	NoteName string `json:"note_name"`
	Path     string `json:"path"`
	Paging
}

// BacklinksResult is get_backlinks' answer: the documented note,
// backlink_count and backlinks, plus what the name resolved to and the
// page.
type BacklinksResult struct {
	Note          string         `json:"note"`
	BacklinkCount int            `json:"backlink_count" jsonschema:"Notes linking to it, over all pages"`
	Backlinks     []BacklinkItem `json:"backlinks"`
	Path          string         `json:"path,omitempty" jsonschema:"The file meant; absent when no file has the name"`
	SameName      []string       `json:"same_name,omitempty" jsonschema:"Other files of that name"`
	PageInfo
}

// BacklinkItem is one note linking to the queried one.
type BacklinkItem struct {
	File         string   `json:"file"`
	AbsolutePath string   `json:"absolute_path" jsonschema:"The note's absolute path on the server; for a remote (HTTP) client, its path in the vault"`
	Links        []string `json:"links" jsonschema:"Its links to the note, as written"`
	Lines        []int    `json:"lines" jsonschema:"Their line numbers"`
	Nodes        []string `json:"nodes,omitempty" jsonschema:"A canvas's file nodes"`
}

// backlinksText is BacklinksResult as the text shows it: without the
// server's absolute paths, which only cost the reader tokens.
type backlinksText struct {
	Note          string         `json:"note"`
	BacklinkCount int            `json:"backlink_count"`
	Backlinks     []backlinkText `json:"backlinks"`
	Path          string         `json:"path,omitempty"`
	SameName      []string       `json:"same_name,omitempty"`
	PageInfo
}

type backlinkText struct {
	File  string   `json:"file"`
	Links []string `json:"links"`
	Lines []int    `json:"lines"`
	Nodes []string `json:"nodes,omitempty"`
}

// GetBacklinks is get_backlinks: the notes linking to one note, by name or
// by path.
func GetBacklinks(d Deps) server.ServerTool {
	opts := []mcp.ToolOption{
		mcp.WithDescription("Notes linking to a note (wikilinks, embeds, Markdown links), resolved as Obsidian does; also canvases' file cards (nodes). " +
			"Give note_name or path. Each result has its links to the note and their lines. " +
			"A name several files share resolves as [[name]] would from the vault root: path is the file picked, same_name the others."),
		mcp.WithString("note_name", mcp.Description("Note name without .md, e.g. \"Project Ideas\"")),
		mcp.WithString("path", mcp.Description("File path, e.g. \"Work/Project Ideas.md\", instead of note_name")),
	}
	opts = append(opts, pagingOptions("notes", defaultBacklinks)...)
	opts = append(opts, outputSchema[BacklinksResult](), annotate("Get backlinks", true, false, true))
	tool := mcp.NewTool("get_backlinks", opts...)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a BacklinksArgs) (*mcp.CallToolResult, error) {
		res, err := Backlinks(ctx, d, a)
		if err != nil {
			return nil, err
		}
		text := backlinksText{Note: res.Note, BacklinkCount: res.BacklinkCount, Backlinks: make([]backlinkText, len(res.Backlinks)),
			Path: res.Path, SameName: res.SameName, PageInfo: res.PageInfo}
		for i, b := range res.Backlinks {
			text.Backlinks[i] = backlinkText{File: b.File, Links: b.Links, Lines: b.Lines, Nodes: b.Nodes}
		}
		raw, err := encodeJSON(text)
		if err != nil {
			return nil, err
		}
		return structuredResult(res, raw)
	})}
}

// Backlinks is get_backlinks' work.
func Backlinks(ctx context.Context, d Deps, a BacklinksArgs) (*BacklinksResult, error) {
	name := strings.TrimSpace(a.NoteName)
	if a.Path != "" && name != "" {
		return nil, invalid("give note_name or path, not both")
	}
	res := &BacklinksResult{Backlinks: []BacklinkItem{}}
	offset, limit := a.bounds(defaultBacklinks)
	var (
		page []index.LinkingNote
		err  error
	)
	switch {
	case a.Path != "":
		res.Note = a.Path
		p, err := d.Vault.ResolveFile(ctx, a.Path)
		if err != nil {
			return nil, err
		}
		ok, err := d.Index.HasFile(ctx, p.Rel)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &vault.Error{Kind: vault.ErrNotFound, Path: a.Path, Msg: "File not found: " + a.Path}
		}
		res.Path = p.Rel
	case name != "":
		res.Note = a.NoteName
		rel, others, ok, err := d.Index.Named(ctx, name)
		if err != nil {
			return nil, err
		}
		res.Path, res.SameName = rel, others
		if !ok {
			res.BacklinkCount, page, err = d.Index.LinkersOfName(ctx, name, offset, limit)
			if err != nil {
				return nil, err
			}
			if res.BacklinkCount == 0 {
				res.Notice = "no file is named " + quote(name) + " and no note links to that name" + didYouMean(d.suggest(ctx, name))
				return res, nil
			}
		}
	default:
		return nil, invalid(`give note_name (e.g. "Project Ideas") or path (e.g. "Work/Project Ideas.md")`)
	}
	if res.Path != "" {
		if res.BacklinkCount, page, err = d.Index.Linkers(ctx, res.Path, offset, limit); err != nil {
			return nil, err
		}
	}
	// The structured item names the note twice (file, absolute_path).
	itemCost := tokens.Estimate(filePath(ctx, d, "")) + tokens.Estimate(`{"file":"","absolute_path":"/","links":[],"lines":[]},`)
	s := paginate(a.Paging, res.BacklinkCount, defaultBacklinks, "notes").fit(a.Paging, d.pageTokens(), func(i int) int {
		n := 2*tokens.Estimate(page[i].Source) + itemCost
		for _, l := range page[i].Links {
			n += tokens.Estimate(l) + 3
		}
		return n + 3*len(page[i].Lines)
	})
	for _, ln := range keep(page, s) {
		res.Backlinks = append(res.Backlinks, BacklinkItem{
			File:         ln.Source,
			AbsolutePath: filePath(ctx, d, ln.Source),
			Links:        ln.Links,
			Lines:        ln.Lines,
			Nodes:        ln.Nodes,
		})
	}
	res.PageInfo = s.info()
	if res.Path == "" && res.Notice == "" {
		res.Notice = "no file is named " + quote(name) + "; these notes link to that name"
	}
	return res, nil
}

// BrokenArgs are get_broken_links' arguments.
type BrokenArgs struct {
	Paging
}

// BrokenResult is get_broken_links' answer: the documented shape plus the page.
type BrokenResult struct {
	FilesWithBrokenLinks int          `json:"files_with_broken_links" jsonschema:"Notes with broken links, over all pages"`
	BrokenLinks          []BrokenItem `json:"broken_links"`
	PageInfo
}

// BrokenItem is one note's broken links.
type BrokenItem struct {
	File        string   `json:"file"`
	BrokenLinks []string `json:"broken_links" jsonschema:"Targets as written"`
}

// GetBrokenLinks is get_broken_links.
func GetBrokenLinks(d Deps) server.ServerTool {
	opts := []mcp.ToolOption{
		mcp.WithDescription("Links to notes or attachments that do not exist, by note, sorted by path. " +
			"Links in code, comments and math are not links."),
	}
	opts = append(opts, pagingOptions("notes", defaultBroken)...)
	opts = append(opts, outputSchema[BrokenResult](), annotate("Get broken links", true, false, true))
	tool := mcp.NewTool("get_broken_links", opts...)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a BrokenArgs) (*mcp.CallToolResult, error) {
		res, err := BrokenLinks(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return jsonResult(res)
	})}
}

// BrokenLinks is get_broken_links' work.
func BrokenLinks(ctx context.Context, d Deps, a BrokenArgs) (*BrokenResult, error) {
	broken, err := d.Index.Broken(ctx)
	if err != nil {
		return nil, err
	}
	s := paginate(a.Paging, len(broken), defaultBroken, "notes with broken links")
	page := window(broken, s)
	itemCost := tokens.Estimate(`{"file":"","broken_links":[]},`)
	s = s.fit(a.Paging, d.pageTokens(), func(i int) int {
		n := tokens.Estimate(page[i].Source) + itemCost
		for _, t := range page[i].Targets {
			n += tokens.Estimate(t) + 3
		}
		return n
	})
	res := &BrokenResult{FilesWithBrokenLinks: len(broken), BrokenLinks: make([]BrokenItem, 0, s.End-s.Start), PageInfo: s.info()}
	for _, b := range window(broken, s) {
		res.BrokenLinks = append(res.BrokenLinks, BrokenItem{File: b.Source, BrokenLinks: b.Targets})
	}
	return res, nil
}

// FindLinksArgs are find_links' arguments.
type FindLinksArgs struct {
	Path      string `json:"path"`
	Direction string `json:"direction"`
	Paging
}

// Outlink is one distinct target of a note's links.
type Outlink struct {
	Name string  `json:"name"`
	Path *string `json:"path"`
}

// BacklinkSection is find_links' backlinks, one page.
type BacklinkSection struct {
	Results []string `json:"results"`
	Total   int      `json:"total"`
	PageInfo
}

// OutlinkSection is find_links' outlinks, one page.
type OutlinkSection struct {
	Results []Outlink `json:"results"`
	Total   int       `json:"total"`
	PageInfo
}

// FindLinksResult covers find_links' three shapes: results and total for
// one direction, a backlinks and an outlinks section for both.
type FindLinksResult struct {
	Success   bool             `json:"success"`
	Results   any              `json:"results,omitempty"`
	Total     *int             `json:"total,omitempty"`
	Backlinks *BacklinkSection `json:"backlinks,omitempty"`
	Outlinks  *OutlinkSection  `json:"outlinks,omitempty"`
	// CanvasNodes names, for each canvas among the backlinks, its file
	// nodes showing the file.
	CanvasNodes map[string][]string `json:"canvas_nodes,omitempty"`
	// CanvasTextLinks are links typed in canvas text cards: to the file
	// (backlinks), or in the canvas itself (outlinks). Obsidian does not
	// count them as backlinks.
	CanvasTextLinks []CanvasTextLinkItem `json:"canvas_text_links,omitempty"`
	// CanvasTextLinkCount counts them all, when there are more than
	// this page shows (paged as the backlinks are, by offset and limit).
	CanvasTextLinkCount int `json:"canvas_text_link_count,omitempty"`
	PageInfo
}

// CanvasTextLinkItem is one link typed in a canvas's text card.
type CanvasTextLinkItem struct {
	Canvas string  `json:"canvas"`
	Node   string  `json:"node"`
	Link   string  `json:"link"`
	Path   *string `json:"path"`
}

var findLinksOutputSchema = []byte(`{
  "type": "object",
  "properties": {
    "success": {"type": "boolean"},
    "results": {"type": "array", "description": "backlinks: paths; outlinks: {name, path}"},
    "total": {"type": "integer"},
    "next_offset": {"type": "integer"},
    "notice": {"type": "string"},
    "backlinks": {"type": "object", "properties": {"results": {"type": "array", "items": {"type": "string"}}, "total": {"type": "integer"}, "next_offset": {"type": "integer"}, "notice": {"type": "string"}}},
    "outlinks": {"type": "object", "properties": {"results": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "path": {"type": ["string", "null"]}}}}, "total": {"type": "integer"}, "next_offset": {"type": "integer"}, "notice": {"type": "string"}}},
    "canvas_nodes": {"type": "object", "description": "canvas -> file node ids"},
    "canvas_text_link_count": {"type": "integer"},
    "canvas_text_links": {"type": "array", "items": {"type": "object", "properties": {"canvas": {"type": "string"}, "node": {"type": "string"}, "link": {"type": "string"}, "path": {"type": ["string", "null"]}}}}
  },
  "required": ["success"]
}`)

// FindLinks is find_links: backlinks, outlinks or both of one note, each
// direction paged on its own.
func FindLinks(d Deps) server.ServerTool {
	opts := []mcp.ToolOption{
		mcp.WithDescription("Links of one note: \"backlinks\" (notes linking to it), \"outlinks\" (what it links to; path null when broken) " +
			"or \"both\" (each section paged on its own). Canvas file cards are links; canvas text-card links are apart."),
		mcp.WithString("path", mcp.Required(), mcp.Description("Note path")),
		mcp.WithString("direction", mcp.Enum("backlinks", "outlinks", "both"), mcp.DefaultString("both"), mcp.Description("Which links")),
	}
	opts = append(opts, pagingOptions("results per direction", defaultPageSize)...)
	opts = append(opts, mcp.WithRawOutputSchema(findLinksOutputSchema), annotate("Find links", true, false, true))
	tool := mcp.NewTool("find_links", opts...)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a FindLinksArgs) (*mcp.CallToolResult, error) {
		res, err := FindLinksOf(ctx, d, a)
		if err != nil {
			return nil, &toolError{msg: err.Error(), fields: map[string]any{"success": false}, err: err}
		}
		return jsonResult(res)
	})}
}

// FindLinksOf is find_links' work.
func FindLinksOf(ctx context.Context, d Deps, a FindLinksArgs) (*FindLinksResult, error) {
	p, err := d.Vault.ResolveFile(ctx, a.Path)
	if err != nil {
		return nil, err
	}
	ok, err := d.Index.HasFile(ctx, p.Rel)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &vault.Error{Kind: vault.ErrNotFound, Path: a.Path, Msg: "File not found: " + a.Path}
	}
	dir := a.Direction
	if dir == "" {
		dir = "both"
	}
	budget := d.pageTokens()
	if dir == "both" {
		budget /= 2
	}
	var back *BacklinkSection
	var out *OutlinkSection
	var canvasNodes map[string][]string
	var textLinks []CanvasTextLinkItem
	if dir == "backlinks" || dir == "both" {
		offset, limit := a.bounds(defaultPageSize)
		total, page, err := d.Index.Linkers(ctx, p.Rel, offset, limit)
		if err != nil {
			return nil, err
		}
		s := paginate(a.Paging, total, defaultPageSize, "backlinks").fit(a.Paging, budget, func(i int) int { return tokens.Estimate(page[i].Source) + 3 })
		back = &BacklinkSection{Results: make([]string, 0, s.End-s.Start), Total: total, PageInfo: s.info()}
		for _, ln := range keep(page, s) {
			back.Results = append(back.Results, ln.Source)
			if len(ln.Nodes) > 0 {
				if canvasNodes == nil {
					canvasNodes = map[string][]string{}
				}
				canvasNodes[ln.Source] = ln.Nodes
			}
		}
		to, err := d.Index.CanvasTextLinksTo(ctx, p.Rel)
		if err != nil {
			return nil, err
		}
		textLinks = append(textLinks, canvasTextItems(to)...)
	}
	if dir == "outlinks" || dir == "both" {
		ol, _, err := d.Index.Outlinks(ctx, p.Rel)
		if err != nil {
			return nil, err
		}
		s := paginate(a.Paging, len(ol), defaultPageSize, "outlinks")
		page := window(ol, s)
		itemCost := tokens.Estimate(`{"name":"","path":""},`)
		s = s.fit(a.Paging, budget, func(i int) int { return tokens.Estimate(page[i].Name) + tokens.Estimate(page[i].Path) + itemCost })
		out = &OutlinkSection{Results: make([]Outlink, 0, s.End-s.Start), Total: len(ol), PageInfo: s.info()}
		from, _, err := d.Index.CanvasTextLinksFrom(ctx, p.Rel)
		if err != nil {
			return nil, err
		}
		textLinks = append(textLinks, canvasTextItems(from)...)
		for _, o := range window(ol, s) {
			item := Outlink{Name: o.Name}
			if o.Path != "" {
				item.Path = &o.Path
			}
			out.Results = append(out.Results, item)
		}
	}
	var res *FindLinksResult
	switch dir {
	case "backlinks":
		res = &FindLinksResult{Success: true, Results: back.Results, Total: &back.Total, PageInfo: back.PageInfo}
	case "outlinks":
		res = &FindLinksResult{Success: true, Results: out.Results, Total: &out.Total, PageInfo: out.PageInfo}
	default:
		res = &FindLinksResult{Success: true, Backlinks: back, Outlinks: out}
	}
	res.CanvasNodes = canvasNodes
	if len(textLinks) > 0 {
		s := paginate(a.Paging, len(textLinks), defaultPageSize, "canvas text links").fit(a.Paging, budget/2, func(i int) int {
			l := textLinks[s0(a.Paging, len(textLinks))+i]
			return tokens.Estimate(l.Canvas) + tokens.Estimate(l.Link) + 2*tokens.Estimate(l.Node) + 20
		})
		res.CanvasTextLinks = window(textLinks, s)
		if s.End-s.Start < len(textLinks) {
			res.CanvasTextLinkCount = len(textLinks)
		}
	}
	return res, nil
}

// invalid is a bad-argument error.
func invalid(msg string) error {
	return &vault.Error{Kind: vault.ErrInvalidInput, Msg: msg}
}

// quote wraps a client's text in double quotes for a message.
func quote(s string) string {
	return `"` + s + `"`
}
