package app

import (
	"time"

	"github.com/exectriage/exectriage/client"
)

// RateWait is one wait of the session's reads for the API's rate limit.
type RateWait struct {
	Wait    time.Duration
	Limit   int  // the window's budget, 0 when the API did not say
	Refused bool // the API answered 429 (else the session held back before it would have)
	Until   time.Time
	// Read is how many executions the session's loads had listed when the wait began (the CLI
	// says it beside the wait; the TUI's header counts what it holds itself).
	Read int64
}

// rateNotice is the client's notice: the session keeps the wait (RateWaiting) and tells the
// front's callback (Options.OnRateWait).
func (a *App) rateNotice(o *Options) client.Option {
	return client.WithRateNotice(func(cw client.RateWait) {
		w := RateWait{Wait: cw.Wait, Limit: cw.Limit, Refused: cw.Refused, Until: time.Now().Add(cw.Wait), Read: a.listed.Load()}
		a.rateMu.Lock()
		if w.Until.After(a.rateWait.Until) {
			a.rateWait = w
		}
		a.rateMu.Unlock()
		if o.OnRateWait != nil {
			o.OnRateWait(w)
		}
	})
}

// RateWaiting is the wait for the rate limit under way, if any: a load's progress line says
// it, so a long wait does not look like a hang.
func (a *App) RateWaiting() (RateWait, bool) {
	a.rateMu.Lock()
	defer a.rateMu.Unlock()
	if a.rateWait.Until.IsZero() || !time.Now().Before(a.rateWait.Until) {
		return RateWait{}, false
	}
	w := a.rateWait
	w.Wait = time.Until(w.Until)
	return w, true
}
