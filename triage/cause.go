package triage

// Cause naming: what sent a duplicate group's members (an SDK's retry, a session's, an agent
// framework's, the agent re-sending in other words, the app, a double submit), told from the
// gaps, retry counts, sources and outcomes of its members, with a reason a person can act on.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sdkversion"
)

// sdkDelayBand is the range of the SDK's delay before retry n (0-based), with tolerance.
func sdkDelayBand(n int) (lo, hi time.Duration) {
	d := min(sdkBaseDelay<<n, sdkMaxDelay)
	return time.Duration(float64(d)*sdkMinJitter) - sdkTolerance, d + sdkTolerance
}

// sdkRetriable reports whether the SDK would have retried after this execution: a timeout, a
// connection error, 408/409/429 or 5xx, i.e. anything but a clean success or a definite 4xx.
func sdkRetriable(m member) bool {
	switch m.outcome {
	case model.OutcomeAmbiguous, model.OutcomeRejected:
		return true
	case model.OutcomeFailed:
		if m.e.Error == nil {
			return false
		}
		c := m.e.Error.HTTPStatus
		return m.e.Error.Kind == model.ErrConnection || c == 408 || c == 409 || c == 429 || c >= 500
	}
	return false
}

// patternOf names where a group came from:
//
//   - sdk_auto_retry: 2-3 attempts where the records carry the SDK's retry count 1, 2 in order;
//     or where each attempt after the first started within the SDK's backoff band after the
//     previous one ended or timed out (about 0.375-0.5 s, then 0.75-1 s, ±150 ms) and the
//     previous one ended in a way the SDK retries, with no record saying it was a first try;
//   - session_auto_retry: the same, when every attempt is a tool-router session execution;
//   - framework_retry: waits after a failed attempt that fit an agent framework's tool retry:
//     the policy of the framework the records name (frameworkPolicies: LangGraph's 0.5 s, then
//     1 s, plus up to 1 s of jitter), else LangChain's ToolRetryMiddleware's (about 1 s, then 2 s);
//   - double_submit: two starts closer than 1 s while the previous attempt was still running
//     or after it succeeded, attempts from different sessions or SDKs, an attempt after a
//     clean success (nothing to retry), or irregular waits;
//   - app_retry: after failures the caller saw, regular (or steadily growing) waits from the
//     same source.
//
// The reason ends with the fix (model.PatternFix). When only timing and text named the cause
// (no evidence tied to the attempts settles it), the other causes they do not rule out are
// returned too, and the reason says what else it could be and why (otherCauses).
func patternOf(ms []member, gaps []time.Duration, reworded bool, cc causeContext) (model.RetryPattern, string, []model.CauseCandidate) {
	p, reason, basis := patternAndReason(ms, gaps, reworded, cc)
	var others []model.CauseCandidate
	if basis != nil {
		others = otherCauses(p, basis.ms, basis.gaps, basis.reworded, cc.th)
	}
	if state, ok := sameApproval(ms); ok {
		reason = fmt.Sprintf("%d approved re-calls with one approval (request_state%s): the call a person approved once, sent %d times; %s",
			len(ms), quote(state), len(ms), reason)
	}
	reason += othersReason(others)
	if fix := model.PatternFix(p); fix != "" {
		reason += "; fix: " + fix
	}
	return p, reason, others
}

// sameApproval returns the request_state every member presented, when they all are re-calls
// of one approval.
func sameApproval(ms []member) (string, bool) {
	if ms[0].e.Approval == nil || ms[0].e.Approval.RequestState == "" {
		return "", false
	}
	st := ms[0].e.Approval.RequestState
	return st, sameField(ms, func(e *model.Execution) string {
		if e.Approval == nil {
			return ""
		}
		return e.Approval.RequestState
	})
}

// sdkPattern is sdk_auto_retry, or session_auto_retry when every member is a tool-router
// session execution (the same backoff, the path current SDKs still retry).
func sdkPattern(ms []member) (model.RetryPattern, string) {
	for _, m := range ms {
		if CallPath(m.e) != sdkversion.PathSession {
			return model.PatternSDKAutoRetry, "the SDK's own retry"
		}
	}
	return model.PatternSessionAutoRetry, "the SDK's own retry of a session write"
}

// frameworkPolicy is an agent framework's tool retry as its defaults wait after the failed
// attempt ended: before retry j, base·2^j times [low, high] (its jitter, and clocks), plus up to
// add (a jitter it adds), at most attempts in all. Data, one row per framework, as the SDK's
// backoff is known per version.
type frameworkPolicy struct {
	name      string // as a record's framework names it
	what      string // the mechanism, as a reason says it
	base      time.Duration
	low, high float64
	add       time.Duration
	attempts  int
	waits     string // its waits, as a reason says them
}

// frameworkPolicies: LangChain's ToolRetryMiddleware (initial 1 s, factor 2, jitter: about
// 1 s, then 2 s) is the band of a framework no record names; LangGraph's RetryPolicy (initial
// 0.5 s, factor 2, 3 attempts, up to 1 s of jitter added to each wait) applies where the
// attempts name LangGraph.
var frameworkPolicies = []frameworkPolicy{
	{name: "langchain", what: "LangChain's ToolRetryMiddleware", base: time.Second, low: 0.7, high: 1.6, attempts: 3,
		waits: "about 1 s, then 2 s"},
	{name: "langgraph", what: "LangGraph's RetryPolicy", base: 500 * time.Millisecond, low: 0.9, high: 1,
		add: 1200 * time.Millisecond, attempts: 3, waits: "0.5 s, then 1 s, each with up to 1 s of jitter"},
}

// frameworkPolicyOf is the policy of the framework the members name, or LangChain's for one no
// policy is known of.
func frameworkPolicyOf(ms []member) frameworkPolicy {
	name := strings.ToLower(ms[0].e.Source.Framework)
	for _, p := range frameworkPolicies {
		if p.name == name && sameField(ms, func(e *model.Execution) string { return strings.ToLower(e.Source.Framework) }) {
			return p
		}
	}
	return frameworkPolicies[0]
}

// frameworkFits reports whether each wait fits the framework's backoff after a failure (the
// policy of the framework the members name: frameworkPolicyOf).
func frameworkFits(ms []member, gaps []time.Duration) bool {
	p := frameworkPolicyOf(ms)
	if len(ms) > p.attempts || len(gaps) == 0 {
		return false
	}
	for j, g := range gaps {
		d := p.base << j
		if g < time.Duration(float64(d)*p.low) || g > time.Duration(float64(d)*p.high)+p.add ||
			ms[j].outcome == model.OutcomeSucceeded {
			return false
		}
	}
	return true
}

// causeBasis is what a cause was named from when timing and text alone named it: the members
// (a meta tool's runs, for its tools' groups), their gaps and whether their texts differ. The
// other causes are read from it (otherCauses).
type causeBasis struct {
	ms       []member
	gaps     []time.Duration
	reworded bool
}

// settledIf is nil (settled) when ok, else the basis the cause was named from.
func settledIf(ok bool, ms []member, gaps []time.Duration, reworded bool) *causeBasis {
	if ok {
		return nil
	}
	return &causeBasis{ms, gaps, reworded}
}

// sdkBandFits: at most the SDK's attempts, none recorded as a first try, none recorded with an
// SDK version that sends the call once on its path (OldSDK says nothing of a version that
// does), each after an outcome the SDK retries and within its backoff band.
func sdkBandFits(ms []member, gaps []time.Duration) bool {
	if len(ms) > sdkMaxAttempts || anyFirstTry(ms) {
		return false
	}
	for _, m := range ms {
		if m.e.SDKVersion != "" && OldSDK(m.e) == "" {
			return false
		}
	}
	for j, g := range gaps {
		lo, hi := sdkDelayBand(j)
		if g < lo || g > hi || !sdkRetriable(ms[j]) {
			return false
		}
	}
	return true
}

// patternAndReason names the group's cause (see patternOf) and says why; the basis is nil when
// evidence tied to the attempts named it (exectriage's attempt id, a re-sent meta tool's runs,
// trigger deliveries, one request id, the SDK's recorded retry counts, an SDK version recorded
// that re-sends on the path whose backoff the waits fit, attempts that overlapped or came from
// two sources), not timing and text alone.
func patternAndReason(ms []member, gaps []time.Duration, reworded bool, cc causeContext) (model.RetryPattern, string, *causeBasis) {
	n := len(ms)
	for j, m := range ms[1:] { // exectriage's own retry: its request id is an attempt id
		if model.IsAttemptID(m.e.RequestID) {
			return model.PatternExectriageRetry, fmt.Sprintf(
				"%d attempts: attempt %d is exectriage's guarded retry (request id %s, an attempt id), sent %s after a person confirmed "+
					"the first failed, not a retry by the caller",
				n,
				j+2,
				m.e.RequestID,
				model.GapAmount(gaps[j]),
			), nil
		}
	}
	if parents, pgaps, ok := resentParents(ms, cc); ok { // the tools of a meta tool sent again: named from its runs
		inner := cc
		inner.runs, inner.rewritten = nil, ""                           // the runs themselves are no meta tool's children
		p, why, basis := patternAndReason(parents, pgaps, false, inner) // alternatives of the runs' timing
		return p, metaReason(ms, parents, why), basis
	}
	if event, dls, ok := redelivered(ms, cc.deliveries); ok { // each write by the handler of its own delivery of one event
		if atOnce(dls) { // delivered to two endpoints at once, not again
			return model.PatternDuplicateSubscription, subscriptionReason(ms, gaps, event, dls), nil
		}
		return model.PatternTriggerRedelivery, redeliveryReason(ms, gaps, event, dls), nil
	}
	if id, ok := sameRequestID(ms); ok { // the strongest evidence there is: one call, sent again
		p, _ := sdkPattern(ms)
		return p, fmt.Sprintf(
			"%d attempts %s with one request id, %s: one call re-sent by the SDK, which kept the x-request-id of the call it retried "+
				"(the legacy Python SDK does)%s",
			n,
			gapList(gaps, "after the previous"),
			id,
			sdkNote(ms),
		), nil
	}
	if reworded { // an SDK, a framework or a loop sends the same bytes; an LLM writes anew
		return model.PatternAgentRetry, agentReason(ms, gaps, cc.rewritten), &causeBasis{ms, gaps, true}
	}
	sdk := sdkNote(ms)
	if n <= sdkMaxAttempts && retryCountsSay(ms) {
		p, what := sdkPattern(ms)
		return p, fmt.Sprintf("%d attempts %s, recorded as SDK retries %s: %s%s",
			n, gapList(gaps, "after the previous"), retryCounts(ms), what, sdk), nil
	}
	if sdkBandFits(ms, gaps) {
		p, what := sdkPattern(ms)
		return p, fmt.Sprintf("%d attempts %s %s: %s%s",
			n, gapList(gaps, ""), afterEach(ms[:n-1]), what, sdk), settledIf(recordedRetrying(ms), ms, gaps, false)
	}
	if n > sdkMaxAttempts { // a storm: rounds of an inner retry, repeated by an outer loop
		if p, reason, ok := storm(ms, gaps, cc); ok {
			return p, reason, &causeBasis{ms, gaps, false}
		}
	}
	if frameworkFits(ms, gaps) {
		fw := ""
		if f := ms[0].e.Source.Framework; f != "" {
			fw = " (framework " + f + ")"
		}
		if p := frameworkPolicyOf(ms); p.name == strings.ToLower(ms[0].e.Source.Framework) {
			fw = " (" + p.what + ", as the records name " + ms[0].e.Source.Framework + ")"
		}
		return model.PatternFrameworkRetry, fmt.Sprintf(
				"%d attempts %s a failure: an agent framework's tool retry%s",
				n,
				gapList(gaps, "after"),
				fw,
			), &causeBasis{
				ms,
				gaps,
				false,
			}
	}
	for j := 1; j < n; j++ {
		startGap := ms[j].e.Start().Sub(ms[j-1].e.Start())
		if gaps[j-1] < 0 { // the caller of the first was still waiting for its answer: not its retry
			var basis *causeBasis
			if startGap >= cc.th.NearSimultaneous { // unless its own timeout was shorter than the one assumed
				basis = &causeBasis{ms, gaps, false}
			}
			return model.PatternDoubleSubmit, fmt.Sprintf(
				"%d attempts, one started %s after the previous one started, while it was still running (overlap %s): a double submit (a "+
					"second click or a second worker)",
				n,
				model.GapAmount(startGap),
				model.GapAmount(gaps[j-1]),
			), basis
		}
		if startGap < cc.th.NearSimultaneous && !sdkRetriable(ms[j-1]) {
			return model.PatternDoubleSubmit, fmt.Sprintf(
					"%d attempts, one started %s after the previous one started, which needed no retry: a double submit (a second click "+
						"or a second worker)",
					n,
					model.GapAmount(startGap),
				), &causeBasis{
					ms,
					gaps,
					false,
				}
		}
	}
	if a, b, ok := differentSources(ms); ok {
		return model.PatternDoubleSubmit, fmt.Sprintf(
			"%d attempts from different sources (%s, %s): a double submit (two clients or two workers)",
			n,
			a,
			b,
		), nil
	}
	for j := 0; j < n-1; j++ {
		if ms[j].outcome == model.OutcomeSucceeded {
			return model.PatternDoubleSubmit, fmt.Sprintf(
					"%d attempts, one %s after the previous succeeded: resubmitted (a second click or a second worker), not a retry",
					n,
					model.GapAmount(gaps[j]),
				), &causeBasis{
					ms,
					gaps,
					false,
				}
		}
	}
	if irregular(gaps, cc.th.IrregularRatio) {
		basis := &causeBasis{ms, gaps, false}
		if slices.Min(gaps) < personMinWait { // sooner than a hand: a program's random waits
			return model.PatternAppRetry, fmt.Sprintf("%d attempts at irregular intervals (%s after the previous ended), one sooner "+
				"than a person reads an error and sends again: a retry loop with random waits (jittered backoff), same source",
				n, gapList(gaps, "")), basis
		}
		return model.PatternDoubleSubmit, fmt.Sprintf(
			"%d attempts at irregular intervals (%s after the previous ended): submitted by hand or by more than one worker",
			n, gapList(gaps, "")), basis
	}
	return model.PatternAppRetry, appReason(ms, gaps, cc), &causeBasis{ms, gaps, false}
}

// appReason says which of the application's mechanisms re-sent the call: a wait past the
// grouping's window is no loop's that holds the call in memory (only an unclear attempt's same
// bytes join that late): a queue redelivering the job after its visibility timeout, or a
// scheduler running it again; three or more attempts at one cadence are a schedule's.
func appReason(ms []member, gaps []time.Duration, cc causeContext) string {
	n := len(ms)
	what := "the application's own retry loop"
	if cc.window > 0 && slices.Max(gaps) > cc.window {
		what = "the application re-sent it past any in-process retry loop's wait: a queue redelivering the job after its visibility " +
			"timeout, or a scheduled job run again"
		if n >= 3 && !irregular(gaps, 1.05) {
			what = "the application re-sent it at a fixed cadence: a scheduled job run again (or a queue redelivering it after each " +
				"visibility timeout)"
		}
	}
	return fmt.Sprintf("%d attempts %s, same source: %s", n, gapList(gaps, "after the previous ended"), what)
}

// stormSplit is the least wait between two rounds of a storm: longer than any inner retry's
// (an SDK's backoff, a framework's 1 s then 2 s).
const stormSplit = 8 * time.Second

// storm names a long run of attempts (more than one retry policy makes) that falls into rounds
// at least stormSplit apart, each round an inner retry of one kind (an SDK's, a framework's):
// the innermost cause, with the outer loop that ran the rounds noted.
func storm(ms []member, gaps []time.Duration, cc causeContext) (model.RetryPattern, string, bool) {
	var rounds [][2]int // [from, to) in ms
	from := 0
	for j, g := range gaps {
		if g >= stormSplit {
			rounds = append(rounds, [2]int{from, j + 1})
			from = j + 1
		}
	}
	rounds = append(rounds, [2]int{from, len(ms)})
	var inner model.RetryPattern
	var first string
	bursts := 0
	for _, r := range rounds {
		if r[1]-r[0] < 2 {
			continue // a round of one: the call went through at once
		}
		rm, rg := ms[r[0]:r[1]], gaps[r[0]:r[1]-1]
		if len(rm) > sdkMaxAttempts {
			return "", "", false
		}
		p, why, _ := patternAndReason(rm, rg, false, causeContext{timeout: cc.timeout, th: cc.th})
		if p != model.PatternSDKAutoRetry && p != model.PatternSessionAutoRetry && p != model.PatternFrameworkRetry ||
			inner != "" && p != inner {
			return "", "", false
		}
		if inner == "" {
			inner, first = p, why
		}
		bursts++
	}
	if bursts < 2 || len(rounds) < 2 {
		return "", "", false
	}
	var outer []time.Duration
	for _, r := range rounds[1:] {
		outer = append(outer, gaps[r[0]-1])
	}
	return inner, fmt.Sprintf(
		"%d attempts in %d rounds (%s): a retry storm; inside each round %s; the rounds themselves are an outer loop (the application, "+
			"or a job, retrying the whole call)",
		len(ms),
		len(rounds),
		gapList(outer, "apart"),
		first,
	), true
}

// agentReason explains an agent_retry group: what the agent saw before calling again, and what
// says the call was written anew (another tool, another route, an identifying argument in
// another form: rewritten, or the text).
func agentReason(ms []member, gaps []time.Duration, rewritten string) string {
	n := len(ms)
	saw := afterEach(ms[:n-1]) // reworded texts join only after attempts that did not succeed
	where := ""
	switch {
	case sameField(ms, func(e *model.Execution) string { return e.SessionID }):
		where = ", in one session"
	case sameField(ms, func(e *model.Execution) string { return e.TraceID }):
		where = ", in one trace"
	}
	fw := ""
	if f := ms[0].e.Source.Framework; f != "" {
		fw = " (framework " + f + ")"
	}
	if mixedTools(ms) {
		var tools []string
		for _, m := range ms {
			if t := strings.ToUpper(m.e.ToolSlug); len(tools) == 0 || tools[len(tools)-1] != t {
				tools = append(tools, t)
			}
		}
		return fmt.Sprintf("%d attempts %s %s%s: the agent sent the message again through another tool (%s)%s",
			n, gapList(gaps, ""), saw, where, strings.Join(tools, ", then "), fw)
	}
	if rerouted(ms) {
		routes := make([]string, 0, n)
		for _, m := range ms {
			r := cmp.Or(route(m.e), "directly")
			if r != "directly" {
				r = "through " + r
			}
			if len(routes) == 0 || routes[len(routes)-1] != r {
				routes = append(routes, r)
			}
		}
		return fmt.Sprintf("%d attempts %s %s%s: the agent called the tool again by another route (%s)%s",
			n, gapList(gaps, ""), saw, where, strings.Join(routes, ", then "), fw)
	}
	if rewritten != "" {
		return fmt.Sprintf("%d attempts %s %s%s, an argument written in another form (%s), as a model writes a call anew "+
			"and a program does not: the agent called the tool again%s", n, gapList(gaps, ""), saw, where, rewritten, fw)
	}
	return fmt.Sprintf("%d attempts %s %s, the text regenerated each time%s: the agent called the tool again%s",
		n, gapList(gaps, ""), saw, where, fw)
}

// sameRequestID reports the request id every member carries, when they all carry the same
// one: the SDK sent one call again (an x-request-id names one call). Children of one meta-tool
// call share their parent's request id without being re-sent, so they do not count.
func sameRequestID(ms []member) (string, bool) {
	if !sameField(ms, func(e *model.Execution) string { return e.RequestID }) {
		return "", false
	}
	if sameField(ms, func(e *model.Execution) string {
		if e.Parent == nil {
			return ""
		}
		return e.Parent.LogID
	}) {
		return "", false
	}
	return ms[0].e.RequestID, true
}

// sameField: every member has the same non-empty value.
func sameField(ms []member, f func(*model.Execution) string) bool {
	v := f(ms[0].e)
	if v == "" {
		return false
	}
	for _, m := range ms[1:] {
		if f(m.e) != v {
			return false
		}
	}
	return true
}

// retryCountsSay reports whether the records carry the SDK's retry counters 0/1/2 in sequence
// with at least one retry (a first member with an unknown count is fine: the first try may be
// logged without the header).
func retryCountsSay(ms []member) bool {
	seen := false
	for j, m := range ms {
		rc := m.e.RetryCount
		switch {
		case rc < 0 && j == 0:
		case rc != j:
			return false
		case rc > 0:
			seen = true
		}
	}
	return seen
}

// anyFirstTry: a later member recorded with retry count 0 is a fresh call, not an SDK retry.
func anyFirstTry(ms []member) bool {
	for _, m := range ms[1:] {
		if m.e.RetryCount == 0 {
			return true
		}
	}
	return false
}

func retryCounts(ms []member) string {
	var b strings.Builder
	for _, m := range ms[1:] {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, m.e.RetryCount)
	}
	return b.String()
}

// differentSources: two members with different recorded sessions, SDK languages or versions.
func differentSources(ms []member) (string, string, bool) {
	for j := 1; j < len(ms); j++ {
		a, b := ms[0].e, ms[j].e
		switch {
		case a.SessionID != "" && b.SessionID != "" && a.SessionID != b.SessionID:
			return "session " + a.SessionID, "session " + b.SessionID, true
		case a.Source.Language != "" && b.Source.Language != "" && !strings.EqualFold(a.Source.Language, b.Source.Language):
			return a.Source.Language, b.Source.Language, true
		case a.SDKVersion != "" && b.SDKVersion != "" && a.SDKVersion != b.SDKVersion:
			return "SDK " + a.SDKVersion, "SDK " + b.SDKVersion, true
		}
	}
	return "", "", false
}

// irregular: consecutive waits (previous end to next start) that differ by more than
// irregularRatio without growing steadily (an exponential backoff grows, a person's clicks
// jump around). Waits, not start-to-start spacings: a retry loop waits a fixed time after a
// failure however long the failed attempt took.
func irregular(starts []time.Duration, ratio float64) bool {
	if len(starts) == 1 {
		return starts[0] < 0 // sent again before the answer: only an overlap is irregular alone
	}
	growing := true
	for j := 1; j < len(starts); j++ {
		if starts[j] < starts[j-1] {
			growing = false
		}
	}
	for j := 1; j < len(starts); j++ {
		a, b := float64(starts[j-1]), float64(starts[j])
		if a <= 0 || b <= 0 {
			return true
		}
		r := max(a, b) / min(a, b)
		if r > ratio && !(growing && r <= 2*ratio) {
			return true
		}
	}
	return false
}

func afterEach(prev []member) string {
	what := ""
	for _, m := range prev {
		w := failureWord(m)
		if what == "" {
			what = w
		} else if what != w {
			what = "failure"
		}
	}
	if len(prev) == 1 {
		return "after a " + what
	}
	return "after each " + what
}

func failureWord(m member) string {
	e := m.e
	switch {
	case e.Error != nil && (e.Error.Kind == model.ErrTimeout || e.Error.HTTPStatus == 408):
		return "timeout"
	case e.Error != nil && (e.Error.HTTPStatus >= 500 || e.Error.Kind == model.ErrUpstream5xx):
		return "5xx"
	case e.Error != nil && (e.Error.HTTPStatus == 429 || e.Error.Kind == model.ErrRateLimited):
		return "429"
	case e.Error != nil && e.Error.Kind == model.ErrConnection:
		return "dropped connection"
	case m.outcome == model.OutcomeAmbiguous:
		return "timeout"
	}
	return "failure"
}

// recordedRetrying: a member records an SDK version that re-sends the call on its path, so the
// backoff it fits is known to be that SDK's code, not a loop that happens to wait as long.
func recordedRetrying(ms []member) bool {
	for _, m := range ms {
		if OldSDK(m.e) != "" {
			return true
		}
	}
	return false
}

func sdkNote(ms []member) string {
	for _, m := range ms {
		if m.e.SDKVersion == "" {
			continue
		}
		if sdk, _, ok := sdkversion.FromRecord(m.e.Source.Language); ok {
			return " (" + sdk.Name + " " + m.e.SDKVersion + ")"
		}
		return " (SDK " + m.e.SDKVersion + ")"
	}
	return ""
}

// gapList renders "0.45 s" / "0.45 s and 0.91 s" / "30.0 s, 60.0 s and 120.0 s".
func gapList(gaps []time.Duration, suffix string) string {
	parts := make([]string, len(gaps))
	for i, g := range gaps {
		parts[i] = model.GapAmount(g)
		if g < 0 {
			parts[i] = "-" + parts[i] // overlap: started before the previous ended
		}
	}
	s := parts[0]
	if len(parts) > 1 {
		s = strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	if suffix != "" {
		s += " " + suffix
	}
	return s
}

// FillEffective sets each group's Effective from provider states keyed by execution id: the
// number of distinct provider objects matched by the members' checks, at most the group's
// size. Only a check of the oldest member covers every member's effect (a verifier matches
// effects at or after the execution's start), so a group whose oldest member has no known
// state keeps -1. A not_found oldest member with no other matches gives 0.
func FillEffective(groups []model.DuplicateGroup, states map[string]model.ProviderState) {
	for gi := range groups {
		g := &groups[gi]
		if len(g.ExecutionIDs) == 0 {
			continue
		}
		st, ok := states[g.ExecutionIDs[0]]
		if !ok || (st.State != model.ProviderFound && st.State != model.ProviderNotFound) {
			g.Effective = -1
			continue
		}
		ids := map[string]bool{}
		anon := 0
		for _, id := range g.ExecutionIDs {
			s, ok := states[id]
			if !ok || s.State != model.ProviderFound {
				continue
			}
			for _, m := range s.Matches {
				if m.ID == "" {
					anon = max(anon, 1)
					continue
				}
				ids[m.ID] = true
			}
			if len(s.Matches) == 0 {
				anon = max(anon, 1)
			}
		}
		n := len(ids)
		n = cmp.Or(n, anon)
		g.Effective = min(n, len(g.ExecutionIDs))
	}
}
