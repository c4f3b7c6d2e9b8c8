package app

import (
	"path/filepath"

	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/triage"
)

// SessionArgs are the flags a command line needs to read what this session reads: --demo, or
// --file with the export's absolute path, --base-url, --profile, and --journal when one was
// named (a URL's or a DSN's credential hidden: the person supplies it). Every hint that
// names a command carries them (a demo's hint that named a command without them read the
// real journal and printed "(empty)").
func (a *App) SessionArgs() []string {
	return sessionArgs(a.o, a.src != nil && a.src.Kind() == model.SourceDemo || a.o.JournalOnly && a.o.Demo)
}

// SessionArgsOf are SessionArgs for options with no session open yet (the journal commands).
func SessionArgsOf(o Options) []string { return sessionArgs(o, journalIsDemo(o)) }

func sessionArgs(o Options, demo bool) []string {
	var in []string
	switch {
	case demo:
		in = append(in, "--demo")
	case o.File != "":
		p := o.File
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		in = append(in, "--file", p)
	}
	if o.BaseURL != "" { // without a credential it may carry (redact.Location, the one rule)
		in = append(in, "--base-url", redact.Location(o.BaseURL))
	}
	if o.Profile != "" {
		in = append(in, "--profile", o.Profile)
	}
	if o.Journal != "" {
		in = append(in, "--journal", journal.RedactDSN(o.Journal))
	}
	return in
}

// Hint is an exectriage command line in this session, in backticks: "`exectriage --demo
// resolve ID`".
func (a *App) Hint(verb string, args ...string) string {
	return "`" + triage.CommandLine(a.SessionArgs(), verb, args...) + "`"
}

// inSession gives a guard decision's next step this session's flags.
func (a *App) inSession(d triage.GuardDecision) triage.GuardDecision {
	d.Next.In = a.SessionArgs()
	return d
}
