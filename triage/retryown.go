package triage

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// RetrySkew is how far before a retry's send a provider object may be dated and still be the
// retry's own: the provider's clock and this machine's disagree by a little.
const RetrySkew = 5 * time.Second

// OwnRetries tells the effects of an execution's guarded retries apart from the original's in a
// provider check of the original: the original's re-check after a retry would find the
// retry's own email and read as "the original went through".
//
// A retry that was sent (succeeded, or sent and not yet known) made at most one effect, dated at
// or after its send. Each such retry claims the first unclaimed match dated from its send on;
// the claimed matches are marked as the retry's own. What is left decides the original:
//   - a match left over: found, as before (its reason names the retry's own);
//   - none left, every claiming retry succeeded: not found: only the retries' effects exist;
//   - none left, a claiming retry is still unknown: unknown (the match is most likely the
//     retry's, but only resolving the attempt settles it).
//
// Matches without a time (an object "in the requested state", a deleted one) cannot be told
// apart: the state stays and the reason says a retry was sent that may have made it.
func OwnRetries(ps model.ProviderState, atts []model.RetryAttempt) model.ProviderState {
	type sent struct {
		at time.Time
		a  model.RetryAttempt
	}
	var retries []sent
	for _, a := range atts {
		if a.State != model.AttemptSucceeded && a.State != model.AttemptSent && a.State != model.AttemptIndeterminate {
			continue // an intent sent nothing; a failed retry made nothing
		}
		at := a.SentAt
		if at.IsZero() {
			at = a.CreatedAt
		}
		retries = append(retries, sent{at, a})
	}
	if len(retries) == 0 || ps.State != model.ProviderFound || len(ps.Matches) == 0 {
		return ps
	}
	slices.SortStableFunc(retries, func(x, y sent) int { return x.at.Compare(y.at) })
	out := ps
	out.Matches = slices.Clone(ps.Matches)
	claimed := make([]bool, len(out.Matches))
	var own []string
	allSucceeded := true
	timeless := false
	for _, r := range retries {
		for i, m := range out.Matches {
			if m.Time.IsZero() {
				timeless = true
				continue
			}
			if claimed[i] || m.Time.Before(r.at.Add(-RetrySkew)) {
				continue
			}
			claimed[i] = true
			out.Matches[i].RetryAttempt = r.a.ID
			own = append(own, fmt.Sprintf("%s is the retry's own (attempt %s, sent %s)", m.ID, r.a.ID, model.When(r.at)))
			if r.a.State != model.AttemptSucceeded {
				allSucceeded = false
			}
			break
		}
	}
	if len(own) == 0 {
		if timeless {
			r := retries[len(retries)-1]
			out.Reason = fmt.Sprintf("%s; a retry of this execution was sent %s (attempt %s): this may be its effect, not the original's",
				ps.Reason, model.When(r.at), r.a.ID)
		}
		return out
	}
	left := 0
	for _, c := range claimed {
		if !c {
			left++
		}
	}
	switch {
	case left > 0:
		out.Reason = fmt.Sprintf("%s; of these, %s", ps.Reason, strings.Join(own, "; "))
	case allSucceeded:
		out.State = model.ProviderNotFound
		out.Reason = fmt.Sprintf("only the retry's effect: %s; nothing of the original's own", strings.Join(own, "; "))
	default:
		out.State = model.ProviderUnknown
		out.Reason = fmt.Sprintf(
			"the effect found is most likely the retry's: %s; resolve the attempt to settle it",
			strings.Join(own, "; "),
		)
	}
	return out
}

// OwnRetriesUnread is the provider state when the journal's attempts could not be read (err):
// the state stays, and its reason says a retry's own effect could not be told apart.
func OwnRetriesUnread(ps model.ProviderState, err error) model.ProviderState {
	ps.Reason += fmt.Sprintf(" (the journal could not be read to tell a retry's own effect apart: %v)", err)
	return ps
}
