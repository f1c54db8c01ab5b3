package index

import (
	"time"

	"vaultmcp/internal/regularfile"
)

// readNote reads the note at abs into a buffer from texts, unless it is
// larger than limit (content is then nil). It never blocks on a FIFO and
// refuses anything but a regular file. cpath, when not nil, is abs followed
// by a NUL byte, handed to the kernel as it is.
func readNote(abs string, cpath []byte, limit int64, texts *slab) (content []byte, size int64, modTime time.Time, err error) {
	return regularfile.Read(abs, cpath, limit, texts.alloc)
}
