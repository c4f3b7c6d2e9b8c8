package app

import (
	"maps"
	"path/filepath"
	"testing"
)

// The demo never writes into the person's journal: without --journal it has its own file
// beside the one it would otherwise use; `exectriage journal` reads the real one unless
// --demo says otherwise.
func TestTheDemoHasAJournalOfItsOwn(t *testing.T) {
	home := t.TempDir()
	state := filepath.Join(home, ".local", "state", "exectriage")
	team := filepath.Join(t.TempDir(), "team.db")
	tests := []struct {
		name string
		o    Options
		env  map[string]string
		want string
	}{
		{"demo by default", Options{}, nil, filepath.Join(state, DemoJournalName)},
		{"--demo", Options{Demo: true}, nil, filepath.Join(state, DemoJournalName)},
		{"--demo beside EXECTRIAGE_JOURNAL", Options{Demo: true}, map[string]string{"EXECTRIAGE_JOURNAL": team}, filepath.Join(filepath.Dir(team), DemoJournalName)},
		{"--demo with a PostgreSQL EXECTRIAGE_JOURNAL", Options{Demo: true}, map[string]string{"EXECTRIAGE_JOURNAL": "postgres://u@127.0.0.1/j"}, filepath.Join(state, DemoJournalName)},
		{"--demo with a relative EXECTRIAGE_JOURNAL", Options{Demo: true}, map[string]string{"EXECTRIAGE_JOURNAL": "postgre://u:pw@h/db"}, filepath.Join(state, DemoJournalName)},
		{"--demo --journal", Options{Demo: true, Journal: team}, nil, team},
		{"a file", Options{File: "x.jsonl"}, nil, filepath.Join(state, "journal.db")},
		{"the API", Options{}, map[string]string{"COMPOSIO_API_KEY": "ak_x"}, filepath.Join(state, "journal.db")},
		{"the API, EXECTRIAGE_JOURNAL", Options{}, map[string]string{"COMPOSIO_API_KEY": "ak_x", "EXECTRIAGE_JOURNAL": team}, team},
		{"exectriage journal", Options{JournalOnly: true}, nil, filepath.Join(state, "journal.db")},
		{"exectriage journal --demo", Options{JournalOnly: true, Demo: true}, nil, filepath.Join(state, DemoJournalName)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"HOME": home}
			maps.Copy(env, tt.env)
			o := tt.o
			o.Getenv = func(k string) string { return env[k] }
			got, err := JournalDSN(o)
			if err != nil || got != tt.want {
				t.Errorf("JournalDSN = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
