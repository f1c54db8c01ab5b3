// Package syncfs says whether one syncfs(2) of a file system can stand in
// for an fsync of each file written to it.
//
// syncfs flushes every dirty file of a file system with one device flush,
// where parallel fsyncs each wait for one of their own. It is a safe
// replacement only where it reports what fsync would: a write-back error
// of a file written since the caller opened its descriptor on the file
// system (Linux 5.8 and later), and only where the file system's syncfs
// reaches the disk. FUSE file systems (sshfs, gocryptfs, rclone) and
// network ones (CIFS, NFS) may answer it without asking their backing
// store to flush, though they pass an fsync on. Usable therefore accepts
// only the local disk file systems it knows, on a kernel new enough; the
// callers flush each file on its own anywhere else.
package syncfs
