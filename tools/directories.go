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

const (
	// defaultListDepth is how deep a recursive listing goes when the
	// client gives no max_depth.
	defaultListDepth = 10
	// defaultListEntries is list_directory's page size.
	defaultListEntries = 1000
)

// ListArgs are list_directory's arguments.
type ListArgs struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive"`
	MaxDepth  *int   `json:"max_depth"`
	Paging
}

// ListResult is one page of a folder's listing.
type ListResult struct {
	Entries []vault.Entry // the page, in listing order
	Total   int           // entries over all pages
	PageInfo
	page span
}

// ListDirectory is list_directory: a folder's content with [file] and
// [directory] markers.
func ListDirectory(d Deps) server.ServerTool {
	opts := []mcp.ToolOption{
		mcp.WithDescription("List a folder: one [directory] or [file] path per line, sorted by name. " +
			"Hidden folders and dotfiles (.obsidian, .trash) are left out."),
		mcp.WithString("path", mcp.Required(), mcp.Description("Folder path relative to the vault root (\"\" for the root)")),
		mcp.WithBoolean("recursive", mcp.Description("Also list the content of sub-folders"), mcp.DefaultBool(false)),
		mcp.WithInteger("max_depth", mcp.Description("With recursive: how many levels deep (1 = direct children only)"),
			mcp.Min(1), mcp.Max(50), mcp.DefaultNumber(defaultListDepth)),
	}
	opts = append(opts, pagingOptions("entries", defaultListEntries)...)
	opts = append(opts, annotate("List directory", true, false, true))
	tool := mcp.NewTool("list_directory", opts...)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a ListArgs) (*mcp.CallToolResult, error) {
		res, err := ListDir(ctx, d, a)
		if err != nil {
			return nil, err
		}
		if res.page.Total == 0 {
			return textResult(fmt.Sprintf("%s is empty", displayFolder(a.Path))), nil
		}
		var b strings.Builder
		for i, e := range res.Entries {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(entryLine(e))
		}
		return textResult(res.page.withNotice(b.String())), nil
	})}
}

// ListDir is list_directory's work.
func ListDir(ctx context.Context, d Deps, a ListArgs) (*ListResult, error) {
	depth := 1
	if a.Recursive {
		depth = defaultListDepth
		if a.MaxDepth != nil {
			depth = *a.MaxDepth
		}
	}
	entries, err := d.Vault.List(ctx, a.Path, depth)
	if err != nil {
		return nil, err
	}
	s := paginate(a.Paging, len(entries), defaultListEntries, "entries")
	page := window(entries, s)
	s = s.fit(a.Paging, d.pageTokens(), func(i int) int { return tokens.Estimate(entryLine(page[i])) + 1 })
	return &ListResult{Entries: window(entries, s), Total: len(entries), PageInfo: s.info(), page: s}, nil
}

func entryLine(e vault.Entry) string {
	if e.IsDir {
		return "[directory] " + e.Rel + "/"
	}
	return "[file] " + e.Rel
}

// CreateDirectory is create_directory.
func CreateDirectory(d Deps) server.ServerTool {
	tool := mcp.NewTool("create_directory",
		mcp.WithDescription("Create a folder, including missing parent folders. An existing folder is left as it is. "+
			"Git does not record empty folders: the folder reaches other devices once a file is written into it. "+newNamesRule),
		mcp.WithString("path", mcp.Required(), mcp.Description("Folder path relative to the vault root")),
		annotate("Create directory", false, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a pathArgs) (*mcp.CallToolResult, error) {
		p, created, err := d.Vault.CreateDirectory(ctx, a.Path)
		if err != nil {
			return nil, err
		}
		if !created {
			name := p.Rel
			if p.IsRoot() {
				name = "/ (the vault root)"
			}
			return textResult(fmt.Sprintf("Directory already exists: %s", name)), nil
		}
		return textResult(fmt.Sprintf("Created directory %s", p.Rel)), nil
	})}
}

func displayFolder(given string) string {
	if given == "" || given == "/" || given == "." {
		return "The vault root"
	}
	return given
}
