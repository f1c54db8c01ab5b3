package indexsource

import (
	"io/fs"
	"time"

	"golang.org/x/sys/unix"
)

// birthTime is when the file was created, as Obsidian's file.ctime has
// it (Node's birthtime): statx's birth time where the file system keeps
// one, else the modification time.
func birthTime(abs string, fi fs.FileInfo) time.Time {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, abs, 0, unix.STATX_BTIME, &st); err == nil && st.Mask&unix.STATX_BTIME != 0 {
		return time.Unix(st.Btime.Sec, int64(st.Btime.Nsec))
	}
	return fi.ModTime()
}
