package triage

import (
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

func TestOwnRetries(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	found := func(times ...time.Duration) model.ProviderState {
		ps := model.ProviderState{State: model.ProviderFound, Reason: "found email"}
		for i, d := range times {
			m := model.EvidenceItem{ID: "m" + string(rune('1'+i))}
			if d >= 0 {
				m.Time = at(d)
			}
			ps.Matches = append(ps.Matches, m)
		}
		return ps
	}
	att := func(id string, st model.AttemptState, sent time.Duration) model.RetryAttempt {
		return model.RetryAttempt{ID: id, State: st, CreatedAt: at(sent - time.Second), SentAt: at(sent)}
	}
	minute := time.Minute
	tests := []struct {
		name   string
		ps     model.ProviderState
		atts   []model.RetryAttempt
		state  model.ProviderStateKind
		own    []string // the attempt each match is marked with, in order
		reason string   // a part of the reason
	}{
		{"no retry", found(minute), nil, model.ProviderFound, []string{""}, "found email"},
		{"a failed retry made nothing", found(10 * minute), []model.RetryAttempt{att("a1", model.AttemptFailed, 5*minute)}, model.ProviderFound, []string{""}, "found email"},
		{"an intent sent nothing", found(10 * minute), []model.RetryAttempt{att("a1", model.AttemptIntent, 5*minute)}, model.ProviderFound, []string{""}, "found email"},
		{"the retry's email only", found(5*minute + 2*time.Second), []model.RetryAttempt{att("a1", model.AttemptSucceeded, 5*minute)}, model.ProviderNotFound, []string{"a1"}, "only the retry's effect: m1 is the retry's own (attempt a1"},
		{"a provider clock a little behind", found(5*minute - 3*time.Second), []model.RetryAttempt{att("a1", model.AttemptSucceeded, 5*minute)}, model.ProviderNotFound, []string{"a1"}, "attempt a1"},
		{"the original's email before the retry", found(time.Minute), []model.RetryAttempt{att("a1", model.AttemptSucceeded, 5*minute)}, model.ProviderFound, []string{""}, "found email"},
		{"both: the original's stays found", found(time.Minute, 5*minute+time.Second), []model.RetryAttempt{att("a1", model.AttemptSucceeded, 5*minute)}, model.ProviderFound, []string{"", "a1"}, "of these, m2 is the retry's own"},
		{"two after one retry: one is not its own", found(5*minute+time.Second, 6*minute), []model.RetryAttempt{att("a1", model.AttemptSucceeded, 5*minute)}, model.ProviderFound, []string{"a1", ""}, "of these, m1"},
		{"two retries, two emails", found(5*minute+time.Second, 9*minute+time.Second), []model.RetryAttempt{att("a2", model.AttemptSucceeded, 9*minute), att("a1", model.AttemptSucceeded, 5*minute)}, model.ProviderNotFound, []string{"a1", "a2"}, "attempt a2"},
		{"a retry not yet known", found(5*minute + time.Second), []model.RetryAttempt{att("a1", model.AttemptIndeterminate, 5*minute)}, model.ProviderUnknown, []string{"a1"}, "resolve the attempt"},
		{"a retry sent, answer pending", found(5*minute + time.Second), []model.RetryAttempt{att("a1", model.AttemptSent, 5*minute)}, model.ProviderUnknown, []string{"a1"}, "most likely the retry's"},
		{"no time to tell by", found(-1), []model.RetryAttempt{att("a1", model.AttemptSucceeded, 5*minute)}, model.ProviderFound, []string{""}, "this may be its effect, not the original's"},
		{"not found stays", model.ProviderState{State: model.ProviderNotFound, Reason: "no email"}, []model.RetryAttempt{att("a1", model.AttemptSucceeded, 5*minute)}, model.ProviderNotFound, nil, "no email"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := append([]model.EvidenceItem(nil), tt.ps.Matches...)
			got := OwnRetries(tt.ps, tt.atts)
			if got.State != tt.state || !strings.Contains(got.Reason, tt.reason) {
				t.Errorf("state %s %q; want %s containing %q", got.State, got.Reason, tt.state, tt.reason)
			}
			if len(got.Matches) != len(tt.own) {
				t.Fatalf("%d matches, want %d", len(got.Matches), len(tt.own))
			}
			for i, m := range got.Matches {
				if m.RetryAttempt != tt.own[i] {
					t.Errorf("match %s marked %q, want %q", m.ID, m.RetryAttempt, tt.own[i])
				}
			}
			for i := range before {
				if tt.ps.Matches[i] != before[i] {
					t.Error("OwnRetries changed its argument's matches")
				}
			}
		})
	}
}
