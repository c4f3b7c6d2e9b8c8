package app

import (
	"slices"
	"strings"

	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/model"
)

// SavedView is the config's [views.NAME]; an unknown name is a usage error that names the views
// that exist.
func SavedView(o Options, name string) (config.View, error) {
	cfg, err := LoadConfig(o)
	if err != nil {
		return config.View{}, err
	}
	v, ok := cfg.Views[name]
	if ok {
		return v, nil
	}
	names := ViewNamesOf(cfg)
	if len(names) == 0 {
		return v, Usagef("no view %q: the config (%s) has no [views.NAME]", name, orWord(cfg.Path, "none"))
	}
	return v, Usagef("no view %q in %s (views: %s)", name, cfg.Path, strings.Join(names, ", "))
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
