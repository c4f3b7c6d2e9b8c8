package retry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// liveLog reads the execution's log again from the API the retry would go to: the guard
// decides on it, never on an export file (which anyone can edit) or a copy loaded minutes ago.
// Without it there is no send (a refusal). The answer must be the log of id, and of the call
// the person saw when they confirmed (the same tool, account and arguments, when both carry
// them): a log of another id is an error, another call a refusal; nothing is sent either way.
func liveLog(ctx context.Context, d *Deps, id string, seen *model.Execution) (model.Execution, *triage.GuardDecision, error) {
	refuse := func(why string) (model.Execution, *triage.GuardDecision, error) {
		return model.Execution{}, &triage.GuardDecision{Code: triage.RefusedNoLiveLog,
			Reason: "the live log of " + id + " could not be read from " + orNoSource(d.Target) + " (" + why + "): a file or an old copy " +
				"alone never allows a send",
			Next: triage.Say("check that the API is reachable and the execution is in its logs, then retry")}, nil
	}
	if d.Logs == nil {
		return refuse("this source has no Logs API")
	}
	live, err := d.Logs.GetLog(ctx, id)
	switch {
	case errors.Is(err, client.ErrOtherRecord):
		return model.Execution{}, nil, fmt.Errorf("retry %s: %w: %w (nothing recorded, nothing sent)", id, ErrOtherRecord, err)
	case err != nil:
		return refuse(err.Error())
	case live.ID != id:
		return model.Execution{}, nil, fmt.Errorf(
			"retry %s: %w: the live log answered is %q (nothing recorded, nothing sent)",
			id,
			ErrOtherRecord,
			live.ID,
		)
	}
	if why := otherCall(seen, &live); why != "" {
		return model.Execution{}, &triage.GuardDecision{Code: triage.RefusedNotAsSeen,
			Reason: "the live log of " + id + " in " + orNoSource(d.Target) + " has another " + why + " than the record confirmed (an " +
				"edited export, an old copy): the confirmation was given on other evidence",
			Next: triage.Say("look at the live log, then confirm again")}, nil
	}
	return live, nil, nil
}

// otherCall names what differs between the call a person saw and the live log's ("" when
// nothing does): the tool, the account, the user, the arguments; a field that one of the two
// does not carry (a list entry without detail) is not compared.
func otherCall(seen, live *model.Execution) string {
	switch {
	case seen.ToolSlug != "" && live.ToolSlug != "" && !strings.EqualFold(seen.ToolSlug, live.ToolSlug):
		return "tool"
	case seen.ConnectedAccountID != "" && live.ConnectedAccountID != "" && seen.ConnectedAccountID != live.ConnectedAccountID:
		return "connected account"
	case seen.UserID != "" && live.UserID != "" && seen.UserID != live.UserID:
		return "user"
	case len(seen.Arguments) > 0 && len(live.Arguments) > 0 && !bytes.Equal(seen.Arguments, live.Arguments) &&
		model.ArgumentHash(seen.Arguments, nil) != model.ArgumentHash(live.Arguments, nil):
		return "arguments"
	}
	return ""
}

// checkClaim checks the execution's attempts read back after a claim: a is among them as
// claimed (the same execution and call), and no other attempt holds the execution.
func checkClaim(all []model.RetryAttempt, a model.RetryAttempt) error {
	found := false
	for _, o := range all {
		if o.ID == a.ID {
			if o.ExecutionID != a.ExecutionID || o.ArgumentHash != a.ArgumentHash || !strings.EqualFold(o.ToolSlug, a.ToolSlug) {
				return fmt.Errorf("%w: the journal's attempt %s is of %s (%s)", ErrOtherRecord, a.ID, o.ExecutionID, o.ToolSlug)
			}
			found = true
			continue
		}
		if o.ExecutionID == a.ExecutionID && (o.State.Open() || o.State == model.AttemptSucceeded) { // the one-claim index's states
			return fmt.Errorf(
				"retry attempt %s of this execution is %s too: the journal let two claims in (its one-claim index may be missing): "+
					"resolve it first",
				o.ID,
				o.State,
			)
		}
	}
	if !found {
		return fmt.Errorf("the claimed attempt %s is not in the journal read back", a.ID)
	}
	return nil
}

// gather collects the evidence the guard decides on, fresh: the tool's kind, the outcome the
// execution's log shows, and the journal's attempts (including other processes') and verdicts.
// hash is e's callHash.
func gather(ctx context.Context, d *Deps, e *model.Execution, hash string) (Result, triage.GuardInput, error) {
	var res Result
	kind := model.KindWrite
	if d.Kinds != nil {
		kind = d.Kinds.Kind(e.ToolSlug)
	}
	if !e.IsToolExecution() { // a trigger delivery or an account event repeats nothing
		kind = model.KindRead
	}
	res.Kind = kind
	res.Outcome, res.OutcomeReason = triage.Classify(e, kind, d.Options)
	in := triage.GuardInput{Execution: e, Kind: kind, Outcome: res.Outcome, OutcomeReason: res.OutcomeReason, Now: d.now()}
	attempts, err := d.Journal.Attempts(ctx, e.ID)
	if err != nil {
		return res, in, fmt.Errorf("retry: %w", err)
	}
	verdicts, err := d.Journal.Verdicts(ctx, e.ID)
	if err != nil {
		return res, in, fmt.Errorf("retry: %w", err)
	}
	in.Attempts = attempts
	vs := make([]model.Verdict, len(verdicts))
	for i, v := range verdicts {
		vs[i] = v.Verdict
	}
	if i := triage.DecidingVerdict(vs); i >= 0 { // a stray ignored does not lift a block
		in.Verdict, in.VerdictBy, in.VerdictAt = verdicts[i].Verdict, verdicts[i].Who, verdicts[i].At
	}
	all, err := d.Journal.Attempts(ctx, "")
	if err != nil {
		return res, in, fmt.Errorf("retry: %w", err)
	}
	if err := madeBy(ctx, d, e, all, &in); err != nil {
		return res, in, fmt.Errorf("retry: %w", err)
	}
	in.SameCall = sameCall(e, hash, all)
	if triage.IsMetaTool(e.ToolSlug) {
		in.Children, in.ChildrenRead = children(ctx, d, e)
	}
	if in.MadeBy == nil && !in.MadeByShape && d.Logs != nil && kind.IsWrite() {
		in.RetriedIn = retriedElsewhere(ctx, d, e, hash, attempts)
	}
	return res, in, nil
}

// madeBy finds whether e was made by a retry this journal knows (its request id is an
// attempt's id, or it is an attempt's new log), or, failing that, carries a request id of
// exectriage's shape (a retry journaled elsewhere).
func madeBy(ctx context.Context, d *Deps, e *model.Execution, all []model.RetryAttempt, in *triage.GuardInput) error {
	if e.RequestID != "" {
		a, err := d.Journal.Attempt(ctx, e.RequestID)
		switch {
		case err == nil:
			in.MadeBy = &a
			return nil
		case !errors.Is(err, journal.ErrNotFound):
			return err
		}
	}
	for i := range all {
		if all[i].NewLogID != "" && all[i].NewLogID == e.ID {
			in.MadeBy = &all[i]
			return nil
		}
	}
	in.MadeByShape = IsAttemptID(e.RequestID)
	return nil
}

// callHash is the hash of e's arguments without the volatile keys: the call's identity in the
// journal.
func callHash(d *Deps, e *model.Execution) string {
	return model.ArgumentHash(e.Arguments, d.Options.WithDefaults().VolatileKeys)
}

// sameCall are the attempts among all that run e's call (its tool and canonical arguments,
// hash) on another execution.
func sameCall(e *model.Execution, hash string, all []model.RetryAttempt) []model.RetryAttempt {
	if len(e.Arguments) == 0 {
		return nil
	}
	var out []model.RetryAttempt
	for _, a := range all {
		if a.ExecutionID != e.ID && a.ArgumentHash == hash && strings.EqualFold(a.ToolSlug, e.ToolSlug) {
			out = append(out, a)
		}
	}
	return out
}

// children finds the runs a meta tool execution made: the logs that name it as their parent,
// from its start to a while after it ended, in its session when it had one. read is false when
// the logs could not be searched completely (no Logs API, an error, a walk cut short).
func children(ctx context.Context, d *Deps, e *model.Execution) (out []triage.ChildRun, read bool) {
	if d.Logs == nil || e.Timestamp.IsZero() {
		return nil, false
	}
	end, _ := e.End()
	q := client.LogQuery{From: e.Timestamp.Add(-clockSkew), To: end.Add(searchBefore)}
	if e.SessionID != "" {
		q.Filters = []client.LogFilter{{Field: "session_id", Value: e.SessionID}}
	}
	for page, err := range d.Logs.ListLogs(ctx, q) {
		if err != nil {
			return out, false
		}
		for i := range page.Executions {
			c := &page.Executions[i]
			if c.Parent == nil || c.Parent.LogID != e.ID || c.ID == e.ID {
				continue
			}
			kind := model.KindWrite
			if d.Kinds != nil {
				kind = d.Kinds.Kind(c.ToolSlug)
			}
			o, _ := triage.Classify(c, kind, d.Options)
			out = append(out, triage.ChildRun{ID: c.ID, Tool: c.ToolSlug, Kind: kind, Outcome: o})
		}
	}
	return out, true
}

// retriedElsewhere looks in the logs for a later run of the same call (tool, account,
// arguments) whose request id has exectriage's shape and is none of this journal's attempts:
// another exectriage, on another journal, retried e already. Best effort: a logs error says
// nothing either way.
func retriedElsewhere(ctx context.Context, d *Deps, e *model.Execution, hash string, attempts []model.RetryAttempt) string {
	whoField, who := callerOf(e)
	if who == "" || len(e.Arguments) == 0 || e.Timestamp.IsZero() {
		return ""
	}
	known := map[string]bool{}
	for _, a := range attempts {
		known[a.ID] = true
	}
	var found string
	var ev []string
	_, _ = sameCalls(ctx, d, e.ToolSlug, whoField, who, hash, e.Timestamp, e.ID, &ev, func(l model.Execution) bool {
		if IsAttemptID(l.RequestID) && !known[l.RequestID] {
			found = l.ID
			return false
		}
		return true
	})
	return found
}
