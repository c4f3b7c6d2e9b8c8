// Package data is what the TUI's panes read: the current window (a window.Dataset) and what
// the session learned since (details, provider states, the journal's history, retries in flight).
package data

import (
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/window"
)

// Store is what the panes read: the current dataset plus what was learned since (full
// details, provider states, journal history, retries in flight). The root model owns it and
// changes it only in Update; components hold a pointer and only read.
type Store struct {
	DS *window.Dataset
	// Details are the full records fetched lately (see PutDetail), by id.
	Details   map[string]model.Execution
	Provider  map[string]model.ProviderState  // verifier results, by id
	Verifying map[string]bool                 // a verify is running
	Attempts  map[string][]model.RetryAttempt // journal retry attempts, by execution id
	RetryOf   map[string]string               // the execution a retry's new log retried, by the new log's id
	Verdicts  map[string]model.Verdict        // latest recorded verdict, by execution id
	History   map[string][]phrase.Line        // journal history, by execution id
	Retrying  map[string]bool                 // a retry is in flight
	// Picked are the rows selected to be marked or verified at once, by execution id.
	Picked map[string]bool

	detailOrder []string // Details' ids, oldest first
}

// MaxDetails is how many full records the store keeps: the dataset holds compact rows, and
// the record of a row is fetched again when it is opened after being forgotten.
const MaxDetails = 256

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{
		DS:        &window.Dataset{},
		Details:   map[string]model.Execution{},
		Provider:  map[string]model.ProviderState{},
		Verifying: map[string]bool{},
		Picked:    map[string]bool{},
		Attempts:  map[string][]model.RetryAttempt{},
		RetryOf:   map[string]string{},
		Verdicts:  map[string]model.Verdict{},
		History:   map[string][]phrase.Line{},
		Retrying:  map[string]bool{},
	}
}

// Row returns what the list prints of execution i: from its full record when fetched (a detail
// may name what the list entry did not, a session), else from the dataset's compact row.
func (s *Store) Row(i int) window.Row {
	if d, ok := s.Details[s.DS.ID(i)]; ok {
		return window.RowOf(&d)
	}
	return s.DS.Row(i)
}

// Exec returns execution i of the dataset: its full record when fetched (see Full), else what
// the list knows of it (no arguments, response or error text).
func (s *Store) Exec(i int) *model.Execution {
	if d, ok := s.Details[s.DS.ID(i)]; ok {
		return &d
	}
	e := s.DS.Exec(i)
	return &e
}

// Full reports whether the full record of id is at hand.
func (s *Store) Full(id string) bool {
	_, ok := s.Details[id]
	return ok
}

// PutDetail keeps the full record of id, forgetting the oldest others beyond MaxDetails
// (except those a retry is using).
func (s *Store) PutDetail(id string, e model.Execution) {
	if _, ok := s.Details[id]; !ok {
		s.detailOrder = append(s.detailOrder, id)
	}
	s.Details[id] = e
	for n := len(s.detailOrder); len(s.Details) > MaxDetails && n > 0; n-- {
		old := s.detailOrder[0]
		s.detailOrder = s.detailOrder[1:]
		if s.Retrying[old] || old == id {
			s.detailOrder = append(s.detailOrder, old)
			continue
		}
		delete(s.Details, old)
	}
}

// RetryState summarises the journal's attempts for an execution: the newest attempt's state,
// or "" when there is none.
func (s *Store) RetryState(id string) model.AttemptState {
	as := s.Attempts[id]
	if len(as) == 0 {
		return ""
	}
	newest := as[0]
	for _, a := range as[1:] {
		if a.CreatedAt.After(newest.CreatedAt) {
			newest = a
		}
	}
	return newest.State
}

// Case is the journal's case of id as the store knows it (nil: none), by the rule every
// front reads the journal by (triage.CaseOf).
func (s *Store) Case(id string) *model.Case {
	var vs []model.Verdict
	if v := s.Verdicts[id]; v != "" {
		vs = []model.Verdict{v}
	}
	return triage.CaseOf(vs, s.Attempts[id], s.RetryOf[id])
}

// Settled reports whether a person has closed an execution's case: a verdict that ends it
// (confirmed_succeeded, duplicate, ignored) or a retry that took effect. confirmed_failed
// does not: the action is still to be done.
func (s *Store) Settled(id string) bool {
	c := s.Case(id)
	return c != nil && c.Settled
}

// Cases are the journal's cases of every execution the store knows any of, for
// Dataset.WithCases.
func (s *Store) Cases() map[string]*model.Case {
	out := map[string]*model.Case{}
	add := func(id string) {
		if _, done := out[id]; !done {
			if c := s.Case(id); c != nil {
				out[id] = c
			}
		}
	}
	for id := range s.Verdicts {
		add(id)
	}
	for id := range s.Attempts {
		add(id)
	}
	for id := range s.RetryOf {
		add(id)
	}
	return out
}
