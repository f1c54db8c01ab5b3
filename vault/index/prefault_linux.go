package index

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// prefault asks the kernel to map the whole pages of b now, in one system
// call (MADV_POPULATE_WRITE), rather than one page fault at a time as they
// are first written. Page faults are dear on a virtual machine, where a
// first write to a fresh page can cost 20 µs and more, and a cold build
// writes some 15,000 fresh pages per 10,000 notes; docs/performance.md
// ("Fresh pages") gives what it saves a build in a fresh process. The
// contents are kept, and pages already mapped are left as they are. It is
// only advice: a kernel older than 5.14 refuses it, and the pages are then
// faulted in as before.
func prefault(b []byte) {
	page := syscall.Getpagesize()
	addr := int(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	if skip := (page - addr%page) % page; skip < len(b) {
		b = b[skip:]
		if n := len(b) &^ (page - 1); n > 0 {
			_ = unix.Madvise(b[:n], unix.MADV_POPULATE_WRITE)
		}
	}
}
