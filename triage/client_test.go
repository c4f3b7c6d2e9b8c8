package triage

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// TestTwoClientsNeverJoin: the seed's case as its records read. @composio/core 0.13.1 re-sends
// a Gmail send three times after a 5xx (its backoff's gaps, 0.45 s and 0.97 s); 2 s later 0.14.0
// sends another email to the same recipient, whose subject carries another version and id.
// The three are one group caused by the SDK's retries; the fourth came from another client
// (another SDK version: another process), so it is no one's retry and joins no group of
// theirs (it made the group "agent_retry, the text regenerated each time").
func TestTwoClientsNeverJoin(t *testing.T) {
	base := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	send := func(id, version, subject string, at time.Duration) model.Execution {
		args, _ := json.Marshal(map[string]string{"recipient_email": "sdk@example.com", "subject": subject, "body": "sent by the real SDK"})
		start := base.Add(at)
		return model.Execution{ID: id, ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", ConnectedAccountID: "ca_1", UserID: "u1",
			Status: "failed", Error: &model.ExecError{Kind: model.ErrUpstream5xx, HTTPStatus: 502, Message: "Bad Gateway"},
			Timestamp: start, StartTime: start, EndTime: start.Add(200 * time.Millisecond), Duration: 200 * time.Millisecond, HasDuration: true,
			SDKVersion: version, Source: model.Source{Host: "sdk", Language: "typescript"}, Arguments: args, Detailed: true, RetryCount: -1}
	}
	old := fmt.Sprintf("exectriage-seed-0.13.1-%08x", 0x1a2b3c4d)
	execs := []model.Execution{
		send("log_1", "0.13.1", old, 0),
		send("log_2", "0.13.1", old, 650*time.Millisecond),
		send("log_3", "0.13.1", old, 1820*time.Millisecond),
		send("log_4", "0.14.0", fmt.Sprintf("exectriage-seed-0.14.0-%08x", 0x9f8e7d6c), 3820*time.Millisecond),
	}
	res := Analyze(execs, nil, Options{})
	if len(res.Groups) != 1 {
		t.Fatalf("%d groups, want one: %+v", len(res.Groups), res.Groups)
	}
	g := res.Groups[0]
	if ids := slices.Sorted(slices.Values(g.ExecutionIDs)); !slices.Equal(ids, []string{"log_1", "log_2", "log_3"}) || g.Pattern != model.PatternSDKAutoRetry {
		t.Errorf("group %v %s (%s), want log_1-3, sdk_auto_retry", g.ExecutionIDs, g.Pattern, g.Reason)
	}
	// the same records with no SDK version recorded: the rule needs both versions to part them
	for i := range execs {
		execs[i].SDKVersion = ""
	}
	if res := Analyze(execs, nil, Options{}); len(res.Groups) == 0 {
		t.Error("without versions the burst is in no group")
	}
}
