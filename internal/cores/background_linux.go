package cores

import (
	"runtime"
	"syscall"
)

// Background lowers the OS priority of the calling goroutine's thread (nice 10) for the rest
// of the goroutine's life, so that when the cores are short the threads of an interactive
// loop run first; when they are not, it changes nothing. The goroutine keeps its thread, which
// ends with it: a thread's niceness cannot be given back without privileges, so it never
// returns to the pool.
func Background() {
	runtime.LockOSThread()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), backgroundNice)
}

const backgroundNice = 10
