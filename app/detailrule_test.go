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

// A write whose old-SDK note depends on the language is read once per installation (an SDK
// version and a user, else an account), across batches; none when a whole record of its
// installation names the language; its own when it names no caller.
func TestDetailRuleReadsALanguageOncePerInstallation(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	send := func(id, user, account, ver string, hours int) model.Execution {
		return model.Execution{ID: id, ToolSlug: "GMAIL_SEND_EMAIL", UserID: user, ConnectedAccountID: account, SDKVersion: ver,
			Status: "success", Timestamp: at.Add(-time.Duration(hours) * time.Hour)}
	}
	whole := send("whole", "u3", "", "0.15.0", 20)
	whole.Detailed, whole.Source = true, model.Source{Language: "python"}
	batches := [][]model.Execution{
		{send("u1-a", "u1", "", "0.15.0", 1), send("u1-b", "u1", "", "0.15.0", 2), send("u1-old", "u1", "", "0.13.1", 3),
			send("u2-a", "u2", "", "0.15.0", 4), send("ca-a", "", "ca_1", "0.15.0", 5), send("nobody-a", "", "", "0.15.0", 6)},
		{send("u1-c", "u1", "", "0.15.0", 7), send("u2-other", "u2", "", "0.15.2", 8), send("ca-b", "", "ca_1", "0.15.0", 9),
			send("nobody-b", "", "", "0.15.0", 10), whole, send("u3-a", "u3", "", "0.15.0", 21)},
	}
	r := newDetailRule(triage.NewKinds(), 10*time.Minute)
	var ids []string
	for n, b := range batches {
		need, again := r.needBatch(b, n)
		for _, i := range need {
			ids = append(ids, b[i].ID)
		}
		if len(again) != 0 {
			t.Errorf("batch %d: %d fetched again", n, len(again))
		}
	}
	if want := []string{"u1-a", "u2-a", "ca-a", "nobody-a", "u2-other", "nobody-b"}; !slices.Equal(ids, want) {
		t.Errorf("details fetched for %v, want %v", ids, want)
	}
}
