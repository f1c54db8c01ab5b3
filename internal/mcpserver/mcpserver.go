// Package mcpserver assembles the MCP server: tools, instructions and the
// server options every transport shares.
package mcpserver

import (
	"bytes"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/tools"
	"vaultmcp/vault"
)

// Name is the server name reported at initialize.
const Name = "vaultmcp"

// defaultInstructions stand in for a vault without a root CLAUDE.md, so an
// agent still learns what it is talking to.
const defaultInstructions = `This server gives you an Obsidian vault: a folder of Markdown notes kept in git.
Paths are relative to the vault root. Every write, edit, delete and rename is a git commit, pushed to the vault's remote.
Notes link to each other with [[wikilinks]]; keep links intact when you move or rename notes.
Read a note before you edit it, and prefer edit_file for small changes over rewriting a whole note with write_file.`

// Option adjusts the server New builds.
type Option func(*options)

type options struct {
	validateOutput bool
	drain          *Drain
}

// WithOutputValidation checks every structured answer against its tool's
// output schema, turning a mismatch into an error result. Tests turn it
// on; production leaves it off: decoding and checking an answer again
// costs more than building it (BenchmarkOutputValidation, 2,000 notes:
// get_backlinks 0.7 ms without, 1.9 ms with; get_broken_links 0.75 and
// 1.5 ms), and the handler tests already hold every tool to its schema.
func WithOutputValidation() Option {
	return func(o *options) { o.validateOutput = true }
}

// New returns an MCP server offering every tool over d. version is the
// server version reported at initialize. Tools that change the vault run
// detached from their request's cancellation (see Drain), with or without
// WithDrain.
func New(d tools.Deps, version string, opts ...Option) (*server.MCPServer, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	drain := o.drain
	if drain == nil {
		drain = &Drain{}
	}
	if d.ServerVersion == "" {
		d.ServerVersion = version
	}
	all := tools.All(d)
	drain.init(all)
	validator, err := newArgValidator(all)
	if err != nil {
		return nil, err
	}
	serverOpts := []server.ServerOption{
		server.WithInstructions(Instructions(d.Vault.Root())),
		server.WithToolCapabilities(false),
		server.WithStrictInputSchemaDefault(),
		server.WithToolHandlerMiddleware(drain.middleware),
		server.WithToolHandlerMiddleware(validator.middleware),
		server.WithToolHandlerMiddleware(resultCeiling(d.ResultLimit())),
		server.WithRecovery(),
	}
	if o.validateOutput {
		serverOpts = append(serverOpts, server.WithOutputSchemaValidation())
	}
	s := server.NewMCPServer(Name, version, serverOpts...)
	s.AddTools(all...)
	return s, nil
}

// Instructions returns the vault's root CLAUDE.md, which seed 003 delivers
// as the MCP instructions at initialize, or a short default without one.
// The file is read through the vault boundary: a CLAUDE.md that is a
// symlink out of the vault (git can carry one in with a pull) must not
// hand a file from elsewhere on the server to every client.
func Instructions(root string) string {
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		return defaultInstructions
	}
	f, err := v.ReadFile("CLAUDE.md", 0)
	if err != nil || len(bytes.TrimSpace(f.Data)) == 0 {
		return defaultInstructions
	}
	return string(f.Data)
}
