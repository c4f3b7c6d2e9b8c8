package sandbox

import (
	"sort"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// setOutcome gives the plan the duration and status its outcome implies.
func (g *generator) setOutcome(p *plan, o outcome) {
	p.outcome = o
	switch o {
	case outSlowOK:
		p.dur = clientTimeout + g.between(5*time.Second, 240*time.Second)
		p.effectAt = p.dur - g.between(200*time.Millisecond, 2*time.Second)
	case outTimeoutCommitted:
		p.dur = clientTimeout + g.between(0, 40*time.Millisecond)
		p.effectAt = g.between(5*time.Second, 58*time.Second)
	case outTimeoutUncommitted:
		p.dur = clientTimeout + g.between(0, 40*time.Millisecond)
	case out5xxAfter:
		p.httpStatus = pick(g, []int{502, 504})
		p.dur = g.between(800*time.Millisecond, 8*time.Second)
		p.effectAt = time.Duration(float64(p.dur) * 0.6).Round(time.Millisecond)
	case out5xxBefore:
		p.httpStatus = pick(g, []int{500, 503})
		p.dur = g.between(200*time.Millisecond, 3*time.Second)
	case out429:
		p.httpStatus = 429
		p.dur = g.between(30*time.Millisecond, 150*time.Millisecond)
	case outValidation:
		p.dur = g.between(10*time.Millisecond, 60*time.Millisecond)
	case outAuth:
		p.dur = g.between(80*time.Millisecond, 400*time.Millisecond)
	}
}

func hasRequired(t *toolDef) bool {
	for _, p := range t.params {
		if p.required {
			return true
		}
	}
	return false
}

func (g *generator) apply() *history {
	sort.SliceStable(g.plans, func(i, j int) bool {
		if !g.plans[i].start.Equal(g.plans[j].start) {
			return g.plans[i].start.Before(g.plans[j].start)
		}
		return g.plans[i].seq < g.plans[j].seq
	})
	h := &history{world: g.w, logs: make([]*model.Execution, 0, len(g.plans)), truth: make([]TruthRecord, 0, len(g.plans)),
		pending: make(map[string]map[string]any, len(g.plans))}
	logOf := map[*plan]string{}
	for _, p := range g.plans {
		ids := &g.w.ids
		a := &attempt{logID: ids.logID(), tool: p.tool, acct: p.acct, userID: p.acct.userID, args: p.raw,
			start: p.start, end: p.start.Add(p.dur), requestID: ids.uuid(), sessionID: p.toolRouter,
			traceID:    strings.ReplaceAll(p.session, "-", ""),
			source:     model.Source{Host: p.profile.host, Framework: p.profile.framework, Language: p.profile.language},
			sdkVersion: p.profile.sdkVersion, retryCount: p.retryCount}
		logOf[p] = a.logID
		if p.parent != nil { // the parent started first, so its log id is known
			a.parent = &model.Parent{LogID: logOf[p.parent], ToolSlug: MultiExecuteTool}
		}
		switch p.outcome {
		case outOK, outSlowOK, outTimeoutCommitted, out5xxAfter:
			at := p.start.Add(p.effectAt)
			if !p.tool.write {
				at = p.start.Add(p.dur / 2)
			}
			res := p.tool.run(g.w, &call{acct: p.acct, args: p.args, now: at})
			a.result = &res
		}
		switch p.outcome {
		case outTimeoutCommitted, outTimeoutUncommitted:
			a.failure = timeoutError(clientTimeout)
		case out5xxAfter, out5xxBefore:
			a.failure = upstreamError(p.httpStatus)
		case out429:
			a.failure = rateLimitError()
		case outValidation:
			msg := "Invalid request data provided"
			if err := p.tool.validate(p.args); err != nil {
				msg = err.Error()
			}
			a.failure = &model.ExecError{Kind: model.ErrValidation, Message: msg}
		case outAuth:
			a.failure = &model.ExecError{
				Kind:       model.ErrAuth,
				HTTPStatus: 401,
				Message:    "401 Unauthorized: the provider rejected the access token (revoked or expired)",
			}
		case outExpired:
			a.failure = expiredError(p.acct)
		}
		e, resp := a.execution()
		h.logs = append(h.logs, e)
		h.pending[e.ID] = resp
		committed := p.tool.write && a.result != nil && a.result.committed
		if committed {
			h.effects = append(
				h.effects,
				effectRec{Effect: Effect{RequestID: a.requestID, ToolSlug: p.tool.slug, ConnectedAccountID: p.acct.id,
					Time: p.start.Add(p.effectAt), LogID: a.logID, ObjectID: a.result.objectID}, args: p.raw},
			)
		}
		// A provider that refused the call (an error in its answer) leaves a log that says so: not
		// ambiguous, even when the caller saw a timeout.
		ambiguous := p.outcome.ambiguous() && !(a.failure == nil && a.result != nil && !a.result.committed && a.result.err != "")
		h.truth = append(h.truth, TruthRecord{ID: a.logID, ToolSlug: p.tool.slug, Committed: committed, Ambiguous: ambiguous,
			GroupKey: p.groupKey, Pattern: p.pattern, Case: p.caseName})
	}
	for _, t := range g.triggers {
		h.logs = append(h.logs, t.execution(g.w.ids.logID()))
	}
	sortLogs(h.logs)
	return h
}

func expiredError(a *account) *model.ExecError {
	return &model.ExecError{Kind: model.ErrAuth, Message: "Connected account " + a.id + " is " + a.status + "; the user must reconnect"}
}
