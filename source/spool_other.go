//go:build !linux

package source

import "os"

// openSpool: only Linux makes unnamed files; elsewhere the caller names one and removes the name.
func openSpool() (*os.File, bool) { return nil, false }
