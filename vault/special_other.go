//go:build !unix

package vault

import "os"

// openReadFlags open for reading. (No FIFOs to fear here.)
const openReadFlags = os.O_RDONLY
