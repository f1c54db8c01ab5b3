//go:build !linux

package index

// prefault is where the Linux build maps a fresh buffer's pages at once;
// elsewhere they are faulted in as they are written.
func prefault([]byte) {}
