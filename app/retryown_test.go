package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// After a guarded retry in the demo, checking the original finds the retry's own email: it is
// marked as the retry's (attempt id), the original reads as not found (only the retry's effect
// exists), and the world's clock is the journal's: the email is dated within the attempt's send
// (it read as "the original went through", dated a minute before the retry).
func TestTheOriginalsCheckAfterARetryNamesTheRetrysOwn(t *testing.T) {
	ctx := context.Background()
	a, j := demoSession(t)
	l, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var full model.Execution
	var ps model.ProviderState
	for i := range l.Execs {
		if !l.Result.Triage[i].Flagged || l.Execs[i].ToolSlug != "GMAIL_SEND_EMAIL" {
			continue
		}
		f, err := a.Record(ctx, l.Execs[i].ID)
		if err != nil {
			continue
		}
		if st := a.Verify(ctx, &f); st.State == model.ProviderNotFound {
			full, ps = f, st
			break
		}
	}
	if full.ID == "" {
		t.Fatal("no flagged Gmail send without an effect in the demo")
	}
	out := a.RetryConfirmed(ctx, full, ps, "the customer saw nothing")
	if out.State != model.AttemptSucceeded {
		t.Fatalf("the retry: %+v", out)
	}
	att, err := FindAttempt(ctx, j, out.AttemptID)
	if err != nil {
		t.Fatal(err)
	}

	again := a.Verify(ctx, &full)
	if again.State != model.ProviderNotFound || len(again.Matches) != 1 {
		t.Fatalf("the original after its retry: %s %q, %d matches; want not_found with the retry's email", again.State, again.Reason, len(again.Matches))
	}
	m := again.Matches[0]
	if m.RetryAttempt != att.ID || !strings.Contains(again.Reason, "the retry's own (attempt "+att.ID) {
		t.Errorf("the match %+v is not named the retry's own in %q", m, again.Reason)
	}
	if m.Time.Before(att.SentAt.Add(-time.Second)) || m.Time.After(att.FinishedAt.Add(time.Second)) {
		t.Errorf("the retry's email is dated %s, its send ran %s to %s: the world's clock is not the journal's",
			m.Time.Format(time.RFC3339Nano), att.SentAt.Format(time.RFC3339Nano), att.FinishedAt.Format(time.RFC3339Nano))
	}

	// the retry's own execution finds the same email as its effect
	nl, err := a.Record(ctx, out.NewLogID)
	if err != nil {
		t.Fatal(err)
	}
	if own := a.Verify(ctx, &nl); own.State != model.ProviderFound || len(own.Matches) != 1 || own.Matches[0].RetryAttempt != "" {
		t.Errorf("the retry's own log: %s %q %+v", own.State, own.Reason, own.Matches)
	}
}
