package syncfs

import (
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Usable reports whether one Sync of f's file system flushes, and reports
// a write-back error of, every file written to it after f was opened.
func Usable(f *os.File) bool {
	if !kernelReportsErrors() {
		return false
	}
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		return false
	}
	switch int64(st.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC,
		unix.F2FS_SUPER_MAGIC, unix.TMPFS_MAGIC:
		return true
	}
	return false
}

// Sync flushes the file system f is on.
func Sync(f *os.File) error {
	for {
		err := unix.Syncfs(int(f.Fd()))
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
