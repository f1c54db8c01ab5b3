//go:build unix

package store

import (
	"os"
	"syscall"
)

// OpenFile is os.OpenFile for the small files a commit writes, locks and
// flushes (loose objects, lock files, reflogs, and the files and folders
// it fsyncs). os.OpenFile offers every file it opens to the runtime's
// poller: on Linux four fcntl calls and an epoll_ctl that fails for a
// regular file or a folder, which is a third of the system calls of a
// commit (about 20 opens) and costs more than the open itself on a
// virtual machine. A file made by os.NewFile from a blocking descriptor
// skips the poller; reads, writes, Sync and Close work as usual.
func OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(name, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}

// renameFile is os.Rename for a file whose new name is never a folder
// (a loose object, a lock file taking its place): os.Rename first looks
// the new name up to refuse replacing a folder, one system call more for
// each of the five or so renames of a commit.
func renameFile(from, to string) error {
	if err := syscall.Rename(from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
