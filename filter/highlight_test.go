package filter

import (
	"strings"
	"testing"

	"github.com/exectriage/exectriage/model"
)

// HighlightRow marks what made a row match in the columns the list shows: a
// free-text term fuzzily over the whole row, split over the columns it spans (per column it
// marked nothing when it spanned two), and field terms in their own column.
func TestHighlightRow(t *testing.T) {
	e := &model.Execution{ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", UserID: "user_12", ConnectedAccountID: "ca_9x"}
	f := FieldsOf(&Row{Exec: e, Triage: &model.Triage{}})
	text := map[string]string{"tool": e.ToolSlug, "toolkit": e.ToolkitSlug, "user": e.UserID, "account": e.ConnectedAccountID}
	marked := func(hl map[string][]int, col string) string {
		var b strings.Builder
		for _, p := range hl[col] {
			b.WriteByte(text[col][p])
		}
		return b.String()
	}
	tests := []struct {
		q    string
		want map[string]string // column → the marked bytes
	}{
		{"gmsend", map[string]string{"tool": "GMSEND"}},
		{"gmuser12", map[string]string{"tool": "GM", "user": "user12"}},
		{"tool:GMAIL_SEND_EMAIL", map[string]string{"tool": "GMAIL_SEND_EMAIL"}},
		{"user:user_1*", map[string]string{"user": "user_1"}},
		{"toolkit:mai", map[string]string{"toolkit": "mai"}},
		{"user:user_1", map[string]string{}}, // whole identifiers: user_12 is not user_1
		{"-gmail", map[string]string{}},
		{"tool:GMAIL_SEND_EMAIL user:*_12", map[string]string{"tool": "GMAIL_SEND_EMAIL", "user": "_12"}},
	}
	for _, tt := range tests {
		q, err := Parse(tt.q)
		if err != nil {
			t.Fatalf("%s: %v", tt.q, err)
		}
		hl := q.HighlightRow(f)
		for _, col := range Columns {
			got := strings.ToUpper(marked(hl, col))
			if want := strings.ToUpper(tt.want[col]); got != want {
				t.Errorf("%q: %s marks %q, want %q", tt.q, col, got, want)
			}
		}
	}
}
