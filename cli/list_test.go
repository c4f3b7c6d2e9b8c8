package cli

import (
	"testing"
	"time"
)

// TestNewCmdList: list's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdList(t *testing.T) {
	newCmdTable(t, NewCmdList, []argvCase[ListOptions]{
		{argv: "gmsend --filter flagged:yes --limit 7 --jq .executions --since 2d --file x.jsonl", want: func(o *ListOptions) string {
			return differs("Filter", o.Filter, "flagged:yes", "Query", o.Query, []string{"gmsend"}, "Limit", o.Limit, 7,
				"jq", o.Source.jq, ".executions", "since", o.Source.since, 48*time.Hour, "sinceSet", o.Source.sinceSet, true,
				"file", o.Source.file, "x.jsonl")
		}},
		{argv: "--session trs_1 --no-pager --view team", want: func(o *ListOptions) string {
			return differs("Session", o.Session, "trs_1", "NoPager", o.NoPager, true, "view", o.Source.view, "team", "Query", len(o.Query), 0)
		}},
		{argv: "--limit -1", wantErr: "--limit must not be negative"},
		{argv: "--reason x", wantErr: "unknown flag: --reason"},
		{argv: "''", wantErr: "an empty argument"},
	})
}
