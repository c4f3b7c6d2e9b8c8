package triage

import (
	"testing"

	"github.com/exectriage/exectriage/model"
)

func TestProbeClassify(t *testing.T) {
	for _, s := range []string{
		"Created issue #42; invalid label 'bug' ignored",
		"Sent the email, but the label 'done' does not exist",
		"Uploaded report.pdf; sharing failed: permission denied",
		"Success: message id 18c2f; warning: invalid header dropped",
		"Message id 18c2f returned, but the thread was not found",
		"The event exists now, but inviting bob@acme.test was forbidden",
		"Draft saved as r-1234 but send failed: invalid recipient",
		"Charge succeeded; receipt email invalid",
		"OK (201 Created), then 404 on the follow-up fetch",
		"Issue #42 opened; assignee 'bob' not found",
		"The page now exists but property 'Status' is invalid",
		"Completed with errors: 2 invalid rows skipped",
		"Done, but 1 invalid recipient was skipped",
		"Recipient lee@acme.test is invalid and was skipped",
	} {
		e := &model.Execution{ToolSlug: "GMAIL_SEND_EMAIL", Status: "failed", Error: &model.ExecError{Message: s}}
		got, reason := Classify(e, model.KindWrite, Options{})
		t.Logf("%-9s %-70q %s", got, s, reason[:min(len(reason), 60)])
	}
}
