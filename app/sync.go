package app

import (
	"context"
	"fmt"

	"github.com/exectriage/exectriage/logcache"
	"github.com/exectriage/exectriage/model"
)

// Synced is what a sync did: the window it read and the team index before and after.
type Synced struct {
	Index      string // the index's location, without a password
	Executions int    // executions in the window
	Before     logcache.Info
	After      logcache.Info
	// DetailErrors counts the details that could not be fetched; FirstDetailError is the first.
	DetailErrors     int
	FirstDetailError error
}

// Sync brings the team index up to date with the window: it reads from the API what the index
// does not cover (what is newer than its newest record, and an overlap for late writes and
// statuses that changed) and fetches the details triage needs (every detail with all), so
// that the team's sessions read one copy of the project's logs instead of one each. A
// read-only session, a session without an index, and a file or the demo are refused.
func (a *App) Sync(ctx context.Context, all bool) (*Synced, error) {
	switch {
	case a.o.ReadOnly:
		return nil, Usagef("sync writes the team index: this session is read-only (--readonly or [defaults] readonly in the config)")
	case a.src.Kind() != model.SourceLive:
		return nil, Usagef("sync copies the live API's logs into the team index: not an export (--file) or the demo")
	case a.o.Cache == CacheOff || cacheOffByEnv(a.o):
		return nil, Usagef("sync keeps the API's logs in the team index: not with --no-cache (or EXECTRIAGE_CACHE=off)")
	case a.index.Where == "":
		return nil, Usagef("sync needs a team index: --index postgres://…, a profile's index, or EXECTRIAGE_INDEX")
	case a.index.Err != nil:
		return nil, a.index.Err
	}
	s := &Synced{Index: a.index.Where}
	var err error
	if s.Before, err = a.index.c.Stat(ctx); err != nil {
		return nil, fmt.Errorf("team index %s: %w", s.Index, err)
	}
	l, err := a.Load(ctx)
	if err != nil {
		return nil, err
	}
	s.Executions, s.DetailErrors, s.FirstDetailError = len(l.Execs), l.DetailErrors, l.FirstDetailError
	if all {
		if n, first := l.FetchAll(ctx); n > 0 {
			s.DetailErrors += n
			if s.FirstDetailError == nil {
				s.FirstDetailError = first
			}
		}
	}
	if s.After, err = a.index.c.Stat(ctx); err != nil {
		return nil, fmt.Errorf("team index %s: %w", s.Index, err)
	}
	return s, nil
}
