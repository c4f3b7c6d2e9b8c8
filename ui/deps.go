package ui

import (
	"context"
	"time"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/bundle"
	"github.com/exectriage/exectriage/internal/heap"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/ui/keys"
	"github.com/exectriage/exectriage/ui/theme"
)

// Backend is everything the TUI asks of the outside world: the source, triage, the verifiers,
// the journal, the guarded retry and the bundle writer. *app.App implements it: the TUI calls
// the application layer through it, with no adapter between (tests wrap it to count or fail a
// call). SourceName, Hint, JournalProblem, ReadOnly, CheckRead, Profile, SourceKind,
// RateWaiting, Hold, VerdictsFor, DashboardURL, Policy and NewFeed read what the session holds
// and never block: Update may call them. Every other method may block; the UI calls them only
// from tea.Cmds (ui/model_test.go, TestTheLoopDoesNoIOAndCmdsChangeNoState, holds it).
type Backend interface {
	// SourceName names the source for the header: "LIVE", "DEMO", "FILE name" or a base URL.
	SourceName() string
	// Hint is a command line that runs verb in this session (--demo, --file...), in backticks.
	Hint(verb string, args ...string) string
	// JournalProblem is why the journal could not be opened ("" when it is open): retries
	// and verdicts are off, and the header says so for as long as it lasts.
	JournalProblem() string
	// ReadOnly says the session may not retry, mark or write; CheckRead says why a provider
	// check may not run (nil when it may).
	ReadOnly() bool
	CheckRead() error
	// Profile is the config profile the session runs under (Name "" for none).
	Profile() app.ProfileInfo
	// RecordJSON, CurlFor and WriteCopy are the copy menu's: the record redacted, a curl
	// reproduction without the key, and the file fallback when OSC 52 cannot be used.
	RecordJSON(e *model.Execution) string
	CurlFor(e *model.Execution) phrase.Curl
	WriteCopy(what, text string) (string, error)
	// DashboardURL is the execution's page in the Composio dashboard (app.ErrNoDashboardURL
	// when the config names none); OpenURL opens it in a browser, opened false when there is
	// none to open it in.
	DashboardURL(logID string) (string, error)
	OpenURL(ctx context.Context, addr string) (opened bool, err error)
	// SourceKind says what the source reads (live API, demo, file), for the header's colour:
	// never guessed from the name (a base URL is live).
	SourceKind() model.SourceKind
	// NewFeed returns the window a TUI loads into (app.Feed): its loads and analyses run in
	// commands, and the TUI sees counts and datasets, never the records of a page.
	NewFeed() *app.Feed
	// RateWaiting says what a load waits for while the API's rate limit holds its reads back
	// (false when nothing): it never blocks.
	RateWaiting() (app.RateWait, bool)
	// Hold holds a load's background work (read, parse, analysis) back for d, so that the
	// frame of a key just pressed gets the cores. It never blocks: Update may call it.
	Hold(d time.Duration)
	// Get fetches an execution's full detail.
	Get(ctx context.Context, id string) (model.Execution, error)
	// FindSessions asks the source's server for the executions of the window whose tool-router
	// session id contains one of ids, in full (the API lists none); nothing for a file.
	FindSessions(ctx context.Context, ids []string) ([]model.Execution, error)
	// Verify asks the provider whether the execution's effect exists.
	Verify(ctx context.Context, e *model.Execution) model.ProviderState
	// JournalStateOf returns what the journal holds about one execution.
	JournalStateOf(ctx context.Context, execID string) (app.JournalState, error)
	// JournalStates returns the journal's state of every execution that has any (for the badges).
	JournalStates(ctx context.Context) (map[string]app.JournalState, error)
	// Evidence gathers what the retry dialog shows and asks the guard (without a confirmation
	// yet: a refusal for any other reason is final).
	Evidence(ctx context.Context, e model.Execution, t model.Triage, ps model.ProviderState) (app.RetryEvidence, error)
	// RetryConfirmed runs the guarded retry (retry.Run): journal the confirmation and the
	// intent, send once, record.
	RetryConfirmed(ctx context.Context, e model.Execution, ps model.ProviderState, reason string) app.RetryOutcome
	// Mark records a verdict.
	Mark(ctx context.Context, execID string, v model.Verdict, note string) (app.MarkResult, error)
	// VerdictsFor are the verdicts that make sense for the execution (the mark dialog offers
	// only these).
	VerdictsFor(e *model.Execution, t *model.Triage) []model.Verdict
	// WriteBundle writes a support bundle for the items and returns its path and text.
	WriteBundle(ctx context.Context, items []bundle.Item) (path, text string, err error)
	// Policy hides secrets in what the panes show: patterns, sensitive fields and the
	// configured API key (which is never shown, even when the person reveals the rest).
	Policy() *redact.Policy
}

// The application layer is the TUI's backend.
var _ Backend = (*app.App)(nil)

// Options tune the TUI. The zero value is usable.
type Options struct {
	// Since is the window loaded at start (0: everything the source has).
	Since time.Duration
	// Now is the clock (time.Now when nil); tests inject a fixed one.
	Now func() time.Time
	// FollowEvery is the auto-refresh period in follow mode (default 5 s).
	FollowEvery time.Duration
	// DetailDelay is how long the selection must rest before its full record and journal
	// history are fetched (default 150 ms), so scrolling does not flood the API.
	DetailDelay time.Duration
	// Theme and Keys default to theme.Default() and keys.Default(); Palette names a built-in
	// palette (default, high-contrast, ansi16) over the config's [theme] palette.
	Theme   *theme.Theme
	Palette string
	// Color is --color: auto (the default), always or never (see ColorProfile).
	Color string
	// NoOSC52: the terminal cannot take OSC 52 (TERM linux or dumb, or NO_OSC52 set): the
	// copy menu writes a file instead. Term is $TERM, to say so.
	NoOSC52 bool
	Term    string
	Keys    *keys.KeyMap
	// Mouse starts with mouse capture on.
	Mouse bool
	// Follow starts in follow mode.
	Follow bool
	// Notice is shown in the status line at start (a warning from setting up, say the journal
	// could not be opened).
	Notice string
	// Views are the config's saved views (the S menu); View names the one shown first.
	Views []SavedView
	View  string
	// Memory paces the collector while loads run (Run sets it; nil: the runtime's defaults).
	// IdleGC is its percent once a big load is in and handed back (heap.Budget.Idle; Run sets
	// it unless the process was given GOGC; 0: the process's own).
	Memory *heap.Budget
	IdleGC int
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.FollowEvery <= 0 {
		o.FollowEvery = 5 * time.Second
	}
	if o.DetailDelay <= 0 {
		o.DetailDelay = 150 * time.Millisecond
	}
	if o.Theme == nil {
		t := theme.Default()
		o.Theme = &t
	}
	if o.Keys == nil {
		k := keys.Default()
		o.Keys = &k
	}
	return o
}

// Deps is what the TUI runs on: the application session (the cli package opens it from flags
// and the config file) and the TUI's own options.
type Deps struct {
	App *app.App
	UI  Options
}

// waitForms says what a load waits for while the API's rate limit holds its reads back, longest
// first for the header's room (nil when nothing).
func waitForms(be Backend) []string {
	if w, ok := be.RateWaiting(); ok {
		return phrase.RateWaitForms(w.Wait, w.Limit, w.Refused)
	}
	return nil
}

// Explain turns an error into one line with the action to take in the TUI.
func Explain(err error) string { return phrase.Explain(err, phrase.AgainTUI) }

// SavedView is one of the config's [views.NAME], or a view the team keeps in its journal: a
// filter and which rows it shows (all, flagged or duplicates).
type SavedView struct {
	Name, Filter, Show string
	Team               bool // kept in the journal
}
