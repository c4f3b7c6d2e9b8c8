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
		end := endOK
		if i < n-1 {
			end = fail
		}
		stopped := g.add(c, tg, args, t, end, time.Duration(100+g.r.IntN(600))*time.Millisecond, -1, key)
		t = stopped.Add(time.Duration(g.r.Int64N(int64(base << i))))
	}
}
