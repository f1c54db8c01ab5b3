package tools

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
)

// read_file's optional version argument lives here, apart from the rest
// of read_file: withVersion adds it to the tool's definition and routes
// calls that give it to ReadVersion.

// ReadVersionArgs are read_file's arguments when a version is given.
type ReadVersionArgs struct {
	Path    string `json:"path"`
	Version string `json:"version"`
}

// ReadVersionResult is a file's content at an earlier version.
type ReadVersionResult struct {
	File gitsync.FileVersion
	// Given is the path as the client gave it.
	Given string
}

// ReadVersion is read_file's work for a version: the file as it was then
// (under the name it had then, when it was renamed since), at most
// Deps.MaxReadBytes of it.
func ReadVersion(ctx context.Context, d Deps, a ReadVersionArgs) (ReadVersionResult, error) {
	if d.Git == nil {
		return ReadVersionResult{}, errNoHistory
	}
	p, err := d.Vault.ResolveFile(a.Path)
	if err != nil {
		return ReadVersionResult{}, err
	}
	f, err := d.Git.FileAt(ctx, a.Version, p.Rel, d.maxRead())
	if err != nil {
		return ReadVersionResult{}, err
	}
	return ReadVersionResult{File: f, Given: a.Path}, nil
}

// Text states the version read, then gives the content.
func (r ReadVersionResult) Text() string {
	f := r.File
	head := fmt.Sprintf("[%s at version %s", f.Path, describeVersion(f.Version))
	if f.Path != r.Given && f.Path != "" {
		head += fmt.Sprintf("; the note is called %s now", r.Given)
	}
	head += "]"
	data := f.Content
	if f.Truncated {
		data = trimPartialRune(data)
	}
	switch {
	case f.Symlink:
		return head + "\n\nA symbolic link to " + string(data)
	case isBinary(data):
		return head + fmt.Sprintf("\n\nBinary file (%s, %s). read_file returns text only.", contentType(f.Path, data), humanBytes(f.Size))
	}
	text := head + "\n\n" + string(data)
	if f.Truncated {
		text += fmt.Sprintf("\n\n[... truncated: showing the first %s of %s ...]", humanBytes(int64(len(data))), humanBytes(f.Size))
	}
	return text
}

// withVersion gives read_file its version argument when the vault has a
// history: calls that name a version read it from git, the rest go to the
// tool's own handler.
func withVersion(d Deps, st server.ServerTool) server.ServerTool {
	if d.Git == nil {
		return st
	}
	st.Tool.Description += " Give version (a commit hash or prefix, HEAD~N, or an ISO date meaning \"as of\") to read an earlier version from the git history."
	st.Tool.InputSchema.Properties["version"] = map[string]any{
		"type":        "string",
		"description": "Read the file as it was at this version: a commit hash or its first 4+ digits, HEAD~N (N commits back), or an ISO date/date-time meaning \"as of\" (2024-05-01, 2024-05-01T14:30). Default: the current file on disk",
	}
	current := st.Handler
	versioned := handle(d, func(ctx context.Context, a ReadVersionArgs) (*mcp.CallToolResult, error) {
		res, err := ReadVersion(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return textResult(res.Text()), nil
	})
	st.Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if v, ok := req.GetArguments()["version"].(string); ok && v != "" {
			return versioned(ctx, req)
		}
		return current(ctx, req)
	}
	return st
}
