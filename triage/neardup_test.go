package triage

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/model"
)

func mail(to, subject, body string) string {
	return fmt.Sprintf(`{"recipient_email":%q,"subject":%q,"body":%q}`, to, subject, body)
}

func slack(channel, text string) string {
	return fmt.Sprintf(`{"channel":%q,"text":%q}`, channel, text)
}

// TestNearDuplicateGrouping: the duplicates a person would count, and the near-misses a person
// would not, through Analyze and through Incremental (the TUI's path), which must agree.
func TestNearDuplicateGrouping(t *testing.T) {
	const (
		bodyA = "Hi Dana,\n\nAttached is invoice INV-1042 for $1,250.00, due on March 3. Let me know if you have any questions.\n\nBest,\nSam"
		bodyB = "Hello Dana,\n\nPlease find attached invoice INV-1042 for $1250, which is due March 3. Feel free to reach out with any questions.\n\nRegards,\nSam"
		bodyC = "Dana, invoice INV-1042 ($1,250.00) is attached; it is due March 3. Any questions, just ask. Sam"
	)
	tests := []struct {
		name     string
		attempts []attempt
		groups   [][]string
		pattern  model.RetryPattern
		match    string // regexp the group's Match must match
		reason   string // regexp the group's Reason must match
	}{
		{
			name: "agent re-sends a reworded email after a timeout",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1, args: mail("dana@x.io", "Invoice INV-1042", bodyA), session: "trs_1"},
				{id: "b", at: sec(60 + 12), dur: sec(1), retry: -1, args: mail("dana@x.io", "Invoice INV-1042", bodyB), session: "trs_1"},
			},
			groups: [][]string{{"a", "b"}}, pattern: model.PatternAgentRetry,
			match:  `^same recipients; body reworded, \d+% similar \(numbers and names equal\)$`,
			reason: `^2 attempts 12\.0 s after a timeout, the text regenerated each time, in one session: the agent called the tool again; fix: the agent retried`,
		},
		{
			name: "three regenerations join one group",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1, args: mail("dana@x.io", "Invoice INV-1042", bodyA)},
				{id: "b", at: sec(20), dur: sec(1), err: gatewayErr, retry: -1, args: mail("dana@x.io", "Invoice INV-1042", bodyB)},
				{id: "c", at: sec(50), dur: sec(1), retry: -1, args: mail("dana@x.io", "Invoice INV-1042", bodyC)},
			},
			groups: [][]string{{"a", "b", "c"}}, pattern: model.PatternAgentRetry,
			reason: `after each 5xx`,
		},
		{
			name: "identical repeats are still exact duplicates",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1, args: slack("C1", "deploy done")},
				{id: "b", at: sec(30), dur: sec(1), err: gatewayErr, retry: -1, args: slack("C1", "deploy done")},
				{id: "c", at: sec(60), dur: sec(1), retry: -1, args: slack("C1", "deploy done")},
			},
			groups: [][]string{{"a", "b", "c"}}, pattern: model.PatternAppRetry, match: `^identical arguments$`,
		},
		{
			name: "a newsletter: the same text to different recipients",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1, args: mail("a@x.io", "November news", bodyA)},
				{id: "b", at: sec(0.2), dur: sec(1), retry: -1, args: mail("b@x.io", "November news", bodyA)},
				{id: "c", at: sec(0.4), dur: sec(1), retry: -1, args: mail("c@x.io", "November news", bodyA)},
			},
		},
		{
			name: "two different messages to one channel",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1, args: slack("C1", "Deploy of billing-api v2.3 finished, all checks green.")},
				{id: "b", at: sec(40), dur: sec(1), retry: -1, args: slack("C1", "Deploy of billing-api v2.3 started.")},
				{id: "c", at: sec(80), dur: sec(1), retry: -1, args: slack("C1", "Order 1041 has shipped.")},
				{id: "d", at: sec(90), dur: sec(1), retry: -1, args: slack("C1", "Order 1042 has shipped.")},
			},
		},
		{
			name: "a follow-up after a success: same facts, new message",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1, args: mail("dana@x.io", "Invoice INV-1042", "Hi Dana, invoice INV-1042 for $1,250.00 is attached. Payment is due March 3.")},
				{id: "b", at: sec(240), dur: sec(1), retry: -1, args: mail("dana@x.io", "Invoice INV-1042", "Hi Dana, a reminder that invoice INV-1042 for $1,250.00 is still open; payment is due March 3.")},
			},
		},
		{
			name: "the same follow-up after a timeout is the agent's re-send",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1, args: mail("dana@x.io", "Invoice INV-1042", "Hi Dana, invoice INV-1042 for $1,250.00 is attached. Payment is due March 3.")},
				{id: "b", at: sec(90), dur: sec(1), retry: -1, args: mail("dana@x.io", "Invoice INV-1042", "Hi Dana, a reminder that invoice INV-1042 for $1,250.00 is still open; payment is due March 3.")},
			},
			groups: [][]string{{"a", "b"}}, pattern: model.PatternAgentRetry,
		},
		{
			// one caller, one target, the same facts (a name, an order, a day) after a timeout:
			// one intent however few words the two texts share
			name: "written anew after a timeout, every fact kept",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1, args: mail("ingrid@x.io", "Your order 42609", "Ingrid, we shipped order 42609 today. Expected delivery: Tuesday.")},
				{id: "b", at: sec(65), dur: sec(1), retry: -1, args: mail("ingrid@x.io", "Your order 42609", "Good news Ingrid: order 42609 is on its way and will be with you by Tuesday.")},
			},
			groups: [][]string{{"a", "b"}}, pattern: model.PatternAgentRetry,
			match: `^same recipients; body reworded, 22% similar \(numbers and names equal\)$`,
		},
		{
			name: "written anew after a success, every fact kept: a new message",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1, args: mail("ingrid@x.io", "Your order 42609", "Ingrid, we shipped order 42609 today. Expected delivery: Tuesday.")},
				{id: "b", at: sec(65), dur: sec(1), retry: -1, args: mail("ingrid@x.io", "Your order 42609", "Good news Ingrid: order 42609 is on its way and will be with you by Tuesday.")},
			},
		},
		{
			name: "written anew after a timeout about another day: two messages",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1, args: mail("ingrid@x.io", "Your order 42609", "Ingrid, we shipped order 42609 today. Expected delivery: Tuesday.")},
				{id: "b", at: sec(65), dur: sec(1), retry: -1, args: mail("ingrid@x.io", "Your order 42609", "Good news Ingrid: order 42609 is on its way and will be with you by Friday.")},
			},
		},
		{
			name: "a scheduled job repeating after the window",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1, args: slack("C1", "Nightly report is ready")},
				{id: "b", at: sec(3600), dur: sec(1), retry: -1, args: slack("C1", "Nightly report is ready")},
			},
		},
		{
			name: "interleaved: two conversations to one channel, each re-sent",
			attempts: []attempt{
				{id: "a1", at: 0, dur: sec(1), err: gatewayErr, retry: -1, args: slack("C1", "The quarterly review with Acme is tomorrow at 10:00")},
				{id: "b1", at: sec(5), dur: sec(1), err: gatewayErr, retry: -1, args: slack("C1", "Lunch order for Friday is in the kitchen")},
				{id: "a2", at: sec(30), dur: sec(1), retry: -1, args: slack("C1", "Reminder: our quarterly review with Acme is tomorrow at 10:00")},
				{id: "b2", at: sec(35), dur: sec(1), retry: -1, args: slack("C1", "Friday's lunch order is in the kitchen")},
			},
			groups: [][]string{{"a1", "a2"}, {"b1", "b2"}}, pattern: model.PatternAgentRetry,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			execs := make([]model.Execution, len(tt.attempts))
			for i, a := range tt.attempts {
				execs[i] = a.exec()
			}
			if strings.HasPrefix(tt.attempts[0].args, `{"channel"`) { // Slack arguments: a Slack tool
				for i := range execs {
					execs[i].ToolSlug, execs[i].ToolkitSlug = "SLACK_SEND_MESSAGE", "slack"
				}
			}
			res := Analyze(execs, nil, Options{})
			var got [][]string
			for _, g := range res.Groups {
				got = append(got, g.ExecutionIDs)
				if tt.pattern != "" && g.Pattern != tt.pattern {
					t.Errorf("group %v: pattern %s, want %s (%s)", g.ExecutionIDs, g.Pattern, tt.pattern, g.Reason)
				}
				if tt.match != "" && !regexp.MustCompile(tt.match).MatchString(g.Match) {
					t.Errorf("group %v: match %q, want /%s/", g.ExecutionIDs, g.Match, tt.match)
				}
				if tt.reason != "" && !regexp.MustCompile(tt.reason).MatchString(g.Reason) {
					t.Errorf("group %v: reason %q, want /%s/", g.ExecutionIDs, g.Reason, tt.reason)
				}
				if (g.Similarity < 1) != strings.Contains(g.Match, "reworded") || g.Similarity <= 0 {
					t.Errorf("group %v: similarity %.2f with match %q", g.ExecutionIDs, g.Similarity, g.Match)
				}
			}
			if !slices.EqualFunc(got, tt.groups, slices.Equal) {
				t.Fatalf("groups %v, want %v", got, tt.groups)
			}
			inc := NewIncremental(nil, Options{})
			for i := range execs {
				inc.Add(&execs[i])
			}
			groups, _, err := inc.Groups(context.Background(), func(_ context.Context, pos int) (model.Execution, error) { return execs[pos], nil })
			if err != nil {
				t.Fatal(err)
			}
			if len(groups) != len(res.Groups) {
				t.Fatalf("incremental found %d groups, Analyze %d", len(groups), len(res.Groups))
			}
			for i := range groups {
				if !slices.Equal(groups[i].ExecutionIDs, res.Groups[i].ExecutionIDs) || groups[i].Pattern != res.Groups[i].Pattern || groups[i].Match != res.Groups[i].Match {
					t.Errorf("incremental group %+v, Analyze %+v", groups[i], res.Groups[i])
				}
			}
		})
	}
}
