package gitsync

import (
	"context"

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
