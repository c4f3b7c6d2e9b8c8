package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/exectriage/exectriage/journal"
)

// journalDSN picks the journal: --journal, else EXECTRIAGE_JOURNAL, else the default file
// $XDG_STATE_HOME/exectriage/journal.db (~/.local/state/... without XDG_STATE_HOME). A
// postgres:// or postgresql:// URL names a shared PostgreSQL journal.
func journalDSN(env *Env, flagValue string) (string, error) {
	if v := strings.TrimSpace(flagValue); v != "" {
		return v, nil
	}
	if v := strings.TrimSpace(env.Getenv("EXECTRIAGE_JOURNAL")); v != "" {
		return v, nil
	}
	return journal.DefaultPath(env.Getenv)
}

// openJournal opens (creating it, its directories 0700 and its schema as needed) the journal
// the flags and environment name.
func (s *sourceFlags) openJournal(ctx context.Context, env *Env) (journal.Journal, error) {
	dsn, err := journalDSN(env, s.journal)
	if err != nil {
		return nil, err
	}
	return journal.Open(ctx, dsn)
}

// openRecoveredJournal opens the journal and runs crash recovery, telling the person on stderr
// about attempts it found abandoned. Every journal command starts with it.
func openRecoveredJournal(ctx context.Context, env *Env, s *sourceFlags) (journal.Journal, int, error) {
	j, err := s.openJournal(ctx, env)
	if err != nil {
		return nil, 0, err
	}
	n, err := j.RecoverOpen(ctx)
	if err != nil {
		j.Close()
		return nil, 0, fmt.Errorf("crash recovery: %w", err)
	}
	if n > 0 {
		fmt.Fprintf(env.Stderr, "exectriage: %d retry attempt(s) left in flight by a process that is gone are now indeterminate: "+
			"`exectriage journal` lists them, `exectriage resolve ID` settles each\n", n)
	}
	return j, n, nil
}
