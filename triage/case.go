package triage

import "github.com/exectriage/exectriage/model"

// CaseOf is the journal's state of one execution from its verdicts (newest first), its retry
// attempts (any order) and, when it is exectriage's retry of another execution, that one's id:
// the one rule every front (scan, list, show, bundle, the TUI) reads the journal by.
func CaseOf(verdicts []model.Verdict, attempts []model.RetryAttempt, retryOf string) *model.Case {
	if len(verdicts) == 0 && len(attempts) == 0 && retryOf == "" {
		return nil
	}
	c := &model.Case{RetryOf: retryOf}
	if i := DecidingVerdict(verdicts); i >= 0 {
		c.Verdict = verdicts[i]
	}
	if len(attempts) > 0 {
		newest := attempts[0]
		for _, a := range attempts[1:] {
			if a.CreatedAt.After(newest.CreatedAt) {
				newest = a
			}
		}
		c.Retry, c.RetryLog = newest.State, newest.NewLogID
	}
	switch c.Verdict {
	case model.VerdictConfirmedSucceeded, model.VerdictDuplicate, model.VerdictIgnored:
		c.Settled = true
	}
	// confirmed_failed does not settle: the action is still to be done, until a retry of it
	// takes effect.
	c.Settled = c.Settled || c.Retry == model.AttemptSucceeded
	return c
}

// ApplyCase gives t the journal's case of its execution (nil: none): a settled case no longer
// needs a person, so it is not flagged.
func ApplyCase(t *model.Triage, c *model.Case) {
	t.Case = c
	if c != nil && c.Settled {
		t.Flagged = false
	}
}
