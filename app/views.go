package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
)

// A saved view is a named filter with the rows it shows. A person keeps theirs in the config
// ([views.NAME]); a team keeps theirs in the journal it shares (exectriage view save), so
// everyone who opens that journal picks the same view by name. The person's own view of a name
// comes before the team's.

// View is a saved view and where it is kept.
type View struct {
	Name   string `json:"name"`
	Filter string `json:"filter"`
	Show   string `json:"show"` // all, flagged or duplicates
	// From is "config PATH" or "journal WHERE"; Saved says who saved a team view last, and when.
	From  string `json:"from"`
	Saved string `json:"saved,omitempty"`
	// Shadowed says a view of the same name in the config hides this team view.
	Shadowed bool `json:"shadowed,omitempty"`
}

// configViews are the config's views, by name.
func configViews(cfg config.Config) []View {
	out := make([]View, 0, len(cfg.Views))
	for _, n := range ViewNamesOf(cfg) {
		out = append(out, configView(cfg, n))
	}
	return out
}

// configView is the config's view of that name.
func configView(cfg config.Config, name string) View {
	v := cfg.Views[name]
	return View{Name: name, Filter: v.Filter, Show: cmp.Or(v.Show, config.ShowAll), From: "config " + cfg.Path}
}

// teamViews are the views kept in the journal the options name, read without creating,
// migrating or recovering it; none when there is no journal yet.
func teamViews(ctx context.Context, o Options) ([]View, error) {
	j, err := OpenJournalReadOnly(ctx, o)
	if errors.Is(err, journal.ErrNoJournal) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the journal's saved views: %w", err)
	}
	defer j.Close()
	return j.Views(ctx)
}

// SavedViews are every saved view: the config's, then the journal's (a team view a config view
// of its name hides is listed, Shadowed). err says why the journal's could not be read; the
// config's are returned with it.
func SavedViews(ctx context.Context, o Options) ([]View, error) {
	cfg, err := LoadConfig(o)
	if err != nil {
		return nil, err
	}
	out := configViews(cfg)
	team, err := teamViews(ctx, o)
	for _, v := range team {
		_, v.Shadowed = cfg.Views[v.Name]
		out = append(out, v)
	}
	return out, err
}

// SavedView is the view of that name, the config's before the journal's; an unknown name is a
// usage error that names the views there are.
func SavedView(ctx context.Context, o Options, name string) (View, error) {
	cfg, err := LoadConfig(o)
	if err != nil {
		return View{}, err
	}
	if _, ok := cfg.Views[name]; ok {
		return configView(cfg, name), nil
	}
	team, terr := teamViews(ctx, o)
	if i := slices.IndexFunc(team, func(v View) bool { return v.Name == name }); i >= 0 {
		return team[i], nil
	}
	var names []string
	for _, v := range append(configViews(cfg), team...) {
		names = append(names, v.Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	switch {
	case terr != nil:
		return View{}, Usagef("no view %q in the config (%s), and %v", name, cmp.Or(cfg.Path, "none"), terr)
	case len(names) == 0:
		return View{}, Usagef("no view %q: neither the config (%s) nor the journal has one (add [views.NAME] to the config, or "+
			"exectriage view save NAME)", name, cmp.Or(cfg.Path, "none"))
	}
	return View{}, Usagef("no view %q (views: %s)", name, strings.Join(names, ", "))
}

// CheckView is a view's definition as a person gave it, checked: a name, a filter the list's
// language parses, and a show of all, flagged or duplicates ("" is all).
func CheckView(name, filterText, show string) (View, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, " \t\n") {
		return View{}, Usagef("a view's name is one word: %q", name)
	}
	if _, err := filter.Parse(filterText); err != nil {
		return View{}, Usagef("--filter: %v", err)
	}
	show = strings.TrimSpace(show)
	if err := config.CheckShow(show); err != nil {
		return View{}, Usagef("--%v", err)
	}
	return View{Name: name, Filter: strings.TrimSpace(filterText), Show: cmp.Or(show, config.ShowAll)}, nil
}

// Views are the views kept in the journal, by name.
func (j *Journal) Views(ctx context.Context) ([]View, error) {
	vs, err := j.j.Views(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]View, len(vs))
	for i, v := range vs {
		out[i] = View{Name: v.Name, Filter: v.Filter, Show: v.Show, From: "journal " + j.Where(), Saved: v.Who + " " + model.When(v.At)}
	}
	return out, nil
}

// SaveView keeps v (CheckView's) in the journal for everyone who opens it, replacing the team
// view of its name.
func (j *Journal) SaveView(ctx context.Context, v View, who string, at time.Time) error {
	return j.j.SaveView(ctx, journal.View{Name: v.Name, Filter: v.Filter, Show: v.Show, Who: who, At: at})
}

// DeleteView removes the team view of that name (a usage error when there is none).
func (j *Journal) DeleteView(ctx context.Context, name string) error {
	if err := j.j.DeleteView(ctx, name); errors.Is(err, journal.ErrNotFound) {
		return Usagef("no view %q in the journal %s", name, j.Where())
	} else if err != nil {
		return err
	}
	return nil
}

// ViewKeeps reports whether a view's show keeps a row: every row, flagged writes only, or the
// members of duplicate groups only.
func ViewKeeps(show string, t *model.Triage) bool {
	switch show {
	case config.ShowFlagged:
		return t.Flagged
	case config.ShowDuplicates:
		return t.GroupID != ""
	}
	return true
}

// ViewNamesOf are the config's saved views, sorted.
func ViewNamesOf(cfg config.Config) []string {
	names := make([]string, 0, len(cfg.Views))
	for n := range cfg.Views {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
