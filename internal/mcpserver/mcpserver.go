// Package mcpserver assembles the MCP server every transport shares: the
// tools, the prompts and their argument completion, the vault's files as
// resources with per-session subscriptions, the initialize instructions,
// and server logs forwarded to clients that ask for them.
//
// Nothing here assumes one session: subscriptions and log levels are kept
// per session ID (and per subscriptions/listen stream), so stdio and HTTP
// sessions are served alike. State that follows the vault (the
// instructions, the CLAUDE.md cache, resource updates) listens to the
// vault's one change feed, tools.Deps.Changes.
//
// Everything is assembled through mcp-go's own API; what steps past it
// (the argument check, the pre-encoded tool listings, the stdio
// transport) is package mcpwire's.
package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/guides"
	"vaultmcp/internal/mcpwire"
	"vaultmcp/prompts"
	"vaultmcp/tools"
	"vaultmcp/vault/access"
	"vaultmcp/vault/guidance"
)

// Name is the server name reported at initialize.
const Name = "vaultmcp"

// Option changes how New assembles the server.
type Option func(*options)

type options struct {
	log            *ClientLog
	validateOutput bool
	drain          *Drain
	startGate      <-chan struct{}
	begin          func()
	late           *LateTools
}

// WithClientLog forwards the records of l (the server's logger) to
// connected clients: each session that sets a level with logging/setLevel
// receives the records at or above it as notifications/message.
func WithClientLog(l *ClientLog) Option { return func(o *options) { o.log = l } }

// WithOutputValidation checks every structured answer against its tool's
// output schema, turning a mismatch into an error result. Tests turn it
// on; production leaves it off: decoding and checking an answer again
// costs more than building it (BenchmarkOutputValidation, 2,000 notes:
// get_backlinks 0.7 ms without, 1.9 ms with; get_broken_links 0.75 and
// 1.5 ms), and the handler tests already hold every tool to its schema.
func WithOutputValidation() Option {
	return func(o *options) { o.validateOutput = true }
}

// New returns an MCP server over d: every tool tools.All offers, the
// prompts, and — when d.Index is set — the vault's files as resources.
// version is the server version reported at initialize. Tools that
// change the vault run detached from their request's cancellation (see
// Drain), with or without WithDrain.
func New(d tools.Deps, version string, opts ...Option) (*server.MCPServer, error) {
	s, _, err := assemble(d, version, opts...)
	return s, err
}

// assemble is New, also returning the resource server (nil without an
// index) for tests.
func assemble(d tools.Deps, version string, opts ...Option) (*server.MCPServer, *resources, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	drain := o.drain
	if drain == nil {
		drain = &Drain{}
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Guidance == nil {
		// One reader for the tools and the instructions, so one cache
		// listens to the change feed.
		d.Guidance = guidance.New(d.Vault, guidance.Options{Changes: d.Changes})
	}
	if d.ServerVersion == "" {
		d.ServerVersion = version
	}
	all := tools.All(d)
	drain.init(all)
	listed, encoded, err := mcpwire.ListedTools(all)
	if err != nil {
		return nil, nil, err
	}
	checker := mcpwire.NewArgChecker(all, encoded)
	var names, readNames []string
	for _, t := range all {
		names = append(names, t.Tool.Name)
		if !mcpwire.Writes(t.Tool) {
			readNames = append(readNames, t.Tool.Name)
		}
	}
	slices.Sort(names)
	slices.Sort(readNames)
	instr := &instructions{files: d.Guidance, fallback: defaultInstructions(names), readOnly: defaultInstructions(readNames)}

	hooks := &server.Hooks{}
	if o.startGate != nil {
		startGate(hooks, o.startGate, o.begin)
	}
	accessHooks(hooks)
	paramsErrorCodes(hooks)
	// The instructions are read at every initialize (and discover), so a
	// root CLAUDE.md changed while the server runs reaches the next
	// session; the guidance cache makes that a map lookup.
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		if res != nil {
			res.Instructions = instr.text(ctx, d.Logger)
		}
	})
	hooks.AddAfterDiscover(func(ctx context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
		if res != nil {
			res.Instructions = instr.text(ctx, d.Logger)
		}
	})

	promptOpts := prompts.Options{
		Guides: d.Guidance.Folder(guides.OverrideDir),
		Logger: d.Logger,
	}
	serverOpts := []server.ServerOption{
		server.WithInstructions(instr.fallback),
		server.WithToolCapabilities(false),
		server.WithPromptCapabilities(false),
		server.WithCompletions(),
		server.WithStrictInputSchemaDefault(),
		server.WithToolHandlerMiddleware(drain.middleware),
		server.WithToolHandlerMiddleware(auditNote),
		server.WithToolHandlerMiddleware(clientTrailer),
		server.WithToolHandlerMiddleware(readOnlyGuard(all)),
		server.WithToolHandlerMiddleware(checker.Middleware),
		server.WithToolHandlerMiddleware(resultCeiling(d.ResultLimit())),
		server.WithRecovery(),
		server.WithHooks(hooks),
	}
	if o.validateOutput {
		serverOpts = append(serverOpts, server.WithOutputSchemaValidation())
	}
	var res *resources
	if d.Index != nil {
		res = newResources(d)
		promptOpts.Notes, promptOpts.Folders, promptOpts.Tags = res.notes, res.folders, res.tags
		serverOpts = append(serverOpts,
			server.WithResourceCapabilities(true, true),
			server.WithResourceCompletionProvider(res),
		)
	}
	if o.log != nil {
		serverOpts = append(serverOpts, server.WithLogging())
	}
	serverOpts = append(serverOpts, server.WithPromptCompletionProvider(prompts.NewCompleter(promptOpts)))

	s := server.NewMCPServer(Name, version, serverOpts...)
	registerTools(s, hooks, listed, o.late)
	s.AddPrompts(prompts.All(promptOpts)...)
	if res != nil {
		res.attach(s, hooks)
	}
	if o.log != nil {
		o.log.attach(s, hooks, d.Vault.Root())
	}
	return s, res, nil
}

// instructions are the MCP instructions: the vault's root CLAUDE.md, or a
// short orientation when it has none. They follow the session's access
// scope (package access): a scope that hides the root CLAUDE.md (a deny
// naming it, or an allow list that leaves it out) gets the orientation
// instead, as get_claude_context and resources/read would refuse the file;
// a read-only scope's orientation names only the tools it may call.
type instructions struct {
	files    *guidance.Files
	fallback string
	readOnly string // fallback naming only the read-only tools
}

func (in *instructions) text(ctx context.Context, logger *slog.Logger) (text string) {
	scope := access.From(ctx)
	fallback := in.fallback
	if scope.ReadOnly() {
		fallback = in.readOnly
	}
	defer func() {
		if p := recover(); p != nil {
			logger.Error("reading the instructions panicked", "panic", p, "stack", string(debug.Stack()))
			text = fallback
		}
	}()
	if root := in.files.Root(ctx); root != "" {
		return root
	}
	return fallback
}

// defaultInstructions orient an agent in a vault without a root CLAUDE.md,
// naming the tools it has.
func defaultInstructions(tools []string) string {
	var b strings.Builder
	b.WriteString("This server gives you an Obsidian vault: a folder of Markdown notes kept in git. Paths are relative to the vault root. ")
	if slices.Contains(tools, "write_file") {
		b.WriteString("Every write, edit, delete and rename is a git commit, pushed to the vault's remote.\n")
		b.WriteString("Notes link to each other with [[wikilinks]]; rename and move notes with rename_file so the links follow.\n")
		b.WriteString("Read a note before you edit it, and prefer edit_file for small changes over rewriting a whole note with write_file.\n")
		b.WriteString("Reads return the note's version: pass it as if_version when you write back what you read, so a change someone made since is never overwritten (the error then shows it, to merge and retry).\n")
	} else {
		b.WriteString("This session is read-only: you can read, search and follow the history, not change notes.\n")
		b.WriteString("Notes link to each other with [[wikilinks]].\n")
	}
	if slices.Contains(tools, "get_obsidian_guide") {
		b.WriteString("Unsure about the vault's conventions, a note template or which search tool to use? Call get_obsidian_guide.\n")
	}
	if slices.Contains(tools, "get_claude_context") {
		b.WriteString("Before working in a folder, call get_claude_context with it for that folder's own rules.\n")
	}
	fmt.Fprintf(&b, "Tools: %s.\n", strings.Join(tools, ", "))
	return b.String()
}
