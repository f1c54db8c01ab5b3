// Package tools defines vaultmcp's MCP tools. Each tool is a constructor
// returning a static definition (name, description, input schema, all four
// annotations) and a handler closed over Deps. One file per family of
// tools; a tool's code is found from its name.
package tools

import (
	"log/slog"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
	"vaultmcp/internal/idempotency"
	"vaultmcp/internal/lastread"
	"vaultmcp/vault"
	"vaultmcp/vault/bases/indexsource"
	"vaultmcp/vault/changes"
	"vaultmcp/vault/guidance"
	"vaultmcp/vault/index"
	"vaultmcp/vault/query"
	"vaultmcp/vault/rank"
	"vaultmcp/vault/search"
)

// DefaultMaxReadBytes is how much of a file one read_file call returns
// when Deps does not say: a whole note of any usual size. A page also
// stops at DefaultPageTokens (64 KB of Greek prose is about 40k tokens);
// offset and limit reach the rest of a longer file.
const DefaultMaxReadBytes = 64 << 10

// DefaultMaxResultBytes is the largest answer of any tool when Deps does
// not say. Paging keeps default answers far below it; it is the last
// guard, sized so that a client asking for 10,000 backlinks on purpose
// still gets them.
const DefaultMaxResultBytes = 4 << 20

// DefaultPageTokens is what a list, or a page of a file, aims to stay
// under when the client gives no limit, in tokens as package
// internal/tokens estimates them (an estimate that errs high). Claude
// Code cuts a tool's answer at 25,000 tokens; the rest is room for the
// answer's other fields and its notice. Counted in bytes, a page of paths
// or of Greek prose came to 30,000–43,000 tokens.
const DefaultPageTokens = 20_000

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
	// Ranked answers search_notes; nil means All builds one over Index
	// (started by the first search).
	Ranked *rank.Searcher
	// Queries answers query_notes; nil means All builds one over Index.
	Queries *query.Table
	// Bases gives query_base the index's files; nil means All builds one
	// over Index.
	Bases *indexsource.Source
	// SyncStatus reports git sync for get_vault_info; nil means Git's
	// Status when Git is set, else no sync section.
	SyncStatus func() gitsync.SyncStatus
	// ServerVersion is the version get_statistics reports; mcpserver.New
	// fills it in when empty.
	ServerVersion string
	// MaxReadBytes caps one read_file answer; 0 means DefaultMaxReadBytes.
	MaxReadBytes int64
	// MaxResultBytes caps every tool's answer (see ResultLimit); 0 means
	// DefaultMaxResultBytes.
	MaxResultBytes int
	// Logger receives unexpected failures; nil means slog.Default().
	Logger *slog.Logger
	// Changes announces every change to the vault's files (our writes,
	// pulls, outside edits); caches and resource subscriptions listen to
	// it. nil means nothing is cached.
	Changes *changes.Feed
	// Guidance reads CLAUDE.md files and the vault's own guides; nil
	// means All builds one over Vault, cached when Changes is set.
	Guidance *guidance.Files
	// Reads remembers the version each credential last read of each
	// file, so an unconditional write can say the file changed since;
	// nil means All makes one of lastread.DefaultSize pairs.
	Reads *lastread.Log
	// Idempotency answers a writing call retried with its
	// idempotency_key; nil means All keeps the keys in memory only.
	Idempotency *idempotency.Store
}

// readBytes is the most one read_file page holds: MaxReadBytes, within
// the result ceiling with room for the notice.
func (d Deps) readBytes() int {
	n := int64(DefaultMaxReadBytes)
	if d.MaxReadBytes > 0 {
		n = d.MaxReadBytes
	}
	return int(min(n, int64(max(d.ResultLimit()-1024, 1024))))
}

// ResultLimit is the largest answer a tool may return, measured as the
// larger of its text and its structured content (a client hands one of
// them to the model). The MCP server enforces it on every tool.
func (d Deps) ResultLimit() int {
	if d.MaxResultBytes > 0 {
		return d.MaxResultBytes
	}
	return DefaultMaxResultBytes
}

// roomBytes is what an answer's main part may take under the ceiling,
// leaving room for its other fields and notice.
func (d Deps) roomBytes() int {
	limit := d.ResultLimit()
	return max(limit-1024, limit/2)
}

// pageTokens is the estimated tokens a default page's items aim to stay
// under, within the ceiling: an estimate is at least a fifth of the
// text's bytes. Two tokens hold any one character, so a page always
// moves on, whatever the ceiling.
func (d Deps) pageTokens() int {
	return max(min(DefaultPageTokens, d.roomBytes()/5), 2)
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
	if d.Ranked == nil && d.Index != nil {
		d.Ranked = rank.New(d.Index, d.Logger)
	}
	if d.Queries == nil && d.Index != nil {
		d.Queries = query.NewTable(d.Index)
	}
	if d.Bases == nil && d.Index != nil && d.Vault != nil {
		d.Bases = indexsource.New(d.Index, d.Vault.Root(), nil)
	}
	if d.SyncStatus == nil && d.Git != nil {
		d.SyncStatus = d.Git.Status
	}
	if d.Guidance == nil {
		d.Guidance = guidance.New(d.Vault, guidance.Options{Changes: d.Changes})
	}
	if d.Reads == nil {
		d.Reads = &lastread.Log{}
	}
	if d.Idempotency == nil {
		d.Idempotency = &idempotency.Store{}
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
		PatchNote(d),
		GetProperties(d),
		SetProperties(d),
		GetDailyNote(d),
		CreateDailyNote(d),
		GetClaudeContext(d),
		GetObsidianGuide(d),
		ReadCanvas(d),
		EditCanvas(d),
	}
	if d.Index != nil {
		all = append(all,
			GetBacklinks(d),
			GetBrokenLinks(d),
			FindLinks(d),
			GetTags(d),
			QueryNotes(d),
			QueryBaseTool(d),
			SearchNotes(d),
			GetConcept(d),
			ExpandContext(d),
			SearchConcepts(d),
			GetConceptPath(d),
			GetStatistics(d),
		)
	}
	if d.Git != nil {
		all = append(all,
			GetRecentChanges(d),
			GetNoteHistory(d),
			GetDiff(d),
			RevertChange(d),
			ConfirmDeletion(d),
		)
	}
	for i, st := range all {
		if arg, ok := conditionalTools[st.Tool.Name]; ok {
			all[i] = conditional(d, st, arg)
		}
	}
	return all
}
