package triage

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// syntheticHistory builds n detailed executions over a week: a third reads, the rest writes
// over 2,000 accounts, a few percent failing in every way, and about one write in twenty
// repeated as an SDK retry, an application retry or a double submit.
func syntheticHistory(n int, seed uint64) []model.Execution {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	slugs := []string{"GMAIL_SEND_EMAIL", "SLACK_SEND_MESSAGE", "GITHUB_CREATE_AN_ISSUE", "HUBSPOT_CREATE_CONTACT",
		"GMAIL_FETCH_EMAILS", "SLACK_FETCH_CONVERSATION_HISTORY", "GITHUB_LIST_REPOSITORY_ISSUES"}
	errs := []*model.ExecError{
		{Kind: model.ErrTimeout, Message: "Request timed out"},
		{Kind: model.ErrUpstream5xx, HTTPStatus: 502, Message: "Bad Gateway"},
		{Kind: model.ErrRateLimited, HTTPStatus: 429},
		{Kind: model.ErrValidation, Message: "subject: required"},
		{Message: "read ECONNRESET"},
	}
	out := make([]model.Execution, 0, n)
	span := 7 * 24 * time.Hour
	for len(out) < n {
		i := len(out)
		slug := slugs[rng.IntN(len(slugs))]
		start := t0.Add(time.Duration(rng.Int64N(int64(span))))
		dur := time.Duration(200+rng.IntN(3000)) * time.Millisecond
		args, _ := json.Marshal(map[string]any{
			"recipient_email": fmt.Sprintf("user%d@example.com", rng.IntN(5000)),
			"subject":         fmt.Sprintf("Order %d", rng.IntN(100000)),
			"body":            "Thanks for your order.",
			"timestamp":       start.Format(time.RFC3339Nano),
		})
		e := model.Execution{
			ID: fmt.Sprintf("log_%08d", i), ToolSlug: slug, ConnectedAccountID: fmt.Sprintf("ca_%04d", rng.IntN(2000)),
			Status: "success", StartTime: start, Timestamp: start, EndTime: start.Add(dur), Duration: dur, HasDuration: true,
			Arguments: args, RetryCount: -1, Detailed: true,
		}
		if rng.IntN(25) == 0 {
			e.Status, e.Error = "failed", errs[rng.IntN(len(errs))]
		}
		out = append(out, e)
		if rng.IntN(20) == 0 && len(out) < n { // a duplicate
			d := e
			d.ID += "-dup"
			gap := []time.Duration{450 * time.Millisecond, 300 * time.Millisecond, 30 * time.Second}[rng.IntN(3)]
			d.StartTime = e.EndTime.Add(gap)
			d.Timestamp, d.EndTime = d.StartTime, d.StartTime.Add(dur)
			d.Status, d.Error = "success", nil
			out = append(out, d)
		}
	}
	return out
}

// BenchmarkAnalyze100k measures scan-scale triage: classification, canonical argument
// hashing and grouping of 100,000 executions (target: well under a few seconds per op).
func BenchmarkAnalyze100k(b *testing.B) {
	execs := syntheticHistory(100_000, 1)
	k := NewKinds()
	b.ReportAllocs()
	b.ResetTimer()
	var res *Result
	for b.Loop() {
		res = Analyze(execs, k, Options{})
	}
	b.StopTimer()
	if len(res.Triage) != len(execs) || len(res.Groups) == 0 {
		b.Fatalf("triage %d, groups %d", len(res.Triage), len(res.Groups))
	}
	b.ReportMetric(float64(len(res.Groups)), "groups")
}

func TestSyntheticHistoryAnalyzes(t *testing.T) {
	execs := syntheticHistory(5000, 2)
	res := Analyze(execs, nil, Options{})
	if len(res.Groups) < 100 {
		t.Errorf("only %d groups in a history with ~5%% duplicates", len(res.Groups))
	}
	for _, g := range res.Groups {
		if len(g.ExecutionIDs) < 2 || g.Pattern == "" || g.Reason == "" {
			t.Fatalf("malformed group %+v", g)
		}
	}
}

// BenchmarkClassifier100k is a streaming scan's per-record triage (Classifier.Classify) over
// 100,000 executions, most of them successes.
func BenchmarkClassifier100k(b *testing.B) {
	execs := syntheticHistory(100_000, 1)
	for b.Loop() {
		c := NewClassifier(NewKinds(), Options{})
		for i := range execs {
			c.Classify(&execs[i])
		}
	}
}
