//go:build unix

package vault

import (
	"os"
	"syscall"
)

// renameOver renames the file from over to, which is never a folder (a
// batch's temporary file taking its note's place): os.Rename first looks
// the new name up to refuse replacing a folder, a system call more for
// each of a batch's thousand renames. The rename itself still refuses a
// folder (EISDIR).
func renameOver(from, to string) error {
	for {
		err := syscall.Rename(from, to)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
		}
		return nil
	}
}
