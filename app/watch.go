package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/watch"
)

// WatchOptions are a watcher's choices.
type WatchOptions struct {
	// Filter chooses the executions told of (the filter language); Filtered says one was given.
	Filter   filter.Query
	Filtered bool
	// Show is a saved view's rows: "" or all, flagged, duplicates (ViewKeeps).
	Show string
	// Kinds are the kinds of event told (nil: every kind).
	Kinds []watch.Kind
	Sinks []watch.Sink
	// Every is the time between passes; Digest, when set, how often a sink sends.
	Every, Digest time.Duration
	// Once makes one pass, delivers what is due and returns.
	Once bool
	// Hold is how long a delivery in flight stays this watcher's (default: watch.SendTimeout
	// and 20 s); Lease how long the sender's lease lasts unrenewed (default 30 s: another
	// watcher takes over within it after this one dies).
	Hold, Lease time.Duration
	Log         *slog.Logger
	Metrics     *watch.Metrics
	// Step is the deliverer's test hook (watch.Deliverer.Step).
	Step func(step, sink string, events []watch.Event) error
}

// leaseName is the outbox lease the watchers of one journal share: one of them sends.
const leaseName = "watch"

// Watch follows the source: each pass reads the window, judges it, records in the journal's
// outbox the events not recorded before and delivers what is due, once each (journal.Outbox).
// Of the watchers of one journal one leads (a lease on the journal's clock); the others wait,
// and take over within the lease after it stops. It returns nil when ctx ends (SIGTERM), after
// the message under way is finished.
func (a *App) Watch(ctx context.Context, j *Journal, o WatchOptions) error {
	if j == nil || j.ReadOnly() {
		return fmt.Errorf("watch keeps its outbox in the journal: %w", journal.ErrNoOutbox)
	}
	ob, err := journal.OutboxOf(j.j)
	if err != nil {
		return err
	}
	o.Hold = cmp.Or(o.Hold, watch.SendTimeout+20*time.Second)
	o.Lease = cmp.Or(o.Lease, 30*time.Second)
	o.Every = cmp.Or(o.Every, 30*time.Second)
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	log := o.Log
	holder := journal.NewLeaseHolder()
	d := &watch.Deliverer{
		Outbox:  ob,
		Sinks:   o.Sinks,
		Owner:   holder,
		Hold:    o.Hold,
		Digest:  o.Digest,
		Log:     log,
		Metrics: o.Metrics,
		Step:    o.Step,
	}
	defer func() { _ = ob.Release(context.WithoutCancel(ctx), leaseName, holder) }()
	leading := false
	for {
		began := time.Now()
		lead, err := ob.Lead(ctx, leaseName, holder, o.Lease)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			log.Error("lease", "err", err)
		case !lead:
			if leading || o.Once {
				log.Info("another watcher of this journal sends: waiting")
			}
			leading = false
			o.Metrics.Pass("follower", began, nil)
		default:
			if !leading {
				log.Info("this watcher sends", "journal", j.Where(), "source", a.SourceName())
			}
			leading = true
			err = a.watchPass(ctx, j, ob, d, o, holder, began)
		}
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			if errors.Is(err, watch.ErrStopped) {
				return nil
			}
			o.Metrics.Pass("error", began, nil)
			if o.Once {
				return err
			}
			log.Error("pass failed: trying again at the next", "err", err)
		}
		if o.Once {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(o.Every):
		}
	}
}

// watchPass reads and judges the window once, records what it tells and delivers. The lease is
// renewed while it runs; losing it stops the pass before it records anything.
func (a *App) watchPass(
	ctx context.Context,
	j *Journal,
	ob journal.Outbox,
	d *watch.Deliverer,
	o WatchOptions,
	holder string,
	began time.Time,
) error {
	pctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTicker(o.Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if ok, err := ob.Lead(pctx, leaseName, holder, o.Lease); err == nil && !ok {
					cancel(errors.New("another watcher took the lease"))
					return
				}
			}
		}
	}()
	w, err := a.watchWindow(pctx, j, o)
	if err != nil {
		if c := context.Cause(pctx); c != nil && ctx.Err() == nil {
			return c
		}
		return err
	}
	known, err := ob.Known(pctx, watch.Wanted(w.Groups))
	if err != nil {
		return err
	}
	f := watch.Find(w, known, time.Now())
	events := make([]journal.WatchEvent, 0, len(f.Events))
	kinds := map[string]watch.Kind{}
	for _, e := range f.Events {
		if o.Kinds != nil && !slices.Contains(o.Kinds, e.Kind) {
			if e.Kind == watch.KindGroup {
				// recorded as seen, not told: its later members are then new members
				f.Covered = append(f.Covered, e.ID)
			}
			continue
		}
		events = append(events, journal.WatchEvent{ID: e.ID, Kind: string(e.Kind), Body: e.Body()})
		kinds[e.ID] = e.Kind
	}
	sinks := make([]string, len(o.Sinks))
	for i, s := range o.Sinks {
		sinks[i] = s.Name()
	}
	if err := context.Cause(pctx); err != nil {
		return err
	}
	added, err := ob.Record(pctx, events, f.Covered, sinks)
	if err != nil {
		return err
	}
	for _, id := range added {
		o.Metrics.Queued(string(kinds[id]))
	}
	o.Metrics.Pass("ok", began, &w)
	if len(added) > 0 {
		o.Log.Info("new events", "count", len(added), "executions", len(w.Rows))
	}
	return d.Round(ctx, o.Once)
}

// watchWindow reads the window and judges it as every front does, keeping the rows the filter
// chose, the groups and the journal's attempts.
func (a *App) watchWindow(ctx context.Context, j *Journal, o WatchOptions) (watch.Window, error) {
	w := watch.Window{Filtered: o.Filtered || o.Show != "" && o.Show != "all", Source: a.SourceName()}
	if a.Streams() {
		s, err := a.ScanIndexed(ctx)
		if err != nil {
			return w, err
		}
		match, _ := s.Filter(o.Filter)
		for _, i := range match {
			if t := s.Triage(i); ViewKeeps(o.Show, &t) {
				w.Rows = append(w.Rows, watch.Row{Exec: s.Exec(i), Triage: t})
			}
		}
		w.Groups = s.Groups
	} else {
		l, err := a.Load(ctx)
		if err != nil {
			return w, err
		}
		for _, i := range l.Filter(o.Filter) {
			if ViewKeeps(o.Show, &l.Result.Triage[i]) {
				w.Rows = append(w.Rows, watch.Row{Exec: l.Execs[i], Triage: l.Result.Triage[i]})
			}
		}
		w.Groups = l.Result.Groups
	}
	if j != nil {
		e, err := j.Entries(ctx, "")
		if err != nil {
			return w, err
		}
		w.Attempts = e.Attempts
	}
	return w, nil
}
