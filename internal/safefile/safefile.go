// Package safefile reads the small files exectriage keeps or is pointed at (the demo's anchor,
// the config, the Composio CLI's login) the way it reads an export: regular files only, never
// more than a cap. A state directory is writable by whoever got the user's shell once; a FIFO
// there must not hang a command (its open would block until a writer came, and ^C cannot
// interrupt it), and a link to /dev/zero must not fill the memory.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ErrNotRegular is wrapped by Read's error for a FIFO, a device, a socket or a directory.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by Read's error for a file over the cap.
var ErrTooLarge = errors.New("larger than exectriage reads for it")

// Read returns the contents of the regular file at path, at most max bytes. The file is
// opened without blocking (O_NONBLOCK: a FIFO opens at once) and checked on the open file
// descriptor, so a file swapped for a FIFO or a device between a check and the read is refused
// too; it reads at most max+1 bytes, so a file that grows while read cannot run on.
func Read(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%v)", path, ErrNotRegular, st.Mode().Type())
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s: %w (%d bytes, at most %d)", path, ErrTooLarge, st.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w (more than %d bytes)", path, ErrTooLarge, max)
	}
	return b, nil
}
