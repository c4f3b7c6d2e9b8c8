package triage

import "github.com/exectriage/exectriage/model"

// The guard reads a person's verdicts this way: confirmed_succeeded and duplicate block any
// retry; confirmed_failed is the one verdict that lifts an earlier block (the person checked
// again and says it did not happen); ignored changes nothing, so a stray `ignored` recorded
// after a `duplicate` does not lift it.

// DecidingVerdict returns the index, in verdicts ordered newest first, of the verdict the
// guard goes by: the newest one that is not ignored, else the newest (an ignored, which
// blocks nothing); -1 when there is none.
func DecidingVerdict(verdicts []model.Verdict) int {
	for i, v := range verdicts {
		if v != model.VerdictIgnored {
			return i
		}
	}
	if len(verdicts) > 0 {
		return 0
	}
	return -1
}

// VerdictsFor are the verdicts that make sense for an execution, in the dialog's order: a read
// can only be ignored (nothing is retried or duplicated); a write that succeeded cleanly can
// be confirmed as succeeded or ignored; one whose outcome needs a person (ambiguous,
// rejected, failed) can also be confirmed failed; duplicate only for a member of a duplicate
// group.
func VerdictsFor(kind model.ToolKind, outcome model.Outcome, inGroup bool) []model.Verdict {
	if !kind.IsWrite() {
		return []model.Verdict{model.VerdictIgnored}
	}
	var out []model.Verdict
	if outcome != model.OutcomeSucceeded {
		out = append(out, model.VerdictConfirmedFailed)
	}
	out = append(out, model.VerdictConfirmedSucceeded)
	if inGroup {
		out = append(out, model.VerdictDuplicate)
	}
	return append(out, model.VerdictIgnored)
}

// VerdictEffect says, in one line, what recording v changes about what the guard allows,
// given the verdict the guard went by before ("" for none).
func VerdictEffect(v, before model.Verdict) string {
	blocks := func(x model.Verdict) bool {
		return x == model.VerdictConfirmedSucceeded || x == model.VerdictDuplicate
	}
	switch {
	case blocks(v) && blocks(before):
		return "retries stay refused (it was " + string(before) + ")"
	case blocks(v):
		return "retries of it are now refused"
	case v == model.VerdictConfirmedFailed && blocks(before):
		return "lifts the earlier " + string(before) + ": a retry is allowed again once the provider check and a typed confirmation pass"
	case v == model.VerdictConfirmedFailed:
		return "a retry still needs the provider check and a typed confirmation"
	case before != "":
		return "changes nothing the guard allows: it still goes by " + string(before)
	}
	return "changes nothing the guard allows"
}
