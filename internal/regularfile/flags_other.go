//go:build !unix

package regularfile

import "os"

// Opening never blocks on these systems, which have no FIFOs in their
// file systems, and a final symbolic link cannot be refused at the open.
const (
	readFlags     = os.O_RDONLY
	noFollowFlags = os.O_RDONLY
)
