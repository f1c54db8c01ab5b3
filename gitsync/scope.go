package gitsync

import (
	"context"
	"strings"

	"vaultmcp/vault/access"
)

// withheldMessage replaces the message of a commit that also changed files
// the request's access scope hides: messages name the paths they touch
// ("MCP: rename Private/a.md -> Journal/a.md").
const withheldMessage = "(message withheld: this commit also changed files outside the folders this session may access)"

// visibleChanges narrows a commit's changed files to those ctx's access
// scope lets the client see (package access), reporting whether any were
// left out. Without a scope that hides anything, files is returned as is.
func visibleChanges(ctx context.Context, files []fileDiff) (kept []fileDiff, hid bool) {
	scope := access.From(ctx)
	if !scope.Hides() {
		return files, false
	}
	kept = make([]fileDiff, 0, len(files))
	for _, d := range files {
		if scope.Visible(d.Path) {
			kept = append(kept, d)
		}
	}
	return kept, len(kept) < len(files)
}

// namesHidden reports whether a commit message of the server's own
// ("MCP: rename a.md -> b.md") names a path ctx's scope hides, even one
// the commit's diff does not show (a file that was never committed).
// Messages written by people are free text and are not parsed.
func namesHidden(ctx context.Context, message string) bool {
	scope := access.From(ctx)
	if !scope.Hides() {
		return false
	}
	first, _, _ := strings.Cut(message, "\n")
	rest, ok := strings.CutPrefix(first, "MCP: ")
	if !ok {
		return false
	}
	_, paths, ok := strings.Cut(rest, " ")
	if !ok {
		return false
	}
	for _, p := range strings.Split(paths, " -> ") {
		if !scope.Visible(strings.TrimSpace(p)) {
			return true
		}
	}
	return false
}
