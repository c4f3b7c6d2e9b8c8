package ui

import (
	"context"
	"time"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/bundle"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/ui/components/retrydialog"
	"github.com/exectriage/exectriage/ui/data"
)

// Deps is what the TUI runs on: the application session (the cli package opens it from flags
// and the config file) and the TUI's own options.
type Deps struct {
	App *app.App
	UI  Options
}

// backend is the Backend over the application layer; every method may block and is called
// from tea.Cmds only.
type backend struct{ a *app.App }

// NewBackend returns the Backend the TUI uses over an application session.
func NewBackend(d Deps) Backend { return backend{a: d.App} }

func (b backend) Source() string { return b.a.SourceName() }

func (b backend) Load(ctx context.Context, since time.Duration, page func([]model.Execution) error) error {
	return b.a.Stream(ctx, since, page)
}

func (b backend) NewBuilder() *data.Builder { return data.NewBuilder(b.a.Kinds(), b.a.TriageOptions()) }

func (b backend) Get(ctx context.Context, id string) (model.Execution, error) {
	return b.a.Get(ctx, id)
}

func (b backend) Record(ctx context.Context, id string) (model.Execution, error) {
	return b.a.Record(ctx, id)
}

func (b backend) Verify(ctx context.Context, e *model.Execution) model.ProviderState {
	return b.a.Verify(ctx, e)
}

func (b backend) Journal(ctx context.Context, id string) (JournalState, error) {
	return b.a.JournalStateOf(ctx, id)
}

func (b backend) JournalAll(ctx context.Context) (map[string]JournalState, error) {
	return b.a.JournalStates(ctx)
}

func (b backend) Evidence(ctx context.Context, e model.Execution, t model.Triage, ps model.ProviderState) (retrydialog.Evidence, error) {
	return b.a.Evidence(ctx, e, t, ps)
}

func (b backend) Retry(ctx context.Context, e model.Execution, _ model.Triage, ps model.ProviderState, reason string) retrydialog.Result {
	return b.a.RetryFromDialog(ctx, e, ps, reason)
}

func (b backend) Mark(ctx context.Context, id string, v model.Verdict, note string) error {
	return b.a.Mark(ctx, id, v, note)
}

func (b backend) Bundle(ctx context.Context, items []bundle.Item) (string, string, error) {
	return b.a.WriteBundle(ctx, items)
}

func (b backend) Explain(err error) string { return Explain(err) }

func (b backend) Secrets() *redact.Policy { return b.a.Policy() }

// Explain turns an error into one line with the action to take in the TUI.
func Explain(err error) string { return app.Explain(err, app.AgainTUI) }
