//go:build !unix

package vault

import "os"

// renameOver is os.Rename (see rename_unix.go for why unix differs).
func renameOver(from, to string) error { return os.Rename(from, to) }
