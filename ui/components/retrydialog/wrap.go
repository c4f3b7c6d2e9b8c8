package retrydialog

import "github.com/charmbracelet/x/ansi"

// wordwrap wraps at spaces where it can and hard-wraps words longer than w.
func wordwrap(s string, w int) string { return ansi.Wrap(s, w, "") }
