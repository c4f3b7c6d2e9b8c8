// Package perfbench holds the benchmarks that cross packages: what the TUI keeps resident for
// a million executions (compact rows, the filter index, the triage summary and the source's
// offsets), measured with runtime.MemStats. It has no code of its own.
package perfbench
