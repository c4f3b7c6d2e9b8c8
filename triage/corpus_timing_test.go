package triage_test

import (
	"time"

	"github.com/exectriage/exectriage/model"
)

// The corpus's families written to bind the spacings of triage.Thresholds from both sides (none
// of them used to choose a rule): a person clicking twice seconds apart while a slow send runs
// (a double submit whose second start is well past a near-simultaneous one), and an
// application's retry loop whose waits are drawn at random (full jitter: each between nothing
// and a cap that doubles), irregular as a person's are.

// slowSecondClick: the send takes 3 to 9 s; the second click comes 1.2 to 3 s after the first,
// while the first still runs. Either may fail; neither caller had an answer when the other
// started. double_submit.
func (g *corpusGen) slowSecondClick() {
	c := g.current()
	f := g.facts()
	tg := g.target(f)
	args := tg.args(f.fill(pickOne(g.r, pickOne(g.r, corpusIntents()).phrasings)))
	key := g.newGroup(model.PatternDoubleSubmit)
	t := g.start()
	slow := time.Duration(3000+g.r.IntN(6000)) * time.Millisecond
	first := endOK
	if g.r.Float64() < 0.3 {
		first = end5xx // the first answered with a 5xx, after the second had started
	}
	g.add(c, tg, args, t, first, slow, -1, key)
	g.add(c, tg, args, t.Add(time.Duration(1200+g.r.IntN(1800))*time.Millisecond), endOK, g.fast(), -1, key)
}

// jitteredAppRetry: the application's loop after failures the caller saw, each wait drawn
// between 0 and base·2^i (base 0.5 to 2 s), 3 to 5 attempts. app_retry.
func (g *corpusGen) jitteredAppRetry() {
	c := g.current()
	f := g.facts()
	tg := g.target(f)
	args := tg.args(f.fill(pickOne(g.r, pickOne(g.r, corpusIntents()).phrasings)))
	key := g.newGroup(model.PatternAppRetry)
	base := time.Duration(500+g.r.IntN(1500)) * time.Millisecond
	fail := pickOne(g.r, []ending{end5xx, end429})
	n := 3 + g.r.IntN(3)
	t := g.start()
	for i := range n {
		end := failsBeforeLast(i, n, fail)
		stopped := g.add(c, tg, args, t, end, time.Duration(100+g.r.IntN(600))*time.Millisecond, -1, key)
		t = stopped.Add(time.Duration(g.r.Int64N(int64(base << i))))
	}
}

// queueRedelivery: a worker takes a job from a queue, sends, and dies or overruns before it
// acknowledges (the send timed out, or ended and the worker died after it); the queue hands the
// job out again after its visibility timeout (30 s to 20 min) and a worker sends the same
// payload. app_retry: the application's own machinery re-sent it.
func (g *corpusGen) queueRedelivery() {
	c := g.current()
	f := g.facts()
	tg := g.target(f)
	args := tg.args(f.fill(pickOne(g.r, pickOne(g.r, corpusIntents()).phrasings)))
	key := g.newGroup(model.PatternAppRetry)
	visibility := pickOne(g.r, []time.Duration{2 * time.Minute, 5 * time.Minute, 15 * time.Minute, 20 * time.Minute})
	t := g.start()
	first := endTimeout // (the client's 60 s and the server's end after it, within the visibility)
	if g.r.Float64() < 0.3 {
		first = end5xx
		visibility = pickOne(g.r, []time.Duration{30 * time.Second, visibility})
	}
	// the first attempt has ended when the job comes back: one still running when a second worker
	// takes the job is two workers at once, a double submit
	ran := g.jitter(min(visibility, time.Minute), 0.05, 0.8)
	g.add(c, tg, args, t, first, ran, -1, key)
	g.add(c, tg, args, t.Add(g.jitter(visibility, 1.0, 1.1)), endOK, g.fast(), -1, key)
}

// cronRerun: a scheduled job (every 5 to 60 minutes, started on the clock's minute) failed and
// the next run sends the same payload again; one or two failed runs before one that works.
// app_retry.
func (g *corpusGen) cronRerun() {
	c := g.current()
	f := g.facts()
	tg := g.target(f)
	args := tg.args(f.fill(pickOne(g.r, pickOne(g.r, corpusIntents()).phrasings)))
	key := g.newGroup(model.PatternAppRetry)
	every := pickOne(g.r, []time.Duration{5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour})
	t := g.start().Truncate(every)
	runs := 2 + g.r.IntN(2)
	for i := range runs {
		end := endOK
		if i < runs-1 {
			end = g.failure()
		}
		g.add(c, tg, args, t.Add(time.Duration(g.r.IntN(3000))*time.Millisecond), end, g.fast(), -1, key)
		t = t.Add(every)
	}
}

// Written on 2026-12-07 (third batch), before any rule read it: another framework's retry
// policy. LangGraph's RetryPolicy re-runs a node that raised (a tool node whose write failed)
// with its defaults: initial interval 0.5 s, factor 2, up to 3 attempts, and a jitter of up to
// one second added to each wait. framework_retry.
func (g *corpusGen) langGraphRetry() {
	c := g.current()
	if g.r.Float64() < 0.7 {
		c.framework = "langgraph"
	}
	g.retryBurst(c, model.PatternFrameworkRetry, noRetryCount, func(i int) time.Duration {
		return 500*time.Millisecond<<i + time.Duration(g.r.Float64()*float64(time.Second)) + g.net()
	})
}
