package regularfile

import (
	"syscall"
	"time"
	"unsafe"
)

// Read reads the regular file at path whole into the buffer alloc returns
// for its size, unless the file is larger than limit: content is then nil
// and size and modTime say what was found. Like Open it never blocks on a
// FIFO and refuses anything but a regular file (a *NotRegularError); a
// file that ends early is ErrShrunk.
//
// It goes straight to the system calls: an *os.File registers with the
// runtime's poller (a failed epoll_ctl for a disk file) and carries a
// finalizer, which at 10,000 files is a noticeable part of reading them
// all (the index build reads every note this way). cpath, when not nil, is
// path followed by a NUL byte: the path is then handed to the kernel as it
// is, not copied into a new C string per file.
func Read(path string, cpath []byte, limit int64, alloc func(n int) []byte) (content []byte, size int64, modTime time.Time, err error) {
	const flags = syscall.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	fdcwd := -100 // AT_FDCWD, as syscall.Open passes (a variable: a negative constant does not convert to uintptr)
	var fd int
	for {
		if cpath != nil {
			r, _, errno := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(fdcwd), uintptr(unsafe.Pointer(&cpath[0])), flags|syscall.O_LARGEFILE, 0, 0, 0)
			fd, err = int(r), nil
			if errno != 0 {
				fd, err = -1, errno
			}
		} else {
			fd, err = syscall.Open(path, flags, 0)
		}
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := fstat(fd, &st); err != nil {
		return nil, 0, time.Time{}, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, 0, time.Time{}, &NotRegularError{Mode: modeType(st.Mode)}
	}
	size, modTime = st.Size, time.Unix(st.Mtim.Unix())
	if size > limit {
		return nil, size, modTime, nil
	}
	content = alloc(int(size))
	for n := 0; n < len(content); {
		m, err := syscall.Read(fd, content[n:])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, 0, time.Time{}, err
		case m == 0:
			return nil, 0, time.Time{}, ErrShrunk
		}
		n += m
	}
	return content, size, modTime, nil
}

func fstat(fd int, st *syscall.Stat_t) error {
	for {
		if err := syscall.Fstat(fd, st); err != syscall.EINTR {
			return err
		}
	}
}
