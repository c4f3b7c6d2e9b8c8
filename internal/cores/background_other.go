//go:build !linux

package cores

// Background does nothing where threads have no priority of their own to lower.
func Background() {}

// Foreground does nothing where threads have no priority of their own to lower.
func Foreground() {}
