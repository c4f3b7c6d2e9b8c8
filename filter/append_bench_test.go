package filter

import (
	"fmt"
	"testing"
)

// BenchmarkAppendFields is the cost of indexing one row as a load adds it (the TUI's builder
// adds every record of an export this way).
func BenchmarkAppendFields(b *testing.B) {
	rows := make([]Fields, 4096)
	for i := range rows {
		rows[i] = Fields{Tool: "GMAIL_SEND_EMAIL", Toolkit: "gmail", User: fmt.Sprintf("user_%d", i%997),
			Account: fmt.Sprintf("ca_%012x", i*7919), ID: fmt.Sprintf("log_%012d", i), RequestID: fmt.Sprintf("req_%08x-%04x", i, i%65536),
			Error: "Request timed out after 30s while waiting for the upstream provider", Status: "failed", Outcome: "ambiguous", Kind: "write"}
	}
	ix := NewIndex(0)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		ix.AppendFields(rows[i%len(rows)])
		i++
	}
}
