package app

import (
	"slices"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// The live load fetches the detail of a write's neighbours of the same caller as triage
// groups them: an Outlook send that followed the user's failed Gmail send (a sibling
// tool) is read whole, or the load could never find the group a file of the same records
// finds.
func TestDetailRuleReadsTheCallersTriageGroups(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	batch := []model.Execution{
		{ID: "gmail", ToolSlug: "GMAIL_SEND_EMAIL", ConnectedAccountID: "ca_g", UserID: "u1", Status: "failed", Timestamp: at},
		{ID: "outlook", ToolSlug: "OUTLOOK_SEND_EMAIL", ConnectedAccountID: "ca_o", UserID: "u1", Status: "success", Timestamp: at.Add(40 * time.Second)},
		{ID: "slack-a", ToolSlug: "SLACK_SEND_MESSAGE", ConnectedAccountID: "ca_s1", UserID: "u1", Status: "success", Timestamp: at},
		{ID: "slack-b", ToolSlug: "SLACK_SEND_MESSAGE", ConnectedAccountID: "ca_s2", UserID: "u1", Status: "success", Timestamp: at.Add(time.Second)},
	}
	r := newDetailRule(triage.NewKinds(), 10*time.Minute)
	need, again := r.needBatch(batch, 0)
	var ids []string
	for _, i := range need {
		ids = append(ids, batch[i].ID)
	}
	if want := []string{"gmail", "outlook"}; !slices.Equal(ids, want) || len(again) != 0 {
		t.Fatalf("details fetched for %v (again %d), want %v", ids, len(again), want)
	}
}

// A record that comes whole (a cache hands on the details it keeps) needs no detail, but a list
// entry of the same caller beside it does: without it the two could not be compared.
func TestDetailRuleReadsTheNeighbourOfAWholeRecord(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	batch := []model.Execution{
		{ID: "later", ToolSlug: "SLACK_SEND_MESSAGE", ConnectedAccountID: "ca_s", UserID: "u1", Status: "success", Timestamp: at.Add(30 * time.Second)},
		{ID: "whole", ToolSlug: "SLACK_SEND_MESSAGE", ConnectedAccountID: "ca_s", UserID: "u1", Status: "failed", Timestamp: at, Detailed: true},
	}
	r := newDetailRule(triage.NewKinds(), 10*time.Minute)
	need, again := r.needBatch(batch, 0)
	var ids []string
	for _, i := range need {
		ids = append(ids, batch[i].ID)
	}
	if want := []string{"later"}; !slices.Equal(ids, want) || len(again) != 0 {
		t.Fatalf("details fetched for %v (again %d), want %v", ids, len(again), want)
	}
}
