package triage

import (
	"slices"
	"testing"

	"github.com/exectriage/exectriage/model"
)

func TestDecidingVerdict(t *testing.T) {
	const (
		failed    = model.VerdictConfirmedFailed
		succeeded = model.VerdictConfirmedSucceeded
		dup       = model.VerdictDuplicate
		ignored   = model.VerdictIgnored
	)
	tests := []struct {
		newestFirst []model.Verdict
		want        int
	}{
		{nil, -1},
		{[]model.Verdict{ignored}, 0},
		{[]model.Verdict{ignored, dup}, 1},                // a stray ignored does not lift a duplicate
		{[]model.Verdict{ignored, ignored, succeeded}, 2}, // nor a confirmed success
		{[]model.Verdict{failed, dup}, 0},                 // a confirmed failure does, explicitly
		{[]model.Verdict{dup, failed}, 0},
	}
	for _, tt := range tests {
		if got := DecidingVerdict(tt.newestFirst); got != tt.want {
			t.Errorf("DecidingVerdict(%v) = %d, want %d", tt.newestFirst, got, tt.want)
		}
	}
}

func TestVerdictsFor(t *testing.T) {
	tests := []struct {
		kind    model.ToolKind
		outcome model.Outcome
		group   bool
		want    []model.Verdict
	}{
		{model.KindRead, model.OutcomeSucceeded, false, []model.Verdict{model.VerdictIgnored}},
		{model.KindRead, model.OutcomeFailed, true, []model.Verdict{model.VerdictIgnored}},
		{model.KindWrite, model.OutcomeSucceeded, false, []model.Verdict{model.VerdictConfirmedSucceeded, model.VerdictIgnored}},
		{model.KindWrite, model.OutcomeAmbiguous, false, []model.Verdict{model.VerdictConfirmedFailed, model.VerdictConfirmedSucceeded, model.VerdictIgnored}},
		{model.KindWrite, model.OutcomeAmbiguous, true, []model.Verdict{model.VerdictConfirmedFailed, model.VerdictConfirmedSucceeded, model.VerdictDuplicate, model.VerdictIgnored}},
		{model.KindIdempotentWrite, model.OutcomeRejected, false, []model.Verdict{model.VerdictConfirmedFailed, model.VerdictConfirmedSucceeded, model.VerdictIgnored}},
	}
	for _, tt := range tests {
		if got := VerdictsFor(tt.kind, tt.outcome, tt.group); !slices.Equal(got, tt.want) {
			t.Errorf("VerdictsFor(%s, %s, %v) = %v, want %v", tt.kind, tt.outcome, tt.group, got, tt.want)
		}
	}
}
