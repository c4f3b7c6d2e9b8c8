package ui

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/exectriage/exectriage/bundle"
)

// Bundle renders a support bundle (package bundle: secrets redacted, controls escaped) and
// writes it, mode 0600, to the bundle directory.
func (b *backend) Bundle(ctx context.Context, items []bundle.Item) (string, string, error) {
	if len(items) == 0 {
		return "", "", fmt.Errorf("nothing to bundle")
	}
	in := bundle.Input{Items: items, GeneratedAt: b.now().UTC(), Source: b.src.Name(), Version: b.version, Redactor: b.redactor}
	if b.j == nil {
		in.HistoryNote = "no journal was open"
	}
	var buf bytes.Buffer
	if err := bundle.Render(&buf, in); err != nil {
		return "", "", err
	}
	ids := make([]string, len(items))
	for i := range items {
		ids[i] = items[i].Exec.ID
	}
	path := b.bundlePath(ids)
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		return "", "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, buf.String(), nil
}
