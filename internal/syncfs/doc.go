// Package syncfs provides a flush barrier: one syncfs(2) of a file system
// standing in for an fsync of each file written to it.
//
// syncfs flushes every dirty file of a file system with one device flush,
// where parallel fsyncs each wait for one of their own. It is a safe
// replacement only where it reports what fsync would: a write-back error
// of a file written since the barrier was opened (Linux 5.8 and later),
// and only where the file system's syncfs reaches the disk. FUSE file
// systems (sshfs, gocryptfs, rclone) and network ones (CIFS, NFS) may
// answer it without asking their backing store to flush, though they pass
// an fsync on. Open therefore opens a barrier only on the local disk file
// systems it knows, on a kernel new enough; callers flush each file on
// its own wherever it returns nil, and for files on other mounts.
package syncfs

import "os"

// Barrier flushes, with Sync, every file written after it was opened to
// the file system of the folder it was opened on. A nil Barrier covers
// nothing and is safe to Close.
type Barrier struct {
	dir *os.File
	dev uint64
}

// Close releases the barrier.
func (b *Barrier) Close() {
	if b != nil {
		b.dir.Close()
	}
}
