package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra/doc"
)

// manDate is the date the man pages carry: fixed, so that regenerating them changes nothing
// unless the commands did.
func manDate() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }

// WriteManPages writes one man page per command into dir (section 1), from the command tree
// Run uses.
func WriteManPages(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	root := NewRootCmd(OSEnv())
	root.DisableAutoGenTag = true
	date := manDate()
	hdr := &doc.GenManHeader{Title: "EXECTRIAGE", Section: "1", Date: &date, Source: "exectriage " + Version, Manual: "exectriage manual"}
	if err := doc.GenManTree(root, hdr, dir); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	return nil
}
