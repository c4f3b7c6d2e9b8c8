// Package header is the top of the screen: the source (LIVE / DEMO / FILE name), the counts
// (executions, flagged writes, duplicate groups), when the data was last refreshed, a progress
// indicator while pages stream in, and sparklines of executions and flagged writes over the
// loaded time range (like lnav's histogram). Rendering reads only precomputed numbers: its
// cost does not depend on the number of executions.
package header

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/data"
	"github.com/exectriage/exectriage/window"
)

// Height is the number of lines the header takes.
const Height = 3

// Model is the header.
type Model struct {
	common.Common
	store *data.Store
	width int

	// Source is the source's name: "LIVE", "DEMO", "FILE name.jsonl" or a base URL.
	Source string
	// Kind is what the source reads; it picks the source's colour.
	Kind Kind
	// NoJournal marks, for as long as it lasts, that the journal could not be opened.
	NoJournal bool
	// ReadOnly marks a read-only session (--readonly): r and m are off.
	ReadOnly bool
	// Profile is the config profile in use ("" for none); Production makes it loud: every
	// action there is real. ProfileColour is its own colour, when the config gives one.
	Profile, ProfileColour string
	// SavedView is the saved view shown ("" for none).
	SavedView  string
	Production bool
	// Partial says why the counts are not the whole window ("" when they are): the load
	// stopped early, or the duplicate groups could not be found.
	Partial string
	// Loading is true while pages stream in; Loaded counts records received so far.
	Loading bool
	Loaded  int
	Pages   int
	// Waiting says what the load waits for, in words longest first ("waiting 12s for the API's
	// rate limit" … "rate limit: 12s"), nil when it waits for nothing: a long wait must not look
	// like a hang, at any width.
	Waiting []string
	// Grouping is true while the duplicate groups are being found (at the end of a load).
	Grouping bool
	// Spinner is the spinner's current frame.
	Spinner string
	// Refreshed is when the last load finished (zero: never).
	Refreshed string
	// Follow says whether auto-refresh is on; Paused whether it waits for the list's top.
	Follow, Paused bool
	// NewRows is how many rows came above the cursor while follow was paused.
	NewRows int
}

// flagged is the count of flagged writes that still need a person, and (when there is room)
// how many a verdict or a successful retry settled: the queue shrinks as people work it.
func (m Model) flagged(w int) string {
	st := m.Styles
	settled := m.store.DS.Settled // the dataset carries the journal's cases (Dataset.WithCases)
	out := st.Header.Flagged.Render("!"+common.Count(m.store.DS.Flagged)) + st.Header.Label.Render(" flagged  ")
	if settled > 0 && w >= 100 {
		out += st.Header.Count.Render("✓"+common.Count(settled)) + st.Header.Label.Render(" settled  ")
	}
	return out
}

// Kind is what the source reads.
type Kind int

// The source kinds, as the header colours them.
const (
	KindDemo Kind = iota
	KindLive
	KindFile
)

// New returns a header reading counts from store.
func New(c common.Common, store *data.Store) Model { return Model{Common: c, store: store} }

// SetSize sets the width (the height is fixed).
func (m *Model) SetSize(w, _ int) { m.width = w }

// View renders three lines of exactly the header's width.
func (m Model) View() string {
	st := m.Styles
	ds := m.store.DS
	w := m.width

	src := st.Header.Demo
	switch m.Kind {
	case KindLive:
		src = st.Header.Live
	case KindFile:
		src = st.Header.File
	}
	sep := st.Muted.Render(" │ ")
	groups := " dup groups"
	if w < 100 {
		groups = " dups"
	}
	left := st.Header.App.Render("exectriage") + sep + src.Render("["+common.Clean(m.Source)+"]") + sep
	if m.Profile != "" {
		ps := st.Header.Label.Bold(true)
		if m.ProfileColour != "" {
			ps = ps.Foreground(lipgloss.Color(m.ProfileColour))
		}
		name := "profile " + common.Clean(m.Profile)
		if m.Production { // loud, and in words: not by colour alone
			ps = st.Status.Error.Bold(true).Reverse(true)
			name = " PRODUCTION: " + common.Clean(m.Profile) + " "
		}
		left += ps.Render(name) + sep
	}
	if m.SavedView != "" {
		left += st.Header.Label.Bold(true).Render("view "+common.Clean(m.SavedView)) + sep
	}
	if m.ReadOnly {
		left += st.Status.Warn.Render("READ-ONLY") + sep
	}
	if m.NoJournal {
		left += st.Status.Error.Render("NO JOURNAL: r/m off") + sep
	}
	if m.Partial != "" && !m.Loading { // the counts are not the whole window, or not current
		left += st.Status.Error.Render(m.Partial) + sep
	}
	essential := common.Width(left) // the source, the profile, the modes and a load's failure: the last to go
	left += st.Header.Count.Render(common.Count(ds.Len())) + st.Header.Label.Render(" execs  ") + m.flagged(w)
	switch {
	case (m.Loading || m.Grouping) && len(ds.Groups) == 0:
		left += st.Header.Label.Render("groups …") // not yet found: not "0"
	case m.Loading || m.Grouping:
		left += st.Header.Count.Render(common.Count(len(ds.Groups))) + st.Header.Label.Render(groups+" …")
	default:
		left += st.Header.Count.Render(common.Count(len(ds.Groups))) + st.Header.Label.Render(groups)
	}
	var right string
	switch {
	case m.Loading && len(m.Waiting) > 0:
		right = m.waiting(left, w)
	case m.Loading:
		right = st.Header.Progress.Render(fmt.Sprintf("%s loading %s records · page %d", m.Spinner, common.Count(m.Loaded), m.Pages))
	case m.Grouping:
		right = st.Header.Progress.Render(m.Spinner + " finding duplicate groups")
	case m.Refreshed != "" && m.Partial != "" && w < 110:
		// narrow: the warning goes first; the time of the last load is in its words
	case m.Refreshed != "":
		right = st.Header.Label.Render("refreshed " + m.Refreshed)
	}
	if m.Follow {
		f := " · follow"
		switch {
		case m.Paused && m.NewRows > 0:
			f = fmt.Sprintf(" · follow paused · %d new", m.NewRows)
		case m.Paused:
			f = " · follow paused"
		}
		right += st.Header.Progress.Render(f)
	}
	line1 := joinPriority(left, essential, right, w)

	spW := max(w-10-24, 8)
	execs, flagged := resample(&ds.Hist, spW)
	rng := ""
	if !ds.Hist.From.IsZero() {
		rng = common.Stamp(ds.Hist.From) + " → " + common.Clock(ds.Hist.To)
	}
	line2 := joinLR(st.Header.Label.Render("execs   ")+st.Header.SparkExec.Render(spark(execs)), st.Header.Label.Render(rng), w)
	line3 := joinLR(st.Header.Label.Render("flagged ")+st.Header.SparkFlag.Render(spark(flagged)), "", w)
	return line1 + "\n" + line2 + "\n" + line3
}

// waiting is the header's right part during a wait for the rate limit: the longest wording
// that fits beside the whole of left, else the shortest, which fits beside the source and the
// modes down to 60 columns (the counts are cut first, never the wait).
func (m Model) waiting(left string, w int) string {
	st := m.Styles
	var forms []string
	for _, f := range m.Waiting {
		forms = append(forms, fmt.Sprintf("%s %s records · %s", m.Spinner, common.Count(m.Loaded), f))
	}
	forms = append(forms, m.Spinner+" "+m.Waiting[len(m.Waiting)-1])
	for _, f := range forms {
		if common.Width(left)+1+common.Width(f) <= w {
			return st.Header.Progress.Render(f)
		}
	}
	return st.Header.Progress.Render(forms[len(forms)-1])
}

// joinPriority is joinLR for the first line, where the first keep columns of left (the source,
// a PRODUCTION profile, READ-ONLY) matter most: when they and right do not both fit, right
// (the refresh clock, a load's progress) goes first; then left is cut from its end.
func joinPriority(left string, keep int, right string, w int) string {
	if keep+1+common.Width(right) > w {
		right = ""
	}
	return joinLR(left, right, w)
}

// joinLR puts left and right on one line of width w, cutting left first when both do not fit.
func joinLR(left, right string, w int) string {
	lw, rw := common.Width(left), common.Width(right)
	if lw+1+rw > w {
		if rw+10 > w {
			return common.Fit(left, w)
		}
		left = common.Truncate(left, w-rw-1)
		lw = common.Width(left)
	}
	return left + strings.Repeat(" ", max(w-lw-rw, 0)) + right
}

// resample folds the histogram's buckets into n columns.
func resample(h *window.Histogram, n int) (execs, flagged []int) {
	execs, flagged = make([]int, n), make([]int, n)
	for b := range window.HistBuckets {
		c := b * n / window.HistBuckets
		execs[c] += int(h.Execs[b])
		flagged[c] += int(h.Flagged[b])
	}
	return execs, flagged
}

var blocks = []rune("▁▂▃▄▅▆▇█")

// spark draws counts as unicode blocks scaled to the largest; an empty bucket is a space so
// quiet periods read as gaps.
func spark(v []int) string {
	top := 0
	for _, x := range v {
		top = max(top, x)
	}
	var b strings.Builder
	for _, x := range v {
		switch {
		case x == 0 || top == 0:
			b.WriteRune(' ')
		default:
			i := (x*len(blocks) - 1) / top
			b.WriteRune(blocks[min(i, len(blocks)-1)])
		}
	}
	return b.String()
}
