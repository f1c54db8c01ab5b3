package syncfs

import (
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Open opens a barrier on the file system holding dir, before the files
// it is to flush are written (syncfs reports the write-back errors since
// then); nil when there can be none: an older kernel, a file system whose
// syncfs may not reach the disk, or dir that cannot be opened.
func Open(dir string) *Barrier {
	if !kernelReportsErrors() {
		return nil
	}
	// A blocking descriptor of its own, not one offered to the runtime's
	// poller (os.Open's extra system calls, on every commit's path).
	var fd int
	var err error
	for {
		fd, err = unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil
	}
	var sfs unix.Statfs_t
	var st unix.Stat_t
	if unix.Fstatfs(fd, &sfs) != nil || !diskFileSystem(int64(sfs.Type)) || unix.Fstat(fd, &st) != nil {
		unix.Close(fd)
		return nil
	}
	return &Barrier{dir: os.NewFile(uintptr(fd), dir), dev: st.Dev}
}

// diskFileSystem reports whether the file system of magic number typ is
// a local one whose syncfs flushes to the disk.
func diskFileSystem(typ int64) bool {
	switch typ {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC,
		unix.F2FS_SUPER_MAGIC, unix.TMPFS_MAGIC:
		return true
	}
	return false
}

// Covers reports whether fi (of a file written since the barrier was
// opened) is on the barrier's file system, so that Sync flushes it: a
// folder below may be another mount.
func (b *Barrier) Covers(fi fs.FileInfo) bool {
	if b == nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && uint64(st.Dev) == b.dev
}

// Sync flushes the file system: every file Covers accepted is durable
// when it returns nil. A nil barrier has nothing to flush.
func (b *Barrier) Sync() error {
	if b == nil {
		return nil
	}
	for {
		err := unix.Syncfs(int(b.dir.Fd()))
		if err != unix.EINTR {
			return err
		}
	}
}

// kernelReportsErrors reports whether this kernel's syncfs returns the
// write-back errors since the descriptor was opened (Linux 5.8 and later;
// before, it returned only its own errors). The kernel does not change
// while the process runs, so it is asked once.
var kernelReportsErrors = sync.OnceValue(func() bool {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return false
	}
	return releaseAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 8)
})

// releaseAtLeast reports whether a kernel release such as "6.1.0-18-amd64"
// is major.minor or later.
func releaseAtLeast(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	maj, err := strconv.Atoi(parts[0])
	if err != nil {
		return false
	}
	digits := parts[1]
	if i := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		digits = digits[:i]
	}
	mnr, err := strconv.Atoi(digits)
	if err != nil {
		return false
	}
	return maj > major || maj == major && mnr >= minor
}
