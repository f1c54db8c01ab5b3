package tools

import (
	"bytes"
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
	LineRange
}

// ReadVersionResult is a page of a file as it was at an earlier version.
type ReadVersionResult struct {
	File gitsync.FileVersion
	// Page is the part of the content asked for (a page of lines, as for
	// the current file).
	Page linePage
	// Given is the path as the client gave it, Name the path it was taken
	// for (another case or without ".md", see historyPath); Resolved says
	// so when they differ.
	Given, Name, Resolved string
}

// ReadVersion is read_file's work for a version: the file as it was then
// (under the name it had then, when it was renamed since), paged by lines
// as the current file is.
func ReadVersion(ctx context.Context, d Deps, a ReadVersionArgs) (ReadVersionResult, error) {
	if d.Git == nil {
		return ReadVersionResult{}, errNoHistory
	}
	rel, note, err := d.historyPath(ctx, a.Path, false)
	if err != nil {
		return ReadVersionResult{}, err
	}
	f, err := d.Git.FileAt(ctx, a.Version, rel, 0)
	if err != nil {
		return ReadVersionResult{}, err
	}
	res := ReadVersionResult{File: f, Given: a.Path, Name: rel, Resolved: note}
	if f.Symlink {
		return res, nil
	}
	res.Page, err = readLines(bytes.NewReader(f.Content), f.Size, a.LineRange, d.readBytes(), d.pageTokens())
	if err != nil {
		return ReadVersionResult{}, fmt.Errorf("read %s at %s: %w", a.Path, f.Version.Hash, err)
	}
	res.File.Content = nil // the page holds what is shown
	return res, nil
}

// Text states the version read, then gives the page.
func (r ReadVersionResult) Text() string {
	f := r.File
	head := r.Resolved + fmt.Sprintf("[%s at version %s", f.Path, describeVersion(f.Version))
	if now := r.Name; f.Path != now && f.Path != "" {
		if now == "" {
			now = r.Given
		}
		head += fmt.Sprintf("; the note is called %s now", now)
	}
	head += "]\n\n"
	if f.Symlink {
		return head + "A symbolic link to " + string(f.Content)
	}
	return head + renderPage(f.Path, r.Page)
}

// withVersion gives read_file its version argument when the vault has a
// history: calls that name a version read it from git, the rest go to the
// tool's own handler.
func withVersion(d Deps, st server.ServerTool) server.ServerTool {
	if d.Git == nil {
		return st
	}
	st.Tool.Description += " Give version (a commit hash or prefix, HEAD~N, or a time meaning \"as of\" such as 2024-05-01T14:30, yesterday or 7d; a day: as it began) to read an earlier version from the git history."
	st.Tool.InputSchema.Properties["version"] = map[string]any{
		"type":        "string",
		"description": "Read the file as it was at this version: a commit hash or its first 4+ digits, HEAD~N (N commits back), or an ISO date/date-time meaning \"as of\" (2024-05-01T14:30; 2024-05-01 alone is the start of that day). Default: the current file on disk",
	}
	current := st.Handler
	versioned := handle(d, func(ctx context.Context, a ReadVersionArgs) (*mcp.CallToolResult, error) {
		res, err := ReadVersion(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return withVersionText(textResult(res.Text()), res.File.Blob), nil
	})
	st.Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if v, ok := req.GetArguments()["version"].(string); ok && v != "" {
			return versioned(ctx, req)
		}
		return current(ctx, req)
	}
	return st
}
