package tools

import (
	"context"
	"errors"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/guides"
	"vaultmcp/vault"
	"vaultmcp/vault/guidance"
)

// NoClaudeContext is get_claude_context's answer when no folder on the way
// has a CLAUDE.md.
const NoClaudeContext = "No CLAUDE.md files found along this path."

// ClaudeContextArgs are get_claude_context's arguments.
type ClaudeContextArgs struct {
	Path string `json:"path"`
}

// ClaudeContextResult is what get_claude_context found, outermost folder
// first.
type ClaudeContextResult struct {
	Files []ClaudeFile `json:"files"`
	// Missing names the asked path when nothing by that name exists: the
	// files are then those of its existing parent folders, which is what
	// a note about to be created there should follow, but an agent that
	// mistyped a folder should hear that it did.
	Missing string `json:"missing,omitempty"`
	// Suggestions are existing paths Missing may have meant.
	Suggestions []string `json:"suggestions,omitempty"`
}

// ClaudeFile is one folder's CLAUDE.md.
type ClaudeFile struct {
	Folder  string `json:"folder"` // vault-relative, e.g. "projects/webapp"
	Content string `json:"content"`
}

// Text renders the result as the tool answers: each file under a
// "--- CLAUDE.md in <folder>/ ---" header, separated by a blank line.
func (r ClaudeContextResult) Text() string {
	text := NoClaudeContext
	if len(r.Files) > 0 {
		parts := make([]string, len(r.Files))
		for i, f := range r.Files {
			parts[i] = "--- CLAUDE.md in " + f.Folder + "/ ---\n" + strings.TrimRight(f.Content, "\n")
		}
		text = strings.Join(parts, "\n\n")
	}
	if r.Missing != "" {
		text += "\n\n(" + r.Missing + " does not exist yet: these are the rules of the folders above it" +
			didYouMean(r.Suggestions) + ")"
	}
	return text
}

// guidance returns d.Guidance, or an uncached reader when the caller
// built Deps without one.
func (d Deps) guidance() *guidance.Files {
	if d.Guidance != nil {
		return d.Guidance
	}
	return guidance.New(d.Vault, guidance.Options{})
}

// ClaudeContext returns the CLAUDE.md files in the folders from the vault
// root (whose file is left out: it is the instructions) down to a.Path.
func ClaudeContext(ctx context.Context, d Deps, a ClaudeContextArgs) (ClaudeContextResult, error) {
	files, err := d.guidance().Along(ctx, a.Path)
	if err != nil {
		return ClaudeContextResult{}, err
	}
	res := ClaudeContextResult{Files: make([]ClaudeFile, len(files))}
	for i, f := range files {
		res.Files[i] = ClaudeFile{Folder: f.Dir, Content: f.Content}
	}
	// Along has already refused what the scope hides, so saying that a
	// visible path does not exist reveals nothing.
	if _, _, err := d.Vault.Stat(ctx, a.Path); errors.Is(err, vault.ErrNotFound) {
		res.Missing = a.Path
		res.Suggestions = d.suggest(ctx, a.Path)
	}
	return res, nil
}

// GetClaudeContext is get_claude_context.
func GetClaudeContext(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_claude_context",
		mcp.WithDescription("Return the CLAUDE.md instruction files found along the path from the vault root to a folder, outermost first, "+
			"each under a \"--- CLAUDE.md in <folder>/ ---\" header. Call it before working in a vault subfolder to learn that folder's "+
			"instructions and conventions. The root CLAUDE.md is left out: it is already your server instructions. "+
			"Answers \""+NoClaudeContext+"\" when there are none. A path that does not exist yet gets its parent folders' files and a line saying so."),
		mcp.WithString("path", mcp.Required(), mcp.Description("Folder path relative to the vault root, e.g. \"projects/webapp\" (a file path stands for its folder)")),
		annotate("Get CLAUDE.md context", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a ClaudeContextArgs) (*mcp.CallToolResult, error) {
		res, err := ClaudeContext(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return textResult(res.Text()), nil
	})}
}

// GuideArgs are get_obsidian_guide's arguments.
type GuideArgs struct {
	Topic    string `json:"topic"`
	NoteType string `json:"note_type"`
}

// GuideResult is one guide.
type GuideResult struct {
	Topic    string `json:"topic"`
	NoteType string `json:"note_type,omitempty"`
	Text     string `json:"text"` // Markdown
}

// ObsidianGuide returns the guide for a topic, from the vault's own guide
// files where it has them (guides.OverrideDir), else the built-in ones.
func ObsidianGuide(_ context.Context, d Deps, a GuideArgs) (GuideResult, error) {
	text, err := guides.Lookup(a.Topic, a.NoteType, d.guidance().Folder(guides.OverrideDir))
	if err != nil {
		return GuideResult{}, &toolError{msg: err.Error()}
	}
	return GuideResult{Topic: a.Topic, NoteType: a.NoteType, Text: text}, nil
}

// GetObsidianGuide is get_obsidian_guide.
func GetObsidianGuide(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_obsidian_guide",
		mcp.WithDescription("Return a best-practice guide (Markdown) for working in this Obsidian vault. Call it before creating or searching notes "+
			"if unsure about the vault's conventions, link and embed syntax, properties (frontmatter), tags, callouts, or which search tool to use. "+
			"Topics: conventions (links, embeds, properties, tags, callouts, block ids), create-note (a template for note_type, default zettel), "+
			"search-strategy (which tool to use when), all (everything)."),
		mcp.WithString("topic", mcp.Required(), mcp.Enum(guides.Topics()...), mcp.Description("Which guide")),
		mcp.WithString("note_type", mcp.Enum(guides.NoteTypes()...), mcp.Description("The kind of note for create-note (default zettel); with all, only that template")),
		annotate("Get Obsidian guide", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a GuideArgs) (*mcp.CallToolResult, error) {
		res, err := ObsidianGuide(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return textResult(res.Text), nil
	})}
}
