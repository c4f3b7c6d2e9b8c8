package window

import (
	"fmt"
	"testing"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// The window numbers callers from its rows' symbols as triage.Callers numbers them from the
// records: tools that differ only in case are one caller's, an account counts before a user,
// a user and an account spelled alike are two callers; an email family's tools are one
// caller per user (triage.CallerTool).
func TestWindowCallersAreTriages(t *testing.T) {
	tools := []string{"GMAIL_SEND_EMAIL", "gmail_send_email", "Gmail_Send_Email", "SLACK_POST", "", "OUTLOOK_SEND_EMAIL", "GMAIL_CREATE_EMAIL_DRAFT"}
	people := []string{"", "u1", "u2", "ca_1", "u1"}
	var sum Summaries
	var c callerNums
	ref := triage.NewCallers()
	n := 0
	for i := range 500 {
		e := model.Execution{ID: fmt.Sprintf("log_%d", i), ToolSlug: tools[i%len(tools)], UserID: people[i%3], ConnectedAccountID: people[(i/7)%len(people)]}
		sum.Append(&e, nil)
		got, want := c.of(sum.Row(sum.Len()-1), e.ToolSlug), ref.Of(&e)
		if got != want {
			t.Fatalf("record %d (%q, user %q, account %q): caller %d, triage.Callers says %d", i, e.ToolSlug, e.UserID, e.ConnectedAccountID, got, want)
		}
		n = max(n, int(got)+1)
	}
	if n < 10 {
		t.Fatalf("only %d callers: the comparison says little", n)
	}
}
