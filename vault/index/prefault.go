package index

import "unsafe"

// prefaultAll is prefault for the whole backing array of s (up to its
// capacity), for the large arrays a build makes and fills at once.
func prefaultAll[T any](s []T) {
	if cap(s) == 0 {
		return
	}
	var zero T
	s = s[:cap(s)]
	prefault(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(zero)))
}
