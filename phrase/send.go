package phrase

import "fmt"

// Send is what a retry would send (app.App.Evidence), for the dialog that asks to confirm it:
// the request, the tool version, whose account, the arguments (redacted; the retry sends the
// original bytes) and, when a journal guards the retry, which and whom it guards.
type Send struct {
	Slug        string
	VersionNote string // retry.ToolVersionOf's note
	Account     string // "" for none
	User        string // "" for none
	Args        string // compact JSON, cut to a bound
	More        int    // bytes of the arguments cut off
	Journal     string // "SQLite journal", "PostgreSQL journal"; "" when none guards the retry
	Guards      Guards
}

// Lines says it, one line each.
func (s Send) Lines() []string {
	args := s.Args
	if s.More > 0 {
		args += fmt.Sprintf("… (%d more bytes)", s.More)
	}
	out := []string{
		"POST tools/execute/" + s.Slug + ", once, through the no-retry client",
		"tool version " + s.VersionNote,
		"account " + orDash(s.Account) + " · user " + orDash(s.User),
		"arguments " + args,
		"x-request-id = a new attempt id, journaled before anything is sent",
	}
	if s.Journal != "" {
		out = append(out, "guarded by the "+s.Journal+": "+s.Guards.Sentence())
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
