package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
	"vaultmcp/vault/access"
)

// maxTopFolders caps the folders get_vault_info's text lists (the
// structured form has them all).
const maxTopFolders = 100

type vaultInfoResult struct {
	TotalFiles      int          `json:"total_files"`
	MarkdownFiles   int          `json:"markdown_files"`
	Folders         int          `json:"folders"`
	TopLevelFolders []folderInfo `json:"top_level_folders"`
	RootFiles       int          `json:"root_files" jsonschema:"Files directly in the vault root"`
	LastSync        string       `json:"last_sync,omitempty" jsonschema:"Last successful pull (RFC 3339)"`
	Sync            *syncInfo    `json:"sync,omitempty" jsonschema:"Git and its sync with the remote; absent without git"`
}

type folderInfo struct {
	Name  string `json:"name"`
	Files int    `json:"files" jsonschema:"Files inside, at any depth"`
}

type syncInfo struct {
	Branch           string    `json:"branch"`
	Head             string    `json:"head,omitempty"`
	RemoteConfigured bool      `json:"remote_configured"`
	Remote           string    `json:"remote,omitempty"`
	RemoteURL        string    `json:"remote_url,omitempty"`
	PushEnabled      bool      `json:"push_enabled"`
	LastPush         string    `json:"last_push,omitempty"`
	Ahead            int       `json:"ahead" jsonschema:"Local commits not pushed yet"`
	Behind           int       `json:"behind" jsonschema:"Remote commits not pulled yet"`
	LastPushError    string    `json:"last_push_error,omitempty"`
	LastPullError    string    `json:"last_pull_error,omitempty"`
	PendingConflicts []string  `json:"pending_conflicts" jsonschema:"Conflict copies still to merge by hand"`
	NextPushRetry    string    `json:"next_push_retry,omitempty"`
	HeldDeletion     *heldInfo `json:"held_deletion,omitempty" jsonschema:"A mass deletion held back until confirm_mass_deletion or the files return"`
}

type heldInfo struct {
	Files    int      `json:"files"`
	Tracked  int      `json:"tracked"`
	Examples []string `json:"examples"`
	Since    string   `json:"since"`
}

// GetVaultInfo is get_vault_info: counts and sync state.
func GetVaultInfo(d Deps) server.ServerTool {
	eng := d.search()
	tool := mcp.NewTool("get_vault_info",
		mcp.WithDescription("Vault statistics: files, notes, folders, top-level folders with their file counts, and the git sync state "+
			"(last sync, commits to push or pull, errors, conflict copies to merge by hand). Hidden folders and dotfiles are not counted."),
		outputSchema[vaultInfoResult](),
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
			s := syncStatusFor(ctx, d.SyncStatus())
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
		return structuredResult(res, vaultInfoText(res))
	})}
}

// syncStatusFor is the sync state as the request's access scope lets the
// client see it: conflict copies in folders it hides are left out, and
// under a scope that hides anything the text of a push or pull failure,
// which may name any file (a replayed commit's, a conflict's), is
// withheld; that a push or pull failed is still said.
func syncStatusFor(ctx context.Context, s gitsync.SyncStatus) gitsync.SyncStatus {
	scope := access.From(ctx)
	if !scope.Hides() {
		return s
	}
	var conflicts []string
	for _, p := range s.PendingConflicts {
		if scope.Visible(p) {
			conflicts = append(conflicts, p)
		}
	}
	s.PendingConflicts = conflicts
	for _, e := range []*string{&s.LastPushError, &s.LastPullError} {
		if *e != "" {
			*e = withheldSyncError
		}
	}
	return s
}

// withheldSyncError stands in for a sync failure's text under a scope
// that hides folders.
const withheldSyncError = "(details withheld: the message may name files outside the folders this session may access; the server's log has them)"

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
