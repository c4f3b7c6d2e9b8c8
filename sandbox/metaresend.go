package sandbox

import (
	"encoding/json"
	"math/rand/v2"
	"time"

	"github.com/exectriage/exectriage/model"
)

// CaseMetaResend: a current SDK's retry of a tool-router session's meta tool
// (COMPOSIO_MULTI_EXECUTE_TOOL) that timed out: the meta tool runs again and every tool it
// holds runs again under the new run (docs/platform.md, "Who re-sends a write": session writes re-sent before
// TypeScript 0.23.0 / Python 0.26.0).
const CaseMetaResend = "meta_tool_resend"

// metaTool is the meta tool as the history logs it: it runs the tools it is given (their own
// plans, its children), and leaves no effect of its own.
var metaTool = &toolDef{slug: MultiExecuteTool, name: "Multi execute", toolkit: "composio",
	run: func(*world, *call) opResult { return opResult{data: map[string]any{"results": []any{}}} }}

// metaResends plans about one meta-tool re-send per two thousand executions (one at least),
// with a random source of their own, as redeliveries.
func (g *generator) metaResends(seed int64, size int) {
	saved := g.r
	g.r = rand.New(rand.NewPCG(uint64(seed), 0x3e7a_5e5d_0001))
	defer func() { g.r = saved }()
	for range max(1, size/2000) {
		g.metaResend()
	}
}

// metaResend: a session's agent runs two writes through COMPOSIO_MULTI_EXECUTE_TOOL; the call
// times out at the client (60 s) while both writes went through; the SDK sends the meta tool
// again 0.4-0.5 s later, and both writes run again. The runs are one duplicate group; each
// tool's two runs another (two intents), named from the runs and linked to their group:
// session_auto_retry.
func (g *generator) metaResend() int {
	u, a := g.pickUserOf("gmail")
	if u == nil {
		return 0
	}
	tool := g.cat.bySlug["GMAIL_SEND_EMAIL"]
	draft := g.cat.bySlug["GMAIL_CREATE_EMAIL_DRAFT"]
	if tool == nil || draft == nil {
		return 0
	}
	start := g.randTime(20 * time.Minute)
	sendArgs, draftArgs := g.argsFor(tool, a, start), g.argsFor(draft, a, start)
	if sendArgs == nil || draftArgs == nil {
		return 0
	}
	prof := clientProfile{
		host:       "sdk",
		language:   "typescript",
		framework:  pick(g, g.p.frameworksTS),
		sdkVersion: pick(g, []string{"0.20.1", "0.21.0"}),
	}
	session := "trs_" + g.w.ids.hex(24)
	caller := pick(g, u.sessions)
	metaRaw, _ := json.Marshal(map[string]any{"tools": []any{
		map[string]any{
			"tool_slug": tool.slug,
			"arguments": sendArgs.m,
		}, map[string]any{"tool_slug": draft.slug, "arguments": draftArgs.m}}})
	metaArgs := &argSet{m: map[string]any{}, raw: metaRaw}
	keys := [3]string{g.newGroup(), g.newGroup(), g.newGroup()} // the runs; the sends; the drafts (two intents)
	for i := range 2 {
		run := g.newPlan(u, a, metaTool, metaArgs, start, prof, CaseMetaResend)
		run.session, run.toolRouter, run.retryCount, run.groupKey, run.pattern = caller, session, -1, keys[0], model.PatternSessionAutoRetry
		run.dur, run.effectAt = 2500*time.Millisecond, 0
		at := start.Add(g.between(200*time.Millisecond, 600*time.Millisecond))
		for k, c := range []struct {
			tool *toolDef
			args *argSet
		}{{tool, sendArgs}, {draft, draftArgs}} {
			child := g.newPlan(u, a, c.tool, c.args, at, prof, CaseMetaResend)
			child.session, child.toolRouter, child.retryCount, child.groupKey, child.pattern = caller, session, -1, keys[1+k],
				model.PatternSessionAutoRetry
			child.parent = run
			at = child.start.Add(child.dur + g.between(50*time.Millisecond, 300*time.Millisecond))
		}
		if i == 0 { // the client stops waiting at 60 s; the SDK sends the meta tool again
			g.setOutcome(run, outTimeoutCommitted)
			start = start.Add(clientTimeout + g.between(400*time.Millisecond, 500*time.Millisecond))
		}
	}
	return 6
}
