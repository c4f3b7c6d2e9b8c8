package cli

import (
	"testing"
)

// TestNewCmdSandbox: sandbox's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdSandbox(t *testing.T) {
	newCmdTable(t, NewCmdSandbox, []argvCase[SandboxOptions]{
		{argv: "--addr 127.0.0.1:0 --seed 7 --size 500 --rate-limit 60/min --lenient", want: func(o *SandboxOptions) string {
			return differs("Addr", o.Addr, "127.0.0.1:0", "Seed", o.Seed, int64(7), "Size", o.Size, 500, "RateLimit", o.RateLimit, "60/min", "Lenient", o.Lenient, true)
		}},
		{argv: "--cursor x", wantErr: "want keyset or page"},
		{argv: "--rate-limit 0/min", wantErr: "want N/min"},
		{argv: "--edge-limit 5/s --edge-block 0s", wantErr: "--edge-block must be positive"},
		{argv: "--edge-limit 5/s", want: func(o *SandboxOptions) string { return differs("edge", o.edge, 5, "rate", o.rate, 0) }},
		{argv: "extra", wantErr: "unexpected argument"},
	})
}
