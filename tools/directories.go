package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const (
	// defaultListDepth is how deep a recursive listing goes when the
	// client gives no max_depth.
	defaultListDepth = 10
	// maxListEntries caps a listing so a huge vault cannot flood the
	// client's context.
	maxListEntries = 2000
)

type listArgs struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive"`
	MaxDepth  *int   `json:"max_depth"`
}

// ListDirectory is list_directory: a folder's content with [file] and
// [directory] markers.
func ListDirectory(d Deps) server.ServerTool {
	tool := mcp.NewTool("list_directory",
		mcp.WithDescription("List the files and folders in a vault folder, one per line, marked [directory] or [file], sorted by name. "+
			"Paths are shown relative to the vault root, ready to pass to other tools. Use \"\" or \"/\" for the vault root. "+
			"Hidden folders (.git, .claude) and Obsidian's .obsidian and .trash are left out."),
		mcp.WithString("path", mcp.Required(), mcp.Description("Folder path relative to the vault root (\"\" for the root)")),
		mcp.WithBoolean("recursive", mcp.Description("Also list the content of sub-folders"), mcp.DefaultBool(false)),
		mcp.WithInteger("max_depth", mcp.Description("With recursive: how many levels deep to go (1 = direct children only)"),
			mcp.Min(1), mcp.Max(50), mcp.DefaultNumber(defaultListDepth)),
		annotate("List directory", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a listArgs) (*mcp.CallToolResult, error) {
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
		if len(entries) == 0 {
			return textResult(fmt.Sprintf("%s is empty", displayFolder(a.Path))), nil
		}
		var b strings.Builder
		for i, e := range entries {
			if i == maxListEntries {
				fmt.Fprintf(&b, "... %d more entries not shown; list a sub-folder or use a smaller max_depth\n", len(entries)-i)
				break
			}
			if e.IsDir {
				fmt.Fprintf(&b, "[directory] %s/\n", e.Rel)
			} else {
				fmt.Fprintf(&b, "[file] %s\n", e.Rel)
			}
		}
		return textResult(strings.TrimSuffix(b.String(), "\n")), nil
	})}
}

// CreateDirectory is create_directory.
func CreateDirectory(d Deps) server.ServerTool {
	tool := mcp.NewTool("create_directory",
		mcp.WithDescription("Create a folder, including missing parent folders. An existing folder is left as it is. "+
			"Git does not record empty folders: the folder reaches other devices once a file is written into it."),
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
