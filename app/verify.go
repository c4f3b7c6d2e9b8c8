package app

import (
	"context"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/verify"
)

// The provider checks of a session: which verifiers it has and what they say of a write.

// Verifiers are the provider checks (built in and from the config), on the session's clock;
// nil when the source has no API.
func (a *App) Verifiers() *verify.Verifiers {
	a.verifiersOnce.Do(func() {
		if c := a.src.Client(); c != nil {
			a.verifiers = verify.NewVerifiers(c, a.cfg.Verifiers, verify.WithClock(a.o.now))
		}
	})
	return a.verifiers
}

// Verify checks the provider for an execution's effect; without an API the state is
// unknown, with the reason.
func (a *App) Verify(ctx context.Context, e *model.Execution) model.ProviderState {
	if err := a.CheckRead(); err != nil {
		return model.ProviderState{State: model.ProviderUnknown, CheckedAt: a.Now().UTC(), Reason: err.Error()}
	}
	v := a.Verifiers()
	if v == nil {
		return verify.NoAPI(a.Now())
	}
	return a.ownRetries(ctx, e, v.Verify(ctx, e))
}

// AllowsReads reports whether provider reads (read tools) may run in a read-only session.
func (a *App) AllowsReads() bool { return a.o.AllowReads || a.cfg.Defaults.AllowReads }

// CheckRead refuses a provider read (it runs a read tool) in a read-only session unless
// reads are allowed.
func (a *App) CheckRead() error {
	if a.ReadOnly() && !a.AllowsReads() {
		return &UsageError{Msg: phrase.ReadOnlyChecks}
	}
	return nil
}
