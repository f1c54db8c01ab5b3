//go:build !unix

package gitsync

import "os"

// openFlags read a worktree file.
const openFlags = os.O_RDONLY
