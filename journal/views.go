package journal

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// View is a saved view a team keeps in its journal: a named filter (the list's filter
// language) and which rows it shows ("all", "flagged" or "duplicates"), with who saved it last
// and when. A config's [views.NAME] is the same thing kept by one person.
type View struct {
	Name   string    `json:"name"`
	Filter string    `json:"filter"`
	Show   string    `json:"show"`
	Who    string    `json:"who"`
	At     time.Time `json:"at"`
}

// viewShows are the values View.Show takes.
var viewShows = []string{"all", "flagged", "duplicates"}

func validView(v *View) error {
	if strings.TrimSpace(v.Name) == "" || v.Name != strings.TrimSpace(v.Name) {
		return fmt.Errorf("%w: a view needs a name without surrounding spaces", ErrInvalidRecord)
	}
	if v.Who == "" || v.At.IsZero() {
		return fmt.Errorf("%w: view %s needs who and a time", ErrInvalidRecord, v.Name)
	}
	if slices.Contains(viewShows, v.Show) {
		return nil
	}
	return fmt.Errorf("%w: view %s: show %q: want %s", ErrInvalidRecord, v.Name, v.Show, strings.Join(viewShows, ", "))
}

func (s *store) SaveView(ctx context.Context, v View) error {
	if err := validView(&v); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO views (name, filter, show, who, at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET filter = excluded.filter, show = excluded.show, who = excluded.who, at = excluded.at`),
			v.Name, v.Filter, v.Show, v.Who, nanos(v.At))
		if err != nil {
			return fmt.Errorf("journal %s: save view %s: %w", s.where, v.Name, err)
		}
		return nil
	})
}

func (s *store) DeleteView(ctx context.Context, name string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM views WHERE name = ?`), name)
		if err != nil {
			return fmt.Errorf("journal %s: delete view %s: %w", s.where, name, err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return fmt.Errorf("view %s: %w", name, ErrNotFound)
		}
		return nil
	})
}

func (s *store) Views(ctx context.Context) ([]View, error) {
	return list(ctx, s, "views", `SELECT name, filter, show, who, at FROM views ORDER BY name`, nil, func(rows scanner) (View, error) {
		var (
			v  View
			at int64
		)
		if err := rows.Scan(&v.Name, &v.Filter, &v.Show, &v.Who, &at); err != nil {
			return v, err
		}
		v.At = fromNanos(at)
		return v, nil
	})
}
