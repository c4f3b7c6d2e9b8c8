package triage

import (
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

func TestCheckRetry(t *testing.T) {
	at := time.Date(2026, 3, 4, 14, 2, 11, 0, time.UTC)
	exec := &model.Execution{ID: "log_abc", ToolSlug: "GMAIL_SEND_EMAIL", Status: model.StatusFailed,
		Arguments: []byte(`{"recipient_email":"bob@example.com","subject":"Invoice"}`)}
	notFound := model.ProviderState{State: model.ProviderNotFound, Reason: "no sent message to bob@example.com matches"}
	found := model.ProviderState{State: model.ProviderFound, Reason: "a sent message matches",
		Matches: []model.EvidenceItem{{ID: "18c2f9a7b3d4e5f6", Time: at}}}
	unknown := model.ProviderState{State: model.ProviderUnknown, Reason: "no verifier for GMAIL_SEND_EMAIL"}
	attempt := func(state model.AttemptState) []model.RetryAttempt {
		return []model.RetryAttempt{
			{ID: "old-failed", State: model.AttemptFailed, CreatedAt: at},
			{ID: "att-1", State: state, Who: "ana@host", CreatedAt: at, SentAt: at.Add(time.Second), NewLogID: "log_new"},
		}
	}
	// ok is the evidence of a retry that may go ahead; each case changes one thing.
	ok := GuardInput{Execution: exec, Kind: model.KindWrite, Outcome: model.OutcomeAmbiguous,
		OutcomeReason: "timeout after 60.0 s", Provider: notFound, Confirmed: true, Reason: "customer saw no email"}
	with := func(f func(*GuardInput)) GuardInput { in := ok; f(&in); return in }

	cases := []struct {
		name  string
		in    GuardInput
		code  RefusalCode // "" = allowed
		words []string    // must appear in Reason + Next
	}{
		{"ambiguous write, provider not found, confirmed", ok, "", []string{"provider not_found", "send once"}},
		{"failed write", with(func(in *GuardInput) { in.Outcome = model.OutcomeFailed }), "", nil},
		{"rejected write", with(func(in *GuardInput) { in.Outcome = model.OutcomeRejected }), "", nil},
		{"idempotent write", with(func(in *GuardInput) { in.Kind = model.KindIdempotentWrite }), "", nil},
		{"provider unknown is allowed with a warning", with(func(in *GuardInput) { in.Provider = unknown }), "",
			[]string{"confirmation is the only evidence"}},
		{"a failed earlier attempt does not block", with(func(in *GuardInput) { in.Attempts = attempt(model.AttemptFailed) }), "", nil},
		{"ignored verdict does not block", with(func(in *GuardInput) { in.Verdict = model.VerdictIgnored }), "", nil},
		{"a meta tool run", with(func(in *GuardInput) {
			e := *exec
			e.ToolSlug = "COMPOSIO_MULTI_EXECUTE_TOOL"
			in.Execution, in.ChildrenRead = &e, true
			in.Children = []ChildRun{{ID: "log_c1", Tool: "GMAIL_SEND_EMAIL", Kind: model.KindWrite, Outcome: model.OutcomeFailed}}
		}), RefusedMetaTool, []string{"run every child again", "exectriage retry log_c1"}},
		{"a settled attempt of the same call does not block", with(func(in *GuardInput) {
			in.SameCall = []model.RetryAttempt{{ID: "other-1", ExecutionID: "log_other", State: model.AttemptFailed}}
		}), "", nil},
		{"an open attempt of the same call on another execution", with(func(in *GuardInput) {
			in.SameCall = []model.RetryAttempt{{ID: "other-1", ExecutionID: "log_other", State: model.AttemptFailed},
				{ID: "other-2", ExecutionID: "log_other", State: model.AttemptIndeterminate}}
		}), RefusedSameCallOpen, []string{"other-2 of log_other runs the same call", "exectriage resolve other-2"}},

		{"read", with(func(in *GuardInput) { in.Kind = model.KindRead }), RefusedNotWrite,
			[]string{"GMAIL_SEND_EMAIL is a read", "run the read again directly"}},
		{"unknown kind", with(func(in *GuardInput) { in.Kind = "" }), RefusedNotWrite, nil},
		{"succeeded execution", with(func(in *GuardInput) { in.Outcome = model.OutcomeSucceeded; in.OutcomeReason = "succeeded in 0.2 s" }),
			RefusedOutcome, []string{"succeeded: succeeded in 0.2 s", "exectriage verify log_abc"}},
		{"no outcome", with(func(in *GuardInput) { in.Outcome = "" }), RefusedOutcome, []string{"exectriage show log_abc"}},
		{"log says success although the caller timed out",
			with(func(in *GuardInput) {
				e := *exec
				e.Status = model.StatusSuccess
				in.Execution = &e
			}), RefusedLogSuccess, []string{"records success", "mark log_abc confirmed_succeeded"}},
		{"log says ok (the classifier's vocabulary: ok, completed, succeeded)",
			with(func(in *GuardInput) {
				e := *exec
				e.Status = "Completed"
				in.Execution = &e
			}), RefusedLogSuccess, []string{"records success"}},
		{"arguments not loaded", with(func(in *GuardInput) {
			e := *exec
			e.Arguments, e.Detailed = nil, false
			in.Execution = &e
		}), RefusedNoArguments, []string{"not loaded", "exectriage show log_abc"}},
		{"a detail without arguments (Don't store data)", with(func(in *GuardInput) {
			e := *exec
			e.Arguments, e.Detailed = nil, true
			in.Execution = &e
		}), RefusedNoArguments, []string{"Don't store data", "repeat the call from its source"}},
		{"attempt intent", with(func(in *GuardInput) { in.Attempts = attempt(model.AttemptIntent) }), RefusedAttemptOpen,
			[]string{"att-1 is in flight", "ana@host", "resolve att-1"}},
		{"attempt sent", with(func(in *GuardInput) { in.Attempts = attempt(model.AttemptSent) }), RefusedAttemptOpen,
			[]string{"in flight (sent at 2026-03-04 14:02:12Z"}},
		{"attempt indeterminate", with(func(in *GuardInput) { in.Attempts = attempt(model.AttemptIndeterminate) }), RefusedIndeterminate,
			[]string{"indeterminate", "exectriage resolve att-1", "never retry over it"}},
		{"attempt succeeded", with(func(in *GuardInput) { in.Attempts = attempt(model.AttemptSucceeded) }), RefusedAttemptSucceeded,
			[]string{"already succeeded", "new log log_new", "do not retry"}},
		{"open attempt wins over provider found and no confirmation",
			with(func(in *GuardInput) {
				in.Attempts = attempt(model.AttemptIndeterminate)
				in.Provider = found
				in.Confirmed = false
			}), RefusedIndeterminate, nil},
		{"confirmed_succeeded verdict", with(func(in *GuardInput) {
			in.Verdict, in.VerdictBy, in.VerdictAt = model.VerdictConfirmedSucceeded, "bo@host", at
		}), RefusedVerdict, []string{"bo@host marked this execution confirmed_succeeded", "mark log_abc confirmed_failed"}},
		{"duplicate verdict", with(func(in *GuardInput) { in.Verdict = model.VerdictDuplicate }), RefusedVerdict, []string{"someone marked"}},
		{"provider found, even when confirmed", with(func(in *GuardInput) { in.Provider = found }), RefusedProviderFound,
			[]string{"provider shows the effect (18c2f9a7b3… at 2026-03-04 14:02:11Z)", "do not retry", "mark log_abc confirmed_succeeded", "fresh"}},
		{"provider not checked", with(func(in *GuardInput) { in.Provider = model.ProviderState{} }), RefusedProviderNotRun,
			[]string{"exectriage verify log_abc"}},
		{"no confirmation", with(func(in *GuardInput) { in.Confirmed = false }), RefusedNotConfirmed,
			[]string{"no one has confirmed", "timeout after 60.0 s", "provider not_found", "--confirm-failed --reason"}},
		{"confirmation without reason", with(func(in *GuardInput) { in.Reason = "   " }), RefusedNoReason, []string{"--reason TEXT"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := CheckRetry(tc.in)
			if d.Allowed != (tc.code == "") || d.Code != tc.code {
				t.Fatalf("decision %+v, want code %q", d, tc.code)
			}
			if d.Reason == "" || d.Next.IsZero() {
				t.Fatalf("a decision must say why and what to do next: %+v", d)
			}
			text := d.Reason + " | " + d.Next.Shell()
			if strings.Contains(d.Next.Say, "exectriage ") {
				t.Errorf("the step's words write a command themselves (each front writes its own): %q", d.Next.Say)
			}
			for _, w := range tc.words {
				if !strings.Contains(text, w) {
					t.Errorf("%q does not mention %q", text, w)
				}
			}
		})
	}
}

// Every combination of evidence that the guard allows must satisfy the design's rules: a
// write, a non-success outcome, no open or succeeded attempt, no blocking verdict, no provider
// effect, and a confirmation with a reason.
func TestCheckRetryAllowsOnlyWhatTheDesignAllows(t *testing.T) {
	kinds := []model.ToolKind{model.KindRead, model.KindWrite, model.KindIdempotentWrite, ""}
	outcomes := []model.Outcome{model.OutcomeSucceeded, model.OutcomeFailed, model.OutcomeRejected, model.OutcomeAmbiguous, ""}
	providers := []model.ProviderStateKind{model.ProviderFound, model.ProviderNotFound, model.ProviderUnknown, ""}
	states := []model.AttemptState{"", model.AttemptIntent, model.AttemptSent, model.AttemptIndeterminate, model.AttemptSucceeded, model.AttemptFailed}
	verdicts := []model.Verdict{"", model.VerdictConfirmedFailed, model.VerdictConfirmedSucceeded, model.VerdictDuplicate, model.VerdictIgnored}
	statuses := []string{model.StatusFailed, model.StatusSuccess, ""}
	args := []byte(`{"a":1}`)
	n := 0
	for _, k := range kinds {
		for _, o := range outcomes {
			for _, p := range providers {
				for _, s := range states {
					for _, v := range verdicts {
						for _, st := range statuses {
							for _, confirmed := range []bool{false, true} {
								in := GuardInput{Execution: &model.Execution{ID: "x", Status: st, Arguments: args}, Kind: k, Outcome: o,
									Provider: model.ProviderState{State: p}, Verdict: v, Confirmed: confirmed, Reason: "r"}
								if s != "" {
									in.Attempts = []model.RetryAttempt{{ID: "a", State: s}}
								}
								d := CheckRetry(in)
								want := k.IsWrite() && o != model.OutcomeSucceeded && o != "" && st != model.StatusSuccess &&
									(p == model.ProviderNotFound || p == model.ProviderUnknown) &&
									(s == "" || s == model.AttemptFailed) &&
									v != model.VerdictConfirmedSucceeded && v != model.VerdictDuplicate && confirmed
								if d.Allowed != want {
									t.Fatalf("%+v (attempt %q): allowed=%v, want %v (%s)", in, s, d.Allowed, want, d.Reason)
								}
								n++
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d combinations checked", n)
}
