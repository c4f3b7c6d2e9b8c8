// Package common is what every ui component shares: the styles, the key map and the clock
// (soft-serve's common.Common), plus the small text helpers that keep every line exactly as
// wide as its pane: fitting, padding, boxes with titles, and human formats for times and
// durations.
package common

import (
	"time"

	"github.com/exectriage/exectriage/ui/keys"
	"github.com/exectriage/exectriage/ui/styles"
)

// Common is embedded by components: shared, read-only after start.
type Common struct {
	Styles *styles.Styles
	Keys   *keys.KeyMap
	// Now is the clock (injectable so tests and goldens are deterministic).
	Now func() time.Time
}

// Component is what every pane and dialog satisfies besides its own Update.
type Component interface {
	View() string
	SetSize(width, height int)
}
