package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO, a device and a file over the cap are refused at once; a small regular file is read.
func TestReadRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 100), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, []byte("2026-03-01T10:00:00Z\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := Read(fifo, 64); !errors.Is(err, ErrNotRegular) {
			t.Errorf("FIFO: %v", err)
		}
		if _, err := Read(zero, 64); !errors.Is(err, ErrNotRegular) {
			t.Errorf("/dev/zero: %v", err)
		}
		if _, err := Read(big, 64); !errors.Is(err, ErrTooLarge) {
			t.Errorf("over the cap: %v", err)
		}
		if b, err := Read(ok, 64); err != nil || string(b) != "2026-03-01T10:00:00Z\n" {
			t.Errorf("a small file: %q %v", b, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Read hung")
	}
}
