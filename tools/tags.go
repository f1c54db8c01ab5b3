package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/tokens"
	"vaultmcp/vault"
)

// defaultTags is get_tags' page size.
const defaultTags = 200

// TagsArgs are get_tags' arguments.
type TagsArgs struct {
	Path           string `json:"path"`
	IncludeParents bool   `json:"include_parents"`
	Paging
}

// TagsResult is get_tags' structured answer.
type TagsResult struct {
	Tags  []TagItem `json:"tags"`
	Total int       `json:"total" jsonschema:"Distinct tags over all pages"`
	PageInfo
}

// TagItem is one tag's frequency.
type TagItem struct {
	Tag   string `json:"tag" jsonschema:"Without #, in its most common spelling"`
	Count int    `json:"count"`
	Notes int    `json:"notes"`
}

// GetTags is get_tags: tag frequencies of the vault or one note.
func GetTags(d Deps) server.ServerTool {
	opts := []mcp.ToolOption{
		mcp.WithDescription("Tags (inline and frontmatter) of the vault or one note, most frequent first, counted ignoring case. " +
			"Tags in code, comments and URLs are not tags."),
		mcp.WithString("path", mcp.Description("A note; omit for the whole vault")),
		mcp.WithBoolean("include_parents", mcp.DefaultBool(false), mcp.Description("Count #a/b toward a too")),
	}
	opts = append(opts, pagingOptions("tags", defaultTags)...)
	opts = append(opts, outputSchema[TagsResult](), annotate("Get tags", true, false, true))
	tool := mcp.NewTool("get_tags", opts...)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a TagsArgs) (*mcp.CallToolResult, error) {
		res, err := Tags(ctx, d, a)
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		for _, t := range res.Tags {
			fmt.Fprintf(&b, "#%s: %d (in %s)\n", t.Tag, t.Count, plural(t.Notes, "note"))
		}
		if res.Total == 0 {
			b.WriteString("No tags found.")
		}
		if res.Notice != "" {
			fmt.Fprintf(&b, "[%s]", res.Notice)
		}
		return structuredResult(res, strings.TrimSuffix(b.String(), "\n"))
	})}
}

// Tags is get_tags' work.
func Tags(ctx context.Context, d Deps, a TagsArgs) (*TagsResult, error) {
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
	s := paginate(a.Paging, len(tags), defaultTags, "tags")
	page := window(tags, s)
	itemCost := tokens.Estimate(`{"tag":"","count":1234,"notes":1234},`)
	s = s.fit(a.Paging, d.pageTokens(), func(i int) int { return tokens.Estimate(page[i].Tag) + itemCost })
	res := &TagsResult{Tags: make([]TagItem, 0, s.End-s.Start), Total: len(tags), PageInfo: s.info()}
	for _, t := range window(tags, s) {
		res.Tags = append(res.Tags, TagItem{Tag: t.Tag, Count: t.Count, Notes: t.Notes})
	}
	return res, nil
}
