package app

import (
	"context"
	"fmt"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
)

// MaxFound is the most records one request id brings into a window; MaxSessionFound one
// session id.
const (
	MaxFound        = 50
	MaxSessionFound = 2000
)

// FindRequests asks the source's server for the records of the window whose request id
// contains one of ids, in full: the Logs API's list entries carry no request id, so a
// `request:` filter over a live or demo window finds them only this way (an export's records
// carry theirs). It returns nothing for a source that cannot be asked (a file).
func (a *App) FindRequests(ctx context.Context, ids []string) ([]model.Execution, error) {
	return a.findOnServer(ctx, "request_id", "request", ids, MaxFound)
}

// FindSessions is FindRequests for tool-router session ids (`session:`): every execution of
// the window the session ran, in full.
func (a *App) FindSessions(ctx context.Context, ids []string) ([]model.Execution, error) {
	return a.findOnServer(ctx, "session_id", "session", ids, MaxSessionFound)
}

func (a *App) findOnServer(ctx context.Context, field, what string, ids []string, most int) ([]model.Execution, error) {
	f, ok := a.src.(source.Finder)
	if !ok || a.src.Kind() == model.SourceFile || len(ids) == 0 {
		return nil, nil
	}
	var out []model.Execution
	for _, id := range ids {
		found, err := f.Find(ctx, a.Window(), field, id, most)
		if err != nil {
			return nil, fmt.Errorf("asking the API for %s %s: %w", what, id, err)
		}
		out = append(out, found...)
	}
	a.Learn(ctx, out)
	return out, nil
}

// Put adds records fetched in full to the window (replacing their list entries, or adding
// those the window lacked) and triages it again.
func (l *Loaded) Put(execs []model.Execution) {
	if len(execs) == 0 {
		return
	}
	added := false
	for _, d := range execs {
		if i, ok := l.Position(d.ID); ok {
			l.Execs[i] = d
			continue
		}
		l.Execs = append(l.Execs, d)
		added = true
	}
	if added {
		SortNewestFirst(l.Execs)
		l.Index()
	}
	l.analyze()
}
