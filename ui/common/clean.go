package common

import "github.com/exectriage/exectriage/sanitize"

// Clean makes a string from data safe for one line of a pane (package sanitize: controls,
// escape sequences, bidi overrides and line breaks show as visible escapes, never act).
func Clean(s string) string { return sanitize.String(s) }

// CleanBlock is Clean for multi-line text: line breaks are kept, everything else as Clean.
func CleanBlock(s string) string { return sanitize.Block(s, 0) }
