package cores

import "syscall"

// niceness is the calling thread's nice value (-100 when it cannot be read).
func niceness() int {
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
	if err != nil {
		return -100
	}
	return 20 - p // the raw syscall gives 20 - nice
}
