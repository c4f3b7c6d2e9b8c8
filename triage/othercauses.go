package triage

// Other causes. A group's cause is the likeliest of the causes its evidence does not rule out.
// Evidence tied to the attempts settles it (patternAndReason's basis is nil); timing and text alone
// do not: a burst that fits an SDK's backoff may be an app's loop that waits about as long, a
// repeat of the same bytes from an agent's session may be the agent calling again. Each cause
// has a signature, checked here on its own, independently of the order in which
// patternAndReason tries them; the causes whose signature the group fits, other than the one
// named, are its other candidates, each with why it fits.

import (
	"fmt"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// maxOtherCauses bounds the candidates listed beside the cause.
const maxOtherCauses = 3

// agentMinWait is the least wait before an agent's re-send: the model reads the error and
// writes a new call, which takes seconds, never the SDK's sub-second backoff.
const agentMinWait = time.Second

// personMinWait is the least wait of a person who sees an error and sends again: reading it and
// acting takes a second or more. Irregular waits with one shorter come from a program (a retry
// loop whose waits are drawn at random), not from a hand.
const personMinWait = time.Second

// otherCauses returns the causes other than chosen whose signatures the members fit, most
// specific first.
func otherCauses(chosen model.RetryPattern, ms []member, gaps []time.Duration, reworded bool, th Thresholds) []model.CauseCandidate {
	var out []model.CauseCandidate
	add := func(p model.RetryPattern, why string) {
		if p != chosen && len(out) < maxOtherCauses {
			out = append(out, model.CauseCandidate{Cause: p, Why: why})
		}
	}
	if why, ok := sdkSignature(ms, gaps, reworded); ok {
		p, _ := sdkPattern(ms)
		add(p, why)
	}
	if !reworded && frameworkFits(ms, gaps) {
		fp := frameworkPolicyOf(ms)
		add(
			model.PatternFrameworkRetry,
			fmt.Sprintf("waits of %s after a failure fit an agent framework's tool retry (%s: %s)", gapList(gaps, ""), fp.what, fp.waits),
		)
	}
	if why, ok := agentSignature(ms, gaps, reworded); ok {
		add(model.PatternAgentRetry, why)
	}
	if why, ok := appSignature(ms, gaps, reworded); ok {
		add(model.PatternAppRetry, why)
	}
	if why, ok := doubleSubmitSignature(ms, gaps, th); ok {
		add(model.PatternDoubleSubmit, why)
	}
	return out
}

// sdkSignature: the same bytes, and the SDK's band fits (sdkBandFits: ruled out when a member's
// recorded SDK version sends the call once on its path).
func sdkSignature(ms []member, gaps []time.Duration, reworded bool) (string, bool) {
	if reworded || !sdkBandFits(ms, gaps) {
		return "", false
	}
	return fmt.Sprintf("waits of %s %s fit the SDK's backoff", gapList(gaps, ""), afterEach(ms[:len(ms)-1])), true
}

// agentSignature: each re-send after an attempt that did not succeed, seconds later, and a
// sign of an agent: the text regenerated, or the calls made in one session or under a framework.
func agentSignature(ms []member, gaps []time.Duration, reworded bool) (string, bool) {
	for j, g := range gaps {
		if g < agentMinWait || ms[j].outcome == model.OutcomeSucceeded {
			return "", false
		}
	}
	switch {
	case reworded:
		return "the text changed between attempts, as a model regenerating its arguments writes it", true
	case sameField(ms, func(e *model.Execution) string { return e.SessionID }):
		return "sent again in one agent session " + afterEach(ms[:len(ms)-1]) + ": a model may call a tool again with the same arguments",
			true
	case ms[0].e.Source.Framework != "":
		return "sent through " + ms[0].e.Source.Framework + " " + afterEach(ms[:len(ms)-1]) + ": a model may call a tool again with the " +
			"same arguments", true
	}
	return "", false
}

// appSignature: the same bytes from one source, each re-send after a failure the caller saw
// (not while the previous attempt still ran).
func appSignature(ms []member, gaps []time.Duration, reworded bool) (string, bool) {
	if reworded || mixedTools(ms) || rerouted(ms) {
		return "", false
	}
	if _, _, two := differentSources(ms); two {
		return "", false
	}
	for j, m := range ms[:len(ms)-1] {
		if m.outcome == model.OutcomeSucceeded || gaps[j] < 0 { // nothing to retry, or not yet known
			return "", false
		}
	}
	return "the same bytes sent again from one source " + afterEach(ms[:len(ms)-1]) + ", as an application's retry loop sends them", true
}

// doubleSubmitSignature: a second start within a second of the previous, a send after a
// success (nothing to retry) or irregular waits (a person, or more than one worker).
func doubleSubmitSignature(ms []member, gaps []time.Duration, th Thresholds) (string, bool) {
	for j := 1; j < len(ms); j++ {
		if gaps[j-1] < 0 {
			return fmt.Sprintf("one started while the previous was still running (overlap %s), before its caller had an answer",
				model.GapAmount(gaps[j-1])), true
		}
		if d := ms[j].e.Start().Sub(ms[j-1].e.Start()); d < th.NearSimultaneous {
			return fmt.Sprintf(
				"one started %s after the previous one started, as a second click or a second worker does",
				model.GapAmount(d),
			), true
		}
		if ms[j-1].outcome == model.OutcomeSucceeded {
			return fmt.Sprintf(
				"one was sent %s after the previous succeeded, when there was nothing to retry",
				model.GapAmount(gaps[j-1]),
			), true
		}
	}
	if irregular(gaps, th.IrregularRatio) {
		return fmt.Sprintf("the waits (%s) are irregular, as a person's or several workers' are", gapList(gaps, "")), true
	}
	return "", false
}

// othersReason is what the reason says of the other candidates: "; it could also be X (why)".
func othersReason(others []model.CauseCandidate) string {
	if len(others) == 0 {
		return ""
	}
	parts := make([]string, len(others))
	for i, c := range others {
		parts[i] = fmt.Sprintf("%s (%s)", c.Cause, c.Why)
	}
	return "; timing alone does not settle it: it could also be " + strings.Join(parts, ", or ")
}
