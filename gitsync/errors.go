package gitsync

import "vaultmcp/gitsync/internal/store"

// ErrUnsafePath is what every refused path or tree is (errors.Is): a
// name git or the worktree must not hold.
var ErrUnsafePath = store.ErrUnsafePath

// UnsafeTreeError says a tree from the remote (or a commit's tree) holds
// an unsafe path; nothing of it was written.
type UnsafeTreeError = store.UnsafeTreeError
