//go:build unix

package journal

import (
	"errors"
	"syscall"
)

// signalAlive asks the kernel whether pid exists (signal 0 delivers nothing).
func signalAlive(pid int) (alive, known bool) {
	err := syscall.Kill(pid, 0)
	switch {
	case err == nil, errors.Is(err, syscall.EPERM):
		return true, true
	case errors.Is(err, syscall.ESRCH):
		return false, true
	}
	return false, false
}
