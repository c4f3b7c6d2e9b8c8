package cli

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// maxHeld bounds what a heldWriter keeps while held; the rest is counted.
const maxHeld = 64 << 10

// heldWriter is stderr for a full-screen program: writes pass through until Hold; while held
// they are kept (up to maxHeld), since a line written behind the program lands inside its
// frame and stays there; Release writes what was kept once the terminal is the shell's again.
type heldWriter struct {
	mu      sync.Mutex
	w       io.Writer
	held    bool
	buf     bytes.Buffer
	dropped int
}

func (h *heldWriter) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.held {
		return h.w.Write(p)
	}
	if room := maxHeld - h.buf.Len(); room < len(p) {
		h.buf.Write(p[:max(0, room)])
		h.dropped += len(p) - max(0, room)
		return len(p), nil
	}
	return h.buf.Write(p)
}

// Hold keeps every write from now on until Release.
func (h *heldWriter) Hold() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held = true
}

// Release writes what was kept and passes writes through again.
func (h *heldWriter) Release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held = false
	h.w.Write(h.buf.Bytes())
	if h.dropped > 0 {
		if b := h.buf.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
			h.w.Write([]byte("\n"))
		}
		fmt.Fprintf(h.w, "exectriage: %d more bytes of messages from while the TUI ran were dropped\n", h.dropped)
	}
	h.buf.Reset()
	h.dropped = 0
}
