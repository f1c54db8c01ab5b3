package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
)

type recentArgs struct {
	Count *int   `json:"count"`
	Path  string `json:"path"`
}

// GetRecentChanges is get_recent_changes (seed 003): recent commits with
// their per-file diffs, as numbered text.
func GetRecentChanges(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_recent_changes",
		mcp.WithDescription("Show the vault's recent changes from its git history: each commit's date and message and, per file, "+
			"[added]/[modified]/[deleted]/[renamed] with the removed (-) and added (+) lines, at most 80 diff lines per file. "+
			"Changes made by people (Obsidian, other devices) are included. Give path to see only the commits that touched one note or folder."),
		mcp.WithInteger("count", mcp.Min(1), mcp.Max(20), mcp.DefaultNumber(gitsync.DefaultRecent), mcp.Description("Number of recent changes (1–20)")),
		mcp.WithString("path", mcp.Description("Only changes to this file or folder, relative to the vault root")),
		annotate("Get recent changes", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a recentArgs) (*mcp.CallToolResult, error) {
		n := gitsync.DefaultRecent
		if a.Count != nil {
			n = *a.Count
		}
		rel := ""
		if a.Path != "" {
			p, err := d.Vault.ResolveFor(ctx, a.Path)
			if err != nil {
				return nil, err
			}
			rel = p.Rel
		}
		commits, err := d.Git.Recent(ctx, n, rel)
		if err != nil {
			return nil, fmt.Errorf("read history: %w", err)
		}
		if len(commits) == 0 {
			if a.Path != "" {
				return textResult("No changes to " + a.Path + " in the history."), nil
			}
			return textResult("No changes in the history yet."), nil
		}
		return textResult(formatCommits(commits)), nil
	})}
}

// formatCommits renders commits in seed 003's numbered format.
func formatCommits(commits []gitsync.Commit) string {
	var b strings.Builder
	for i, c := range commits {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%d. %s\n", i+1, c.Time.Format("2006-01-02 15:04:05"))
		msg := strings.Split(strings.TrimSpace(c.Message), "\n")
		for _, line := range msg {
			fmt.Fprintf(&b, "   %s\n", line)
		}
		if c.Merge {
			b.WriteString("   (merge commit)\n")
		}
		for _, f := range c.Files {
			switch f.Kind {
			case gitsync.Renamed:
				fmt.Fprintf(&b, "   [%s] %s -> %s\n", f.Kind, f.OldPath, f.Path)
			default:
				fmt.Fprintf(&b, "   [%s] %s\n", f.Kind, f.Path)
			}
			if f.Binary {
				b.WriteString("  (binary file, no line diff)\n")
				continue
			}
			for _, line := range f.Lines {
				fmt.Fprintf(&b, "  %s\n", line)
			}
			if f.Truncated > 0 {
				fmt.Fprintf(&b, "  [... %d more diff lines not shown ...]\n", f.Truncated)
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
