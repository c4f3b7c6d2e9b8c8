package retrydialog

import "github.com/exectriage/exectriage/ui/common"

// wordwrap wraps at spaces where it can and hard-wraps words longer than w.
func wordwrap(s string, w int) string { return common.Wrap(s, w) }
