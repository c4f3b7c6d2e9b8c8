package data

import (
	"time"

	"github.com/exectriage/exectriage/model"
)

// HistoryLine is one entry of an execution's journal history, already phrased for a person.
type HistoryLine struct {
	Time time.Time
	Text string
}

// Store is what the panes read: the current dataset plus what was learned since (full
// details, provider states, journal history, retries in flight). The root model owns it and
// changes it only in Update; components hold a pointer and only read.
type Store struct {
	DS        *Dataset
	Details   map[string]model.Execution      // full detail records, by id
	Provider  map[string]model.ProviderState  // verifier results, by id
	Verifying map[string]bool                 // a verify is running
	Attempts  map[string][]model.RetryAttempt // journal retry attempts, by execution id
	Verdicts  map[string]model.Verdict        // latest recorded verdict, by execution id
	History   map[string][]HistoryLine        // journal history, by execution id
	Retrying  map[string]bool                 // a retry is in flight
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{
		DS:        &Dataset{},
		Details:   map[string]model.Execution{},
		Provider:  map[string]model.ProviderState{},
		Verifying: map[string]bool{},
		Attempts:  map[string][]model.RetryAttempt{},
		Verdicts:  map[string]model.Verdict{},
		History:   map[string][]HistoryLine{},
		Retrying:  map[string]bool{},
	}
}

// Exec returns execution i of the dataset, replaced by its full detail when fetched.
func (s *Store) Exec(i int) *model.Execution {
	e := &s.DS.Execs[i]
	if d, ok := s.Details[e.ID]; ok {
		return &d
	}
	return e
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
