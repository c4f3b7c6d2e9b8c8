package sandbox

import (
	"slices"
	"sort"
	"time"

	"github.com/exectriage/exectriage/model"
)

// addEvents adds to the history the records of other types the logs carry beside tool
// executions (composio-api.md, round 3): a connected_account.created for each account made in
// the span, and a trigger.message (a Gmail new-message trigger delivered to the app) for about
// one Gmail execution in twenty. exectriage must show them and never take them for writes.
func (s *Server) addEvents() {
	var add []*model.Execution
	start := s.cfg.Now.Add(-s.cfg.Span)
	for _, a := range s.w.accounts {
		if a.created.Before(start) || a.created.After(s.cfg.Now) {
			continue
		}
		add = append(add, s.accountEvent(a, a.created))
	}
	// an account made while the sandbox serves is logged as it is made
	s.w.accountMade = func(a *account) {
		e := s.accountEvent(a, s.clock())
		i := sort.Search(len(s.logs), func(i int) bool { return !logLess(s.logs[i], e) })
		s.logs = slices.Insert(s.logs, i, e)
		s.byID[e.ID] = e
	}
	n := 0
	for _, e := range s.logs {
		if e.ToolkitSlug != "gmail" {
			continue
		}
		if n++; n%20 != 0 {
			continue
		}
		add = append(add, &model.Execution{ID: s.w.ids.logID(), Type: model.TypeTriggerMessage,
			Timestamp: e.Timestamp.Add(-1500 * time.Millisecond).Truncate(time.Millisecond), ToolSlug: "GMAIL_NEW_GMAIL_MESSAGE",
			ToolkitSlug: "gmail", UserID: e.UserID, ConnectedAccountID: e.ConnectedAccountID, Status: model.StatusSuccess, Level: "info",
			Message: "Trigger GMAIL_NEW_GMAIL_MESSAGE delivered", RetryCount: -1, Detailed: true})
	}
	s.logs = append(s.logs, add...)
	sort.Slice(s.logs, func(i, j int) bool { return logLess(s.logs[i], s.logs[j]) })
	s.logs = slices.Clip(s.logs)
	for _, e := range add {
		s.byID[e.ID] = e
	}
}

// accountEvent is the connected_account.created record of a, made at.
func (s *Server) accountEvent(a *account, at time.Time) *model.Execution {
	return &model.Execution{ID: s.w.ids.logID(), Type: model.TypeAccountCreated, Timestamp: at.Truncate(time.Millisecond),
		ToolkitSlug: a.toolkit, UserID: a.userID, ConnectedAccountID: a.id, Status: model.StatusSuccess, Level: "info",
		Message: "Connected account " + a.id + " created", RetryCount: -1, Detailed: true}
}
