package filter

import (
	"testing"

	"github.com/exectriage/exectriage/model"
)

// FuzzParse: any query either parses or gives an error, never panics, and a parsed query
// filters an index exactly as matching each row one by one does.
func FuzzParse(f *testing.F) {
	for _, q := range []string{"", "gmsend", "user:42", "tool:\"GMAIL SEND\"", "-status:success timedout",
		"flagged:yes group:", "kind:write outcome:ambiguous", "é✓\x00", "\"unterminated", "nosuch:field", "-", "::"} {
		f.Add(q)
	}
	rows := []model.Execution{
		{ID: "log_a1", ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", UserID: "user_42", ConnectedAccountID: "ca_1", Status: "failed",
			Error: &model.ExecError{Message: "Request timed out", Kind: model.ErrTimeout}},
		{ID: "log_b2", ToolSlug: "SLACK_SEND_MESSAGE", ToolkitSlug: "slack", UserID: "user_7", Status: "success"},
		{ID: "log_ç3", ToolSlug: "GITHUB_CREATE_AN_ISSUE", ToolkitSlug: "github", UserID: "ユーザー", Status: "success"},
	}
	tri := []model.Triage{
		{Kind: model.KindWrite, Outcome: model.OutcomeAmbiguous, Flagged: true, GroupID: "dup-1"},
		{Kind: model.KindWrite, Outcome: model.OutcomeSucceeded},
		{Kind: model.KindWrite, Outcome: model.OutcomeSucceeded},
	}
	f.Fuzz(func(t *testing.T, q string) {
		query, err := Parse(q)
		if err != nil {
			return
		}
		ix := NewIndex(len(rows))
		var want []int
		for i := range rows {
			row := Row{Exec: &rows[i], Triage: &tri[i]}
			ix.Append(row)
			if ok, _ := query.Match(&row); ok {
				want = append(want, i)
			}
		}
		got := ix.Filter(query)
		if len(got) != len(want) {
			t.Fatalf("query %q: index gave %v, row matching gave %v", q, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("query %q: index gave %v, row matching gave %v", q, got, want)
			}
		}
		_ = query.Highlight("GMAIL_SEND_EMAIL gmail user_42")
	})
}
