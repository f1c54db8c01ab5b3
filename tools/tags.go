package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/vault"
)

type tagsArgs struct {
	Path           string `json:"path"`
	IncludeParents bool   `json:"include_parents"`
	Limit          *int   `json:"limit"`
	Offset         int    `json:"offset"`
}

type tagsResult struct {
	Tags  []tagItem `json:"tags"`
	Total int       `json:"total" jsonschema:"Number of distinct tags over all pages"`
}

type tagItem struct {
	Tag   string `json:"tag" jsonschema:"The tag without #, in its most common spelling"`
	Count int    `json:"count" jsonschema:"Occurrences"`
	Notes int    `json:"notes" jsonschema:"Notes carrying the tag"`
}

// GetTags is get_tags (seed 003).
func GetTags(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_tags",
		mcp.WithDescription("List the tags of the whole vault, or of one file, most frequent first: inline #tags and frontmatter tags (list or string, "+
			"with or without #). Counting ignores case and reports the most common spelling; tags inside code, comments, math, headings' # and URLs are not tags. "+
			"With include_parents, a nested tag also counts toward each parent: #area/work adds to area/work and to area."),
		mcp.WithString("path", mcp.Description("A note's path relative to the vault root; omit for the whole vault")),
		mcp.WithBoolean("include_parents", mcp.DefaultBool(false), mcp.Description("Count nested tags toward their parents too")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Description("At most this many tags (default 200)"), mcp.DefaultNumber(200)),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description("Tags to skip first")),
		mcp.WithOutputSchema[tagsResult](),
		annotate("Get tags", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a tagsArgs) (*mcp.CallToolResult, error) {
		rel := ""
		if a.Path != "" {
			p, err := d.Vault.ResolveFile(ctx, a.Path)
			if err != nil {
				return nil, err
			}
			ok, err := d.Index.HasNote(ctx, p.Rel)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, &vault.Error{Kind: vault.ErrNotFound, Path: a.Path, Msg: "Note not found: " + a.Path + " (get_tags reads Markdown notes)"}
			}
			rel = p.Rel
		}
		tags, err := d.Index.Tags(ctx, rel, a.IncludeParents)
		if err != nil {
			return nil, err
		}
		limit := 200
		if a.Limit != nil {
			limit = *a.Limit
		}
		res := tagsResult{Tags: []tagItem{}, Total: len(tags)}
		var b strings.Builder
		for _, t := range page(tags, a.Offset, &limit) {
			res.Tags = append(res.Tags, tagItem{Tag: t.Tag, Count: t.Count, Notes: t.Notes})
			fmt.Fprintf(&b, "#%s: %d (in %d notes)\n", t.Tag, t.Count, t.Notes)
		}
		switch {
		case len(tags) == 0:
			b.WriteString("No tags found.")
		case a.Offset+len(res.Tags) < len(tags):
			fmt.Fprintf(&b, "... %d more tags; use offset=%d to see them", len(tags)-a.Offset-len(res.Tags), a.Offset+len(res.Tags))
		}
		return mcp.NewToolResultStructured(res, strings.TrimSuffix(b.String(), "\n")), nil
	})}
}
