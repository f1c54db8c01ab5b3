// Package tools defines vaultmcp's MCP tools. Each tool is a constructor
// returning a static definition (name, description, input schema, all four
// annotations) and a handler closed over Deps. One file per family of
// tools; a tool's code is found from its name.
package tools

import (
	"log/slog"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
	"vaultmcp/vault"
	"vaultmcp/vault/changes"
	"vaultmcp/vault/guidance"
	"vaultmcp/vault/index"
	"vaultmcp/vault/search"
)

// DefaultMaxReadBytes is how much of a file read_file returns when Deps
// does not say: enough for any real note, small enough for a model's
// context.
const DefaultMaxReadBytes = 256 << 10

// Deps is what the tools work on. Only Vault is required.
type Deps struct {
	Vault *vault.Vault
	// Index answers link and tag queries; nil leaves those tools out and
	// renames do not update links.
	Index *index.Index
	// Git is the vault's history; nil leaves the history tools out.
	Git *gitsync.Repo
	// Search runs search_files, grep, find_files and get_vault_info's
	// counts; nil means All builds one, over Index's texts when set.
	Search *search.Engine
	// SyncStatus reports git sync for get_vault_info; nil means Git's
	// Status when Git is set, else no sync section.
	SyncStatus func() gitsync.SyncStatus
	// MaxReadBytes caps read_file; 0 means DefaultMaxReadBytes.
	MaxReadBytes int64
	// Logger receives unexpected failures; nil means slog.Default().
	Logger *slog.Logger
	// Changes announces every change to the vault's files (our writes,
	// pulls, outside edits); caches and resource subscriptions listen to
	// it. nil means nothing is cached.
	Changes *changes.Feed
	// Guidance reads CLAUDE.md files and the vault's own guides; nil
	// means All builds one over Vault, cached when Changes is set.
	Guidance *guidance.Files
}

func (d Deps) maxRead() int64 {
	if d.MaxReadBytes > 0 {
		return d.MaxReadBytes
	}
	return DefaultMaxReadBytes
}

func (d Deps) logger() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.Default()
}

// All returns every tool the dependencies support. (tools/list sorts
// them by name.)
func All(d Deps) []server.ServerTool {
	if d.Search == nil {
		d.Search = newSearch(d)
	}
	if d.SyncStatus == nil && d.Git != nil {
		d.SyncStatus = d.Git.Status
	}
	if d.Guidance == nil {
		d.Guidance = guidance.New(d.Vault, guidance.Options{MaxBytes: d.maxRead(), Changes: d.Changes})
	}
	all := []server.ServerTool{
		ReadFile(d),
		WriteFile(d),
		EditFile(d),
		DeleteFile(d),
		RenameFile(d),
		ListDirectory(d),
		CreateDirectory(d),
		SearchFiles(d),
		Grep(d),
		FindFiles(d),
		GetVaultInfo(d),
		GetClaudeContext(d),
		GetObsidianGuide(d),
	}
	if d.Index != nil {
		all = append(all,
			GetBacklinks(d),
			GetBrokenLinks(d),
			FindLinks(d),
			GetTags(d),
		)
	}
	if d.Git != nil {
		all = append(all, GetRecentChanges(d))
	}
	return all
}
