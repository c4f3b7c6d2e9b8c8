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
func Background() { lower(backgroundNice) }

// Foreground lowers the calling goroutine's thread less than Background (nice 5): for the one
// thread of a pipeline the rest waits for (the TUI's analysis, which the read and the parse
// run ahead of), which then takes a core before them while the interactive loop still comes
// first.
func Foreground() { lower(foregroundNice) }

func lower(nice int) {
	runtime.LockOSThread()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice)
}

const (
	backgroundNice = 10
	foregroundNice = 5
)
