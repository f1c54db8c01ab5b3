// Package tools defines vaultmcp's MCP tools. Each tool is a constructor
// returning a static definition (name, description, input schema, all four
// annotations) and a handler closed over Deps. One file per family of
// tools; a tool's code is found from its name.
package tools

import (
	"log/slog"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/vault"
)

// DefaultMaxReadBytes is how much of a file read_file returns when Deps
// does not say: enough for any real note, small enough for a model's
// context.
const DefaultMaxReadBytes = 256 << 10

// Deps is what the tools work on. Only Vault is required.
type Deps struct {
	Vault *vault.Vault
	// MaxReadBytes caps read_file; 0 means DefaultMaxReadBytes.
	MaxReadBytes int64
	// Logger receives unexpected failures; nil means slog.Default().
	Logger *slog.Logger
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

// All returns every tool, in the order tools/list shows them.
func All(d Deps) []server.ServerTool {
	return []server.ServerTool{
		ReadFile(d),
		WriteFile(d),
		EditFile(d),
		DeleteFile(d),
		RenameFile(d),
		ListDirectory(d),
		CreateDirectory(d),
	}
}
