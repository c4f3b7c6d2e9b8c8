package model

import (
	"fmt"
	"time"
)

// A duplicate group's gap is one thing everywhere (list, detail, reasons, bundles): how long
// after the previous attempt ended — or the caller gave up on it, at its timeout — the next one
// started. Negative means it started while the previous one was still running: an overlap.

// GapAmount prints the size of a gap or a wait the way every view does: 0.45 s under 10 s,
// 14.6 s under a minute, 2.5 min under an hour, else 1.2 h (rounded, never truncated).
func GapAmount(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%.1f min", d.Minutes())
	}
	return fmt.Sprintf("%.1f h", d.Hours())
}

// GapText is a gap in a few characters: "+0.45 s" (started that long after the previous
// ended or timed out) or "overlap 0.79 s" (started while the previous was still running).
func GapText(d time.Duration) string {
	if d < 0 {
		return "overlap " + GapAmount(d)
	}
	return "+" + GapAmount(d)
}

// GapWords is a gap in a phrase, for bundles and reports.
func GapWords(d time.Duration) string {
	if d < 0 {
		return "started " + GapAmount(d) + " before the previous ended"
	}
	return GapAmount(d) + " after the previous ended"
}

// TimeLayout is how every front writes a moment in prose (a reason, a next step, a report):
// the date and the time to the second, in UTC, which the Logs API speaks.
const TimeLayout = "2006-01-02 15:04:05Z"

// When writes t in TimeLayout.
func When(t time.Time) string { return t.UTC().Format(TimeLayout) }
