package sandbox

import (
	"fmt"
	"time"

	"github.com/exectriage/exectriage/model"
)

// The duplicate scenarios the history is made of: an SDK's re-send burst, a session's, a
// framework's retry, an application's, a double submit, a rate-limit burst.

func (g *generator) newGroup() string {
	g.groups++
	return fmt.Sprintf("grp_%04d", g.groups)
}

// sdkBurst: an old SDK re-sends a write that timed out (or got a 5xx): 2-3 attempts, the
// next starting 0.4-0.5 s and then 0.75-1.0 s after the previous one ended, retry counts
// 0, 1, 2, one session, a fresh request id each.
func (g *generator) sdkBurst() int {
	u, a, tool := g.pickWrite(nil, true)
	if tool == nil {
		return 0
	}
	prof := u.profile
	if !prof.autoRetries {
		prof = g.profileOf(2 + g.r.IntN(2))
	}
	n, start, args, key, ok := g.burstStart(tool, a)
	if !ok {
		return 0
	}
	byTimeout := g.chance(0.75)
	session := pick(g, u.sessions)
	for i := range n {
		p := g.newPlan(u, a, tool, args, start, prof, CaseSDKAutoRetry)
		p.session, p.retryCount, p.groupKey, p.pattern = session, i, key, model.PatternSDKAutoRetry
		if i < n-1 {
			switch {
			case byTimeout && g.chance(0.6):
				g.setOutcome(p, outTimeoutCommitted)
			case byTimeout:
				g.setOutcome(p, outTimeoutUncommitted)
			case g.chance(0.5):
				g.setOutcome(p, out5xxAfter)
			default:
				g.setOutcome(p, out5xxBefore)
			}
		}
		start = p.start.Add(p.dur + g.sdkBackoff(i))
	}
	return n
}

// burstStart draws what every repeated-call scenario starts with: 2-3 attempts, the first
// one's start (15 minutes from the window's end at the latest), its arguments and a new group
// key; ok is false when the tool has no arguments for the account.
func (g *generator) burstStart(tool *toolDef, a *account) (n int, start time.Time, args *argSet, key string, ok bool) {
	n = 2 + g.r.IntN(2)
	start = g.randTime(15 * time.Minute)
	if args = g.argsFor(tool, a, start); args == nil {
		return 0, start, nil, "", false
	}
	return n, start, args, g.newGroup(), true
}

// sdkBackoff is the SDKs' wait before their retry after attempt i (0-based): about 0.4-0.5 s,
// then 0.75-1 s, as @composio/core's client measures in the real-SDK test.
// Both draws are made for i > 0, as the seeded histories were generated.
func (g *generator) sdkBackoff(i int) time.Duration {
	gap := g.between(400*time.Millisecond, 500*time.Millisecond)
	if i > 0 {
		gap = g.between(750*time.Millisecond, 1000*time.Millisecond)
	}
	return gap
}

// sessionBurst: a current SDK (TypeScript 0.21, Python 0.2x: fixed for tools.execute, not for
// sessions) re-sends a tool-router session write that timed out or got a 5xx: 2-3 attempts
// with the SDK's backoff, all with the session's context.session_id, and no retry count (the
// new clients send none).
func (g *generator) sessionBurst() int {
	u, a, tool := g.pickWrite(nil, true)
	if tool == nil {
		return 0
	}
	prof := clientProfile{
		host:       "sdk",
		language:   "typescript",
		framework:  pick(g, g.p.frameworksTS),
		sdkVersion: pick(g, []string{"0.20.1", "0.21.0", "0.22.0"}),
	}
	if g.chance(0.4) {
		prof = clientProfile{
			host:       "sdk",
			language:   "python",
			framework:  pick(g, g.p.frameworksPy),
			sdkVersion: pick(g, []string{"0.24.2", "0.25.0", "0.25.1"}),
		}
	}
	n, start, args, key, ok := g.burstStart(tool, a)
	if !ok {
		return 0
	}
	session := "trs_" + g.w.ids.hex(24)
	caller := pick(g, u.sessions)
	for i := range n {
		p := g.newPlan(u, a, tool, args, start, prof, CaseSessionAutoRetry)
		p.session, p.toolRouter, p.retryCount, p.groupKey, p.pattern = caller, session, -1, key, model.PatternSessionAutoRetry
		if i < n-1 {
			if g.chance(0.6) {
				g.setOutcome(p, outTimeoutCommitted)
			} else {
				g.setOutcome(p, out5xxAfter)
			}
		}
		start = p.start.Add(p.dur + g.sdkBackoff(i))
	}
	return n
}

// frameworkRetry: an agent framework (LangChain's ToolRetryMiddleware) retries a tool call that
// failed (timeout or 5xx) from a current SDK: 2-3 attempts, about 1 s and then 2 s (with
// jitter) after the previous one ended, one caller.
func (g *generator) frameworkRetry() int {
	u, a, tool := g.pickWrite(noAutoRetry, true)
	if tool == nil {
		return 0
	}
	prof := u.profile
	prof.framework = "langchain"
	n, start, args, key, ok := g.burstStart(tool, a)
	if !ok {
		return 0
	}
	caller := pick(g, u.sessions)
	for i := range n {
		p := g.newPlan(u, a, tool, args, start, prof, CaseFrameworkRetry)
		p.session, p.groupKey, p.pattern = caller, key, model.PatternFrameworkRetry
		if i < n-1 {
			switch {
			case g.chance(0.5):
				g.setOutcome(p, outTimeoutUncommitted)
			case g.chance(0.5):
				g.setOutcome(p, out5xxBefore)
			default:
				g.setOutcome(p, out5xxAfter)
			}
		}
		base := time.Second << i
		start = p.start.Add(p.dur + time.Duration(float64(base)*(0.8+0.4*g.r.Float64())))
	}
	return n
}

// appRetry: the application's own loop re-sends after a failure, at regular gaps of seconds
// to minutes, from a current SDK (no auto-retry), one session.
func (g *generator) appRetry() int {
	u, a, tool := g.pickWrite(noAutoRetry, true)
	if tool == nil {
		return 0
	}
	n, start, args, key, ok := g.burstStart(tool, a)
	if !ok {
		return 0
	}
	gap := pick(
		g,
		[]time.Duration{5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second, 60 * time.Second, 90 * time.Second},
	)
	doubling := g.chance(0.4)
	var fails []outcome
	switch x := g.r.Float64(); {
	case x < 0.5:
		fails = []outcome{outTimeoutCommitted, outTimeoutUncommitted}
	case x < 0.8:
		fails = []outcome{out5xxAfter, out5xxBefore}
	default:
		fails = []outcome{out429}
	}
	session := pick(g, u.sessions)
	for i := range n {
		p := g.newPlan(u, a, tool, args, start, u.profile, CaseAppRetry)
		p.session, p.groupKey, p.pattern = session, key, model.PatternAppRetry
		if i < n-1 {
			g.setOutcome(p, pick(g, fails))
		}
		d := gap
		if doubling {
			d = gap << i
		}
		d = time.Duration(float64(d) * (0.995 + 0.01*g.r.Float64())).Round(time.Millisecond)
		start = p.start.Add(p.dur + d)
	}
	return n
}

// doubleSubmit: the same write sent twice (sometimes three times) from two sessions, either
// within 300 ms of each other or at irregular gaps; every member succeeds.
func (g *generator) doubleSubmit() int {
	u, a := g.pickUser(noAutoRetry, true)
	if u == nil || len(u.sessions) < 2 {
		return 0
	}
	tool := g.pickTool(a.toolkit, true, true)
	if tool == nil {
		return 0
	}
	start := g.randTime(15 * time.Minute)
	args := g.argsFor(tool, a, start)
	if args == nil {
		return 0
	}
	key := g.newGroup()
	n := 2
	if g.chance(0.2) {
		n = 3
	}
	perm := g.r.Perm(len(u.sessions))
	fast := g.chance(0.6)
	for i := range n {
		p := g.newPlan(u, a, tool, args, start, u.profile, CaseDoubleSubmit)
		p.session, p.groupKey, p.pattern = u.sessions[perm[i%2]], key, model.PatternDoubleSubmit
		if fast && i == 0 {
			start = p.start.Add(g.between(15*time.Millisecond, 280*time.Millisecond))
		} else {
			start = p.start.Add(g.between(1200*time.Millisecond, 40*time.Second))
		}
	}
	return n
}

// rateLimitBurst: a batch of different writes from one user; after the first few the
// provider answers 429.
func (g *generator) rateLimitBurst() int {
	u, a, tool := g.pickWrite(noAutoRetry, true)
	if tool == nil {
		return 0
	}
	n := 3 + g.r.IntN(4)
	ok := g.r.IntN(3)
	start := g.randTime(5 * time.Minute)
	planned := 0
	for i := range n {
		args := g.argsFor(tool, a, start)
		if args == nil {
			break
		}
		p := g.newPlan(u, a, tool, args, start, u.profile, CaseRateLimitBurst)
		if i >= ok {
			g.setOutcome(p, out429)
		}
		planned++
		start = p.start.Add(p.dur + g.between(50*time.Millisecond, 400*time.Millisecond))
	}
	return planned
}

// ---- arguments ----
