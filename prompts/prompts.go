// Package prompts offers the vault's MCP prompts — obsidian-conventions,
// obsidian-create-note and obsidian-search-strategy — built from the same
// guide texts as the get_obsidian_guide tool, and completion of their
// arguments (completion/complete). It never reads the vault itself: the
// vault's guide overrides come in as an fs.FS and the note paths, folders
// and tags that completion offers come in as functions, so the package
// serves any transport and any number of sessions alike.
package prompts

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/guides"
)

// Prompt names.
const (
	Conventions    = "obsidian-conventions"
	CreateNote     = "obsidian-create-note"
	SearchStrategy = "obsidian-search-strategy"
)

// Arguments of obsidian-create-note.
const (
	ArgTopic    = "topic"
	ArgNoteType = "note_type"
	ArgFolder   = "folder"
	ArgTags     = "tags"
)

// Options are what the prompts and their completion read. The zero value
// serves the built-in guides and completes only note types.
type Options struct {
	// Guides holds the vault's own guide files (see guides.OverrideDir);
	// nil means the built-in guides only.
	Guides fs.FS
	// Notes, Folders and Tags list what completion may offer: the
	// vault's file paths, its folder paths and its tags (most used
	// first). Each may be nil.
	Notes, Folders, Tags func(ctx context.Context) []string
	// Logger receives handler panics; nil means slog.Default().
	Logger *slog.Logger
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

// All returns the three prompts.
func All(o Options) []server.ServerPrompt {
	return []server.ServerPrompt{
		guidePrompt(o, Conventions, "Obsidian vault conventions",
			"The vault's conventions: link and embed syntax, properties (frontmatter), tags, callouts and block ids.", guides.Conventions),
		createNotePrompt(o),
		guidePrompt(o, SearchStrategy, "Obsidian search strategy",
			"Which of the server's search tools to use when: grep, search_files, find_files, backlinks, tags, concepts and history.", guides.SearchStrategy),
	}
}

// guidePrompt is a prompt without arguments that hands the model one
// guide.
func guidePrompt(o Options, name, title, description, topic string) server.ServerPrompt {
	p := mcp.NewPrompt(name, mcp.WithPromptTitle(title), mcp.WithPromptDescription(description))
	return server.ServerPrompt{Prompt: p, Handler: guard(o, func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if err := checkArguments(p, req.Params.Arguments); err != nil {
			return nil, err
		}
		text, err := guides.Lookup(topic, "", o.Guides)
		if err != nil {
			return nil, err
		}
		return mcp.NewGetPromptResult(description, []mcp.PromptMessage{
			mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text)),
		}), nil
	})}
}

func createNotePrompt(o Options) server.ServerPrompt {
	const description = "Create a new note on a topic, following the vault's template for that kind of note."
	p := mcp.NewPrompt(CreateNote,
		mcp.WithPromptTitle("Create an Obsidian note"),
		mcp.WithPromptDescription(description),
		mcp.WithArgument(ArgTopic, mcp.RequiredArgument(), mcp.ArgumentDescription("What the note is about")),
		mcp.WithArgument(ArgNoteType, mcp.ArgumentDescription("Kind of note: "+strings.Join(guides.NoteTypes(), ", ")+" (default "+guides.DefaultNoteType+")")),
		mcp.WithArgument(ArgFolder, mcp.ArgumentDescription("Vault folder to create it in (default: where the vault keeps this kind of note)")),
		mcp.WithArgument(ArgTags, mcp.ArgumentDescription("Comma-separated tags to give it, e.g. \"project, status/active\"")),
	)
	return server.ServerPrompt{Prompt: p, Handler: guard(o, func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		args := req.Params.Arguments
		if err := checkArguments(p, args); err != nil {
			return nil, err
		}
		topic := strings.TrimSpace(args[ArgTopic])
		noteType := strings.TrimSpace(args[ArgNoteType])
		if noteType == "" {
			noteType = guides.DefaultNoteType
		}
		template, err := guides.Lookup(guides.CreateNote, noteType, o.Guides)
		if err != nil {
			if errors.Is(err, guides.ErrUnknownNoteType) {
				return nil, argumentError{fmt.Errorf("argument %q: %w", ArgNoteType, err)}
			}
			return nil, fmt.Errorf("argument %q: %w", ArgNoteType, err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Create a new %s note in the Obsidian vault about: %s\n\n", noteType, topic)
		if folder := strings.Trim(strings.TrimSpace(args[ArgFolder]), "/"); folder != "" {
			fmt.Fprintf(&b, "Put it in the folder `%s/`.\n", folder)
		}
		if tags := splitTags(args[ArgTags]); len(tags) > 0 {
			fmt.Fprintf(&b, "Give it these tags (in the `tags` property, without #): %s.\n", strings.Join(tags, ", "))
		}
		b.WriteString("First search the vault for a note on this topic (search_files, grep, search_notes) and add to it " +
			"if one exists. Call get_claude_context with the target folder for its local rules; they come before this template. " +
			"Then create the note with write_file, following this guide:\n\n")
		b.WriteString(template)
		return mcp.NewGetPromptResult(description, []mcp.PromptMessage{
			mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(b.String())),
		}), nil
	})}
}

// argumentError is a prompt argument the client got wrong. The server
// answers it as invalid params (-32602), not as an internal error
// (mcpserver.ParamsError).
type argumentError struct{ error }

// InvalidParams reports that the error is the request's.
func (argumentError) InvalidParams() bool { return true }

func (e argumentError) Unwrap() error { return e.error }

// checkArguments refuses missing required and unknown arguments with a
// message naming the prompt's arguments.
func checkArguments(p mcp.Prompt, args map[string]string) error {
	known := make(map[string]bool, len(p.Arguments))
	var names []string
	for _, a := range p.Arguments {
		known[a.Name] = true
		names = append(names, a.Name)
		if a.Required && strings.TrimSpace(args[a.Name]) == "" {
			return argumentError{fmt.Errorf("prompt %s: missing required argument %q", p.Name, a.Name)}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if !known[name] {
			takes := "no arguments"
			if len(names) > 0 {
				takes = "arguments: " + strings.Join(names, ", ")
			}
			return argumentError{fmt.Errorf("prompt %s: unknown argument %q (it takes %s)", p.Name, name, takes)}
		}
	}
	return nil
}

// splitTags reads a comma-separated tag list, dropping '#' and blanks.
func splitTags(s string) []string {
	var tags []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimPrefix(strings.TrimSpace(t), "#"); t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}

// guard turns a handler panic into an error answer, as tool handlers do,
// so one bad prompt never takes the session down.
func guard(o Options, h server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (res *mcp.GetPromptResult, err error) {
		defer func() {
			if p := recover(); p != nil {
				o.logger().Error("prompt panicked", "prompt", req.Params.Name, "panic", p, "stack", string(debug.Stack()))
				res, err = nil, fmt.Errorf("internal error in prompt %s; the server logged the details", req.Params.Name)
			}
		}()
		return h(ctx, req)
	}
}
