// Package watch turns a window's judgement into events a team is told of, once each: a new
// flagged write, a new duplicate group or a new member of one, a retry left indeterminate. It
// names each event by what it is about (so finding it again is not a new event), keeps every
// event in the journal's outbox before it is sent (journal.Outbox), and delivers it to sinks: a
// webhook signed as Standard Webhooks, a Slack incoming webhook, JSON lines.
package watch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"

	"github.com/exectriage/exectriage/model"
)

// EventVersion is the version of an event's JSON body (docs/json.md, "watch events").
const EventVersion = 1

// Kind is what an event says.
type Kind string

// Event kinds.
const (
	KindFlagged     Kind = "flagged"      // a write whose outcome is unknown, not yet settled
	KindGroup       Kind = "group"        // a duplicate group seen for the first time
	KindGroupMember Kind = "group_member" // a new member of a group already told
	KindUnresolved  Kind = "unresolved"   // exectriage's own retry left indeterminate
)

// Kinds are every kind, in the order the docs list them.
var Kinds = []Kind{KindFlagged, KindGroup, KindGroupMember, KindUnresolved}

// Event is one thing to tell, as sinks send it (the webhook's body, a JSON line).
type Event struct {
	Version int    `json:"version"`
	ID      string `json:"id"`
	Kind    Kind   `json:"kind"`
	// Found is when the watcher found it (not when the executions ran).
	Found time.Time `json:"found_at"`
	// ExecutionIDs are the log ids it is about: the execution; a group's members, oldest first;
	// a new member; the execution whose retry is left indeterminate.
	ExecutionIDs []string `json:"execution_ids"`
	Tool         string   `json:"tool,omitempty"`
	Toolkit      string   `json:"toolkit,omitempty"`
	// Reason is triage's reason (flagged), the group's reason (group, group_member), or what
	// the journal says of the attempt (unresolved).
	Reason string `json:"reason"`
	// Cause is a group's cause (duplicate_group's pattern).
	Cause   model.RetryPattern `json:"cause,omitempty"`
	GroupID string             `json:"group_id,omitempty"`
	// AttemptID and RetryLogID name exectriage's retry (unresolved).
	AttemptID  string `json:"attempt_id,omitempty"`
	RetryLogID string `json:"retry_log_id,omitempty"`
	// Command is what a person runs to see it.
	Command string `json:"command"`
	// Source names where the executions were read ("LIVE host").
	Source string `json:"source"`
}

// IDFor is the stable id of the event of kind about key: the same thing found again, by this
// watcher or another, has the same id (a receiver deduplicates by it).
func IDFor(kind Kind, key ...string) string {
	h := sha256.New()
	h.Write([]byte(kind))
	for _, k := range key {
		h.Write([]byte{0})
		h.Write([]byte(k))
	}
	return "evt_" + hex.EncodeToString(h.Sum(nil)[:12])
}

// Body is the event's JSON.
func (e Event) Body() []byte {
	b, _ := json.Marshal(e) // a struct of strings, times and slices: cannot fail
	return b
}

// Row is what watch reads of one execution of the window.
type Row struct {
	Exec   model.Execution
	Triage model.Triage
}

// when is the row's time (zero for an execution outside the window).
func (r *Row) when() time.Time {
	if r == nil {
		return time.Time{}
	}
	return r.Exec.Timestamp
}

// Found is one pass's findings: the events it may tell, and the ids of events something else
// already tells (a group's members when the group is told whole).
type Found struct {
	Events  []Event
	Covered []string
}

// Wanted are the ids whose being known decides what Find tells: each group's id (a group told
// before tells only its new members).
func Wanted(groups []model.DuplicateGroup) []string {
	ids := make([]string, 0, len(groups))
	for _, g := range groups {
		if len(g.ExecutionIDs) > 0 {
			ids = append(ids, groupKey(g))
		}
	}
	return ids
}

// groupKey is the event id of a group: named by its oldest member, which stays its oldest as
// members join.
func groupKey(g model.DuplicateGroup) string { return IDFor(KindGroup, g.ExecutionIDs[0]) }

// Window is what one pass read: the rows the filter matched, the window's groups, the
// journal's attempts.
type Window struct {
	Rows     []Row
	Groups   []model.DuplicateGroup
	Attempts []model.RetryAttempt
	// Filtered: a filter chose Rows, so an attempt of an execution not among them is left
	// out (without one, an attempt is told even when its execution left the window).
	Filtered bool
	Source   string
}

// Find is what a window tells: rows flagged (a settled case is not: triage.ApplyCase); groups with a matched member,
// whole when the group is new, else one event per member (known says which group events are
// recorded: Wanted's ids); attempts left indeterminate. now is when it was found.
func Find(w Window, known map[string]bool, now time.Time) Found {
	rows, groups, attempts := w.Rows, w.Groups, w.Attempts
	var f Found
	byID := make(map[string]*Row, len(rows))
	for i := range rows {
		r := &rows[i]
		byID[r.Exec.ID] = r
		if r.Triage.Flagged {
			f.Events = append(f.Events, Event{Kind: KindFlagged, ID: IDFor(KindFlagged, r.Exec.ID), ExecutionIDs: []string{r.Exec.ID},
				Tool: r.Exec.ToolSlug, Toolkit: r.Exec.ToolkitSlug, Reason: r.Triage.Reason, Command: "exectriage show " + r.Exec.ID})
		}
	}
	for _, g := range groups {
		if len(g.ExecutionIDs) == 0 || !slices.ContainsFunc(g.ExecutionIDs, func(id string) bool { return byID[id] != nil }) {
			continue
		}
		first := g.ExecutionIDs[0]
		e := Event{Cause: g.Pattern, GroupID: g.ID, Reason: g.Reason, Command: "exectriage show " + first}
		if r := byID[first]; r != nil {
			e.Tool, e.Toolkit = r.Exec.ToolSlug, r.Exec.ToolkitSlug
		}
		gid := groupKey(g)
		if !known[gid] {
			e.Kind, e.ID, e.ExecutionIDs = KindGroup, gid, slices.Clone(g.ExecutionIDs)
			f.Events = append(f.Events, e)
			for _, m := range g.ExecutionIDs {
				f.Covered = append(f.Covered, IDFor(KindGroupMember, first, m))
			}
			continue
		}
		for _, m := range g.ExecutionIDs[1:] {
			me := e
			me.Kind, me.ID, me.ExecutionIDs, me.Command = KindGroupMember, IDFor(
				KindGroupMember,
				first,
				m,
			), []string{
				first,
				m,
			}, "exectriage show "+m
			f.Events = append(f.Events, me)
		}
	}
	for _, at := range attempts {
		if at.State != model.AttemptIndeterminate {
			continue
		}
		if w.Filtered && byID[at.ExecutionID] == nil {
			continue // the filter left its execution out
		}
		e := Event{Kind: KindUnresolved, ID: IDFor(KindUnresolved, at.ID), ExecutionIDs: []string{at.ExecutionID}, Tool: at.ToolSlug,
			AttemptID: at.ID, RetryLogID: at.NewLogID, Command: "exectriage resolve " + at.ID,
			Reason: "exectriage's retry of " + at.ExecutionID + " was sent and its outcome is unknown: find out whether it took effect " +
				"before anything else"}
		if r := byID[at.ExecutionID]; r != nil {
			e.Toolkit = r.Exec.ToolkitSlug
		}
		f.Events = append(f.Events, e)
	}
	// Oldest first: a team reads them in the order they happened.
	slices.SortStableFunc(f.Events, func(a, b Event) int { return byID[a.ExecutionIDs[0]].when().Compare(byID[b.ExecutionIDs[0]].when()) })
	for i := range f.Events {
		f.Events[i].Version, f.Events[i].Found, f.Events[i].Source = EventVersion, now.UTC(), w.Source
	}
	return f
}
