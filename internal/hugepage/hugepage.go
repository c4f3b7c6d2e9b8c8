// Package hugepage asks the kernel to back one large allocation with transparent huge pages.
// Filling half a gigabyte of fresh memory 4 KiB at a time costs a page fault per page, which
// on a virtual machine can take longer than the work itself (exectriage scan of a million
// executions spent more time faulting in its slice of executions than parsing them); with
// huge pages it is one fault per 2 MiB, and fewer TLB misses after. Linux only, best effort:
// elsewhere, or when the kernel refuses, nothing changes.
package hugepage

import "unsafe"

// Advise marks the memory of s's backing array (up to its capacity) for huge pages. Call it
// right after making a large slice, before writing to it.
func Advise[T any](s []T) {
	var zero T
	n := uintptr(cap(s)) * unsafe.Sizeof(zero)
	if n < minBytes {
		return
	}
	advise(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s[:cap(s)]))), n))
}

// minBytes is the smallest allocation worth it: several huge pages.
const minBytes = 8 << 20
