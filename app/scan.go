package app

import (
	"context"
	"fmt"
	"time"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/window"
)

// Scanned is scan's view of a window: every execution as a row of the window (what scan
// prints of it) with its triage, newest first (ties by id), and the duplicate groups. It is
// the window every front reads (window.Builder): an export is streamed into it, each record
// triaged on arrival and kept as a compact row, and only the writes that have a neighbour of
// the same caller within the window are read again, whole, from the file, a batch at a time, to
// find the groups. Memory grows with the rows, not with the records.
type Scanned struct {
	ds *window.Dataset
	// Groups are the duplicate groups, ordered by their oldest member's start.
	Groups []model.DuplicateGroup
	// DetailErrors and FirstDetailError are Loaded's (a live source's scan).
	DetailErrors     int
	FirstDetailError error
	// Duplicates is how many records were copies of another of the same log id (an export's
	// overlapping pages): each id is one execution, its latest copy kept.
	Duplicates int
}

// Len is the number of executions.
func (s *Scanned) Len() int { return s.ds.Len() }

// Exec is execution i as scan prints it: id, timestamp (UTC), tool, toolkit, user, connected
// account, status, session, duration and request id; nothing else of the record is kept.
func (s *Scanned) Exec(i int) model.Execution { return s.ds.Exec(i) }

// Triage is execution i's triage, the journal's case applied.
func (s *Scanned) Triage(i int) model.Triage { return s.ds.Triage(i) }

// ID is execution i's id.
func (s *Scanned) ID(i int) string { return s.ds.ID(i) }

// Tool is execution i's tool slug.
func (s *Scanned) Tool(i int) string { return s.ds.Tool(i) }

// Timestamp is execution i's timestamp (UTC).
func (s *Scanned) Timestamp(i int) time.Time { return s.ds.Timestamp(i) }

// Scan reads every execution of the window and triages it for scan. An export file is
// streamed into the window (see Scanned); any other source is loaded whole (Load), through the
// same builder.
func (a *App) Scan(ctx context.Context) (*Scanned, error) {
	loc, ok := a.src.(source.Located)
	if !ok {
		l, err := a.Load(ctx)
		if err != nil {
			return nil, err
		}
		return ScannedOf(l), nil
	}
	return a.scan(ctx, loc, window.NewStream(a.kinds, a.topt), nil)
}

// Streams reports whether the source is streamed into the window as scan reads it (an export
// file) rather than loaded whole: ScanIndexed reads such a source.
func (a *App) Streams() bool {
	_, ok := a.src.(source.Located)
	return ok
}

// ScanIndexed is Scan for a front that filters the rows (list of an export): the window is
// streamed as scan's, with the filter's index over each record as it comes (its error text
// included), so that Filter answers a query over every row without the records being held.
// It returns an error for a source that is not streamed (Streams).
func (a *App) ScanIndexed(ctx context.Context) (*Scanned, error) {
	loc, ok := a.src.(source.Located)
	if !ok {
		return nil, fmt.Errorf("%s is loaded whole, not streamed", a.src.Name())
	}
	return a.scan(ctx, loc, window.NewStreamIndexed(a.kinds, a.topt), nil)
}

// Subscriptions are the events of the window delivered to two webhook endpoints (or
// subscriptions) or more (triage.Deliveries.Subscriptions).
func (s *Scanned) Subscriptions() []triage.DuplicateSubscription {
	return s.ds.Deliveries.Subscriptions()
}

// Hint is what the filter's index says of q keeping matched rows (filter.Index.Hint).
func (s *Scanned) Hint(q filter.Query, matched int) string { return s.ds.Filter.Hint(q, matched) }

// Filter returns the positions (newest first) of the executions q keeps, and whether the
// rows carry the filter's index (ScanIndexed) to answer it.
func (s *Scanned) Filter(q filter.Query) ([]int, bool) {
	if s.ds.Filter == nil {
		return nil, false
	}
	return s.ds.Matches(q, nil), true
}

// scan streams loc into b, finds the groups and applies the journal's cases; seen, when not
// nil, is shown each batch first (its refs as LoadLocated gives them).
func (a *App) scan(
	ctx context.Context,
	loc source.Located,
	b *window.Builder,
	seen func([]model.Execution, []source.Ref),
) (*Scanned, error) {
	reserved := false
	err := loc.LoadLocated(ctx, a.Window(), func(batch []model.Execution, refs []source.Ref) error {
		a.Learn(ctx, batch) // an export with an API key: the kinds of new tools first
		if seen != nil {
			seen(batch, refs)
		}
		b.AddLocated(batch, refs)
		if !reserved && b.Len() > 0 {
			// Room for every row at once, sized by the first batch's (growing them by
			// append copies each over and over, and leaves the copies to the collector).
			b.Reserve(a.SizeHint(0))
			reserved = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := b.GroupsFrom(ctx, loc); err != nil {
		return nil, err
	}
	cases, err := a.Cases(ctx)
	if err != nil {
		return nil, err
	}
	ds := b.Snapshot().WithCases(cases)
	return &Scanned{ds: ds, Groups: ds.Groups, Duplicates: b.Copies() + a.repeats()}, nil
}

// ScannedOf gives scan's view of a loaded window: the window its records were judged in.
func ScannedOf(l *Loaded) *Scanned {
	ds := l.window.Snapshot().WithCases(l.Cases)
	return &Scanned{ds: ds, Groups: ds.Groups, DetailErrors: l.DetailErrors, FirstDetailError: l.FirstDetailError,
		Duplicates: l.Duplicates}
}
