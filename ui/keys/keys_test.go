package keys

import (
	"flag"
	"os"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

func TestRebind(t *testing.T) {
	tests := []struct {
		name    string
		bind    map[string][]string
		wantErr string
		check   func(t *testing.T, k KeyMap)
	}{
		{name: "empty is a no-op", bind: nil, check: func(t *testing.T, k KeyMap) {
			if !key.Matches(tea.KeyPressMsg{Code: 'r', Text: "r"}, k.Retry) {
				t.Error("r no longer retries")
			}
		}},
		{name: "retry moves to ctrl+r", bind: map[string][]string{"retry": {"ctrl+r"}}, check: func(t *testing.T, k KeyMap) {
			if key.Matches(tea.KeyPressMsg{Code: 'r', Text: "r"}, k.Retry) {
				t.Error("r still retries")
			}
			if !key.Matches(tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl}, k.Retry) {
				t.Error("ctrl+r does not retry")
			}
			if k.Retry.Help().Key != "ctrl+r" || k.Retry.Help().Desc != "retry" {
				t.Errorf("help = %+v", k.Retry.Help())
			}
		}},
		{name: "unknown action", bind: map[string][]string{"launch": {"l"}}, wantErr: `unknown action "launch"`},
		{name: "no keys", bind: map[string][]string{"retry": {}}, wantErr: "no keys"},
		{name: "a key meaning two things", bind: map[string][]string{"retry": {"v"}}, wantErr: `"v" is bound to both`},
		{name: "reveal is rebindable", bind: map[string][]string{"reveal": {"ctrl+x"}}, check: func(t *testing.T, k KeyMap) {
			if key.Matches(tea.KeyPressMsg{Code: 'x', Text: "x"}, k.Reveal) || !key.Matches(tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl}, k.Reveal) {
				t.Errorf("reveal keys = %v", k.Reveal.Keys())
			}
		}},
		{name: "names are case-insensitive", bind: map[string][]string{"Quit": {"Q"}}, check: func(t *testing.T, k KeyMap) {
			if !key.Matches(tea.KeyPressMsg{Code: 'Q', Text: "Q"}, k.Quit) {
				t.Error("Q does not quit")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := Default()
			got, err := def.Rebind(tt.bind)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if !key.Matches(tea.KeyPressMsg{Code: 'r', Text: "r"}, got.Retry) {
					t.Error("a failed rebind changed the map")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, got)
			if !key.Matches(tea.KeyPressMsg{Code: 'r', Text: "r"}, def.Retry) {
				t.Error("Rebind modified its receiver")
			}
		})
	}
}

func TestDefaultsHaveNoConflictsAndFullHelpCoversEveryAction(t *testing.T) {
	k := Default()
	if _, err := k.Rebind(map[string][]string{}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, g := range k.FullHelp() {
		for _, b := range g {
			if b.Help().Key == "" || b.Help().Desc == "" {
				t.Errorf("binding %v has no help", b.Keys())
			}
			seen[b.Help().Desc] = true
		}
	}
	for name, b := range k.rebindable() {
		if !seen[b.Help().Desc] {
			t.Errorf("%s is missing from the full help", name)
		}
	}
	if len(GroupTitles()) != len(k.FullHelp()) {
		t.Errorf("%d titles for %d groups", len(GroupTitles()), len(k.FullHelp()))
	}
}

var update = flag.Bool("update", false, "rewrite the README's keys table")

// readmeKeys marks the README's keys table, which KeyMap.Table writes.
const (
	readmeKeys    = "<!-- keys: KeyMap.Table of ui/keys, kept by TestTheREADMEKeysAreTheKeyMap (-update) -->\n"
	readmeKeysEnd = "<!-- /keys -->\n"
)

// TestTheREADMEKeysAreTheKeyMap: the README's keys table is the KeyMap's (as the man pages are
// the commands'): every binding, its keys, what it does and its [keys] name; -update rewrites it.
func TestTheREADMEKeysAreTheKeyMap(t *testing.T) {
	k := Default()
	table := k.Table()
	for name := range k.rebindable() {
		if !strings.Contains(table, "| `"+name+"` |") {
			t.Errorf("the table lacks the binding %q", name)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i, j := strings.Index(text, readmeKeys), strings.Index(text, readmeKeysEnd)
	if i < 0 || j < i {
		t.Fatal("the README has no keys table between its markers")
	}
	if got := text[i+len(readmeKeys) : j]; got != table {
		if !*update {
			t.Fatalf("the README's keys table is not the KeyMap's (go test ./ui/keys -update):\n%s", table)
		}
		text = text[:i+len(readmeKeys)] + table + text[j:]
		if err := os.WriteFile("../../README.md", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
