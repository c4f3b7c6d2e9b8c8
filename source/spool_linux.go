package source

import (
	"os"

	"golang.org/x/sys/unix"
)

// openSpool opens an unnamed file in the temp directory (O_TMPFILE): it has no name at any
// moment, so a process killed at any instant leaves nothing behind. ok is false when the file
// system cannot make one (the caller then creates a named file and removes its name).
func openSpool() (f *os.File, ok bool) {
	dir := os.TempDir()
	fd, err := unix.Open(dir, unix.O_RDWR|unix.O_TMPFILE|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, false
	}
	return os.NewFile(uintptr(fd), dir+"/(unnamed exectriage export spool)"), true
}
