package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// maxTopFolders caps the folders get_vault_info's text lists (the
// structured form has them all).
const maxTopFolders = 100

type vaultInfoResult struct {
	TotalFiles      int          `json:"total_files" jsonschema:"Files in the vault, hidden folders (.git, .claude) and Obsidian's .obsidian and .trash left out"`
	MarkdownFiles   int          `json:"markdown_files" jsonschema:"Files ending in .md"`
	Folders         int          `json:"folders" jsonschema:"Folders below the vault root"`
	TopLevelFolders []folderInfo `json:"top_level_folders" jsonschema:"Folders directly in the vault root, by name"`
	RootFiles       int          `json:"root_files" jsonschema:"Files directly in the vault root"`
	LastSync        string       `json:"last_sync,omitempty" jsonschema:"When the last pull from the remote succeeded (RFC 3339); absent if never since the server started"`
	Sync            *syncInfo    `json:"sync,omitempty" jsonschema:"The git repository and its sync with the remote; absent without git"`
}

type folderInfo struct {
	Name  string `json:"name"`
	Files int    `json:"files" jsonschema:"Files inside, at any depth"`
}

type syncInfo struct {
	Branch           string    `json:"branch"`
	Head             string    `json:"head,omitempty" jsonschema:"Short hash of the last commit"`
	RemoteConfigured bool      `json:"remote_configured"`
	Remote           string    `json:"remote,omitempty"`
	RemoteURL        string    `json:"remote_url,omitempty" jsonschema:"The remote's URL, any password hidden"`
	PushEnabled      bool      `json:"push_enabled"`
	LastPush         string    `json:"last_push,omitempty" jsonschema:"When the last push succeeded (RFC 3339)"`
	Ahead            int       `json:"ahead" jsonschema:"Local commits not pushed yet"`
	Behind           int       `json:"behind" jsonschema:"Remote commits not pulled yet"`
	LastPushError    string    `json:"last_push_error,omitempty"`
	LastPullError    string    `json:"last_pull_error,omitempty"`
	PendingConflicts []string  `json:"pending_conflicts" jsonschema:"Conflict copies sync made that are still in the vault"`
	NextPushRetry    string    `json:"next_push_retry,omitempty" jsonschema:"When a failed push is tried again (RFC 3339)"`
	HeldDeletion     *heldInfo `json:"held_deletion,omitempty" jsonschema:"A mass deletion held back: not committed or pushed until confirmed (confirm_mass_deletion) or the files come back"`
}

type heldInfo struct {
	Files    int      `json:"files" jsonschema:"Tracked files missing from the vault"`
	Tracked  int      `json:"tracked" jsonschema:"Tracked files in all"`
	Examples []string `json:"examples" jsonschema:"A few of the missing files"`
	Since    string   `json:"since" jsonschema:"When it was first held back (RFC 3339)"`
}

// GetVaultInfo is get_vault_info (seed 003): counts and sync state.
func GetVaultInfo(d Deps) server.ServerTool {
	eng := d.search()
	tool := mcp.NewTool("get_vault_info",
		mcp.WithDescription("Vault statistics: total files, Markdown notes, folders, the top-level folders with their file counts, and "+
			"the git sync state (last sync with the remote, commits waiting to be pushed or pulled, push and pull errors, "+
			"conflict copies waiting to be merged by hand). Hidden folders (.git, .claude) and Obsidian's .obsidian and .trash are never counted."),
		mcp.WithOutputSchema[vaultInfoResult](),
		annotate("Get vault info", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, _ struct{}) (*mcp.CallToolResult, error) {
		st, err := eng.Stats(ctx)
		if err != nil {
			return nil, fmt.Errorf("count the vault: %w", err)
		}
		res := vaultInfoResult{
			TotalFiles: st.Files, MarkdownFiles: st.Markdown, Folders: st.Folders, RootFiles: st.RootFiles,
			TopLevelFolders: make([]folderInfo, 0, len(st.TopFolders)),
		}
		for _, f := range st.TopFolders {
			res.TopLevelFolders = append(res.TopLevelFolders, folderInfo{Name: f.Name, Files: f.Files})
		}
		if d.SyncStatus != nil {
			s := d.SyncStatus()
			res.LastSync = rfc3339(s.LastSync)
			res.Sync = &syncInfo{
				Branch: s.Branch, Head: s.Head, RemoteConfigured: s.RemoteConfigured, Remote: s.Remote, RemoteURL: s.RemoteURL,
				PushEnabled: s.PushEnabled, LastPush: rfc3339(s.LastPush), Ahead: s.Ahead, Behind: s.Behind,
				LastPushError: s.LastPushError, LastPullError: s.LastPullError, PendingConflicts: s.PendingConflicts,
			}
			res.Sync.NextPushRetry = rfc3339(s.NextPushRetry)
			if h := s.HeldDeletion; h != nil {
				res.Sync.HeldDeletion = &heldInfo{Files: h.Files, Tracked: h.Tracked, Examples: h.Examples, Since: rfc3339(h.Since)}
			}
			if res.Sync.PendingConflicts == nil {
				res.Sync.PendingConflicts = []string{}
			}
		}
		return mcp.NewToolResultStructured(res, vaultInfoText(res)), nil
	})}
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// vaultInfoText is get_vault_info's readable form.
func vaultInfoText(r vaultInfoResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Total files: %s\nMarkdown files: %s\nFolders: %s\n", count(r.TotalFiles), count(r.MarkdownFiles), count(r.Folders))
	if len(r.TopLevelFolders) == 0 {
		b.WriteString("Top-level folders: none\n")
	} else {
		fmt.Fprintf(&b, "Top-level folders (%d):\n", len(r.TopLevelFolders))
		for i, f := range r.TopLevelFolders {
			if i == maxTopFolders {
				fmt.Fprintf(&b, "  ... %d more\n", len(r.TopLevelFolders)-i)
				break
			}
			fmt.Fprintf(&b, "  %s/ (%s)\n", f.Name, plural(f.Files, "file"))
		}
	}
	fmt.Fprintf(&b, "Files in the vault root: %s\n", count(r.RootFiles))
	s := r.Sync
	switch {
	case s == nil:
		b.WriteString("Last sync: unknown (git sync is not running)")
		return b.String()
	case !s.RemoteConfigured:
		b.WriteString("Last sync: never (no remote configured: changes are committed locally only)\n")
	case r.LastSync == "":
		b.WriteString("Last sync: not yet since the server started\n")
	default:
		fmt.Fprintf(&b, "Last sync: %s\n", r.LastSync)
	}
	head := s.Head
	if head == "" {
		head = "no commits yet"
	}
	fmt.Fprintf(&b, "Git: branch %s at %s", s.Branch, head)
	if s.RemoteConfigured {
		fmt.Fprintf(&b, "; remote %s (%s): %s to push, %s to pull", s.Remote, s.RemoteURL, plural(s.Ahead, "commit"), plural(s.Behind, "commit"))
		if !s.PushEnabled {
			b.WriteString(" (pushing is turned off)")
		}
	}
	b.WriteByte('\n')
	if s.LastPush != "" {
		fmt.Fprintf(&b, "Last push: %s\n", s.LastPush)
	}
	if s.LastPushError != "" {
		fmt.Fprintf(&b, "Last push failed: %s\n", s.LastPushError)
	}
	if s.LastPullError != "" {
		fmt.Fprintf(&b, "Last pull failed: %s\n", s.LastPullError)
	}
	if s.NextPushRetry != "" {
		fmt.Fprintf(&b, "Next push attempt: %s\n", s.NextPushRetry)
	}
	if h := s.HeldDeletion; h != nil {
		fmt.Fprintf(&b, "Mass deletion held back (not committed, not pushed): %s of %s tracked files are missing, e.g. %s. "+
			"Restore them, or if they were deleted on purpose confirm with confirm_mass_deletion (files: %d).\n",
			count(h.Files), count(h.Tracked), strings.Join(h.Examples, ", "), h.Files)
	}
	if len(s.PendingConflicts) > 0 {
		fmt.Fprintf(&b, "Conflict copies to merge by hand, then delete (%d): %s\n", len(s.PendingConflicts), strings.Join(s.PendingConflicts, ", "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}
