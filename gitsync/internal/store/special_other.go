//go:build !unix

package store

import "os"

// openFlags read a worktree file.
const openFlags = os.O_RDONLY
