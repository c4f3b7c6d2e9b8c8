//go:build linux

package hugepage

import "syscall"

// madvHugepage is MADV_HUGEPAGE (linux/mman.h); package syscall does not name it.
const madvHugepage = 14

func advise(b []byte) {
	_ = syscall.Madvise(b, madvHugepage) // best effort: EINVAL without THP support, and so on
}
