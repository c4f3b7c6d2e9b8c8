// Package keys is exectriage's one KeyMap: every binding the TUI answers to, the help it shows
// (short and grouped full help for bubbles/help), and Rebind for the config file's [keys].
package keys

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyMap holds every binding. Fields are grouped as the full help shows them.
type KeyMap struct {
	// navigation
	Up       key.Binding
	Down     key.Binding
	Top      key.Binding
	Bottom   key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	HalfUp   key.Binding
	HalfDown key.Binding
	Open     key.Binding
	NextPane key.Binding
	Back     key.Binding

	// views
	Filter     key.Binding
	Flagged    key.Binding
	Duplicates key.Binding
	Writes     key.Binding
	BestMatch  key.Binding
	// NextMatch and PrevMatch move to the next and previous row a filter matched (in the
	// duplicates view a group shows its other members too), as n and N do in less and vim.
	NextMatch key.Binding
	PrevMatch key.Binding

	// Pick adds the selected row to the rows marked or verified at once (or takes it out);
	// PickAll does so for every row shown.
	Pick    key.Binding
	PickAll key.Binding

	// actions on the selection
	Verify     key.Binding
	Retry      key.Binding
	Mark       key.Binding
	Bundle     key.Binding
	CopyID     key.Binding
	CopyBundle key.Binding
	// Dashboard opens the execution's page in the Composio dashboard (or copies its address
	// when there is no browser); the address comes from the config's [dashboard] log_url.
	Dashboard key.Binding
	// Reveal shows the selected execution's secrets on screen until it is pressed again or
	// the selection moves (the configured API key stays hidden).
	Reveal key.Binding

	// program
	Refresh key.Binding
	Follow  key.Binding
	Mouse   key.Binding
	// Views opens the menu of the config's saved views.
	Views key.Binding
	// Log opens the message log: every status message of the session, whole.
	Log key.Binding
	// Timeline shows every execution of the selected row's session (or trace) in order.
	Timeline key.Binding
	Help     key.Binding
	Quit     key.Binding

	// inside dialogs and the filter prompt (not rebindable: they are typed into text fields)
	Confirm key.Binding
	Cancel  key.Binding
	Switch  key.Binding
}

// Default returns the default bindings (k9s/lazygit manners).
func Default() KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Up:       b([]string{"k", "up"}, "↑/k", "up"),
		Down:     b([]string{"j", "down"}, "↓/j", "down"),
		Top:      b([]string{"g", "home"}, "g", "top"),
		Bottom:   b([]string{"G", "shift+g", "end"}, "G", "bottom"),
		PageUp:   b([]string{"pgup", "ctrl+b"}, "pgup", "page up"),
		PageDown: b([]string{"pgdown", "ctrl+f"}, "pgdn", "page down"),
		HalfUp:   b([]string{"ctrl+u"}, "ctrl+u", "half page up"),
		HalfDown: b([]string{"ctrl+d"}, "ctrl+d", "half page down"),
		Open:     b([]string{"enter"}, "enter", "detail"),
		NextPane: b([]string{"tab"}, "tab", "switch pane"),
		Back:     b([]string{"esc"}, "esc", "back/clear"),

		Filter:     b([]string{"/"}, "/", "filter"),
		Flagged:    b([]string{"a"}, "a", "flagged only"),
		Duplicates: b([]string{"d"}, "d", "duplicates"),
		Writes:     b([]string{"w"}, "w", "writes only"),
		BestMatch:  b([]string{"s"}, "s", "best match first"),
		NextMatch:  b([]string{"n"}, "n", "next match"),
		PrevMatch:  b([]string{"N", "shift+n"}, "N", "previous match"),

		Pick:       b([]string{"space"}, "space", "select row"),
		PickAll:    b([]string{"*"}, "*", "select all shown"),
		Verify:     b([]string{"v"}, "v", "verify"),
		Retry:      b([]string{"r"}, "r", "retry"),
		Mark:       b([]string{"m"}, "m", "mark verdict"),
		Bundle:     b([]string{"b"}, "b", "bundle"),
		CopyID:     b([]string{"y"}, "y", "copy…"),
		CopyBundle: b([]string{"Y", "shift+y"}, "Y", "copy bundle"),
		Dashboard:  b([]string{"o"}, "o", "dashboard"),
		Reveal:     b([]string{"x"}, "x", "reveal secrets"),

		Refresh:  b([]string{"R", "shift+r"}, "R", "refresh"),
		Follow:   b([]string{"F", "shift+f"}, "F", "follow"),
		Mouse:    b([]string{"M", "shift+m"}, "M", "mouse"),
		Views:    b([]string{"S", "shift+s"}, "S", "saved views"),
		Log:      b([]string{"L", "shift+l"}, "L", "messages"),
		Timeline: b([]string{"t"}, "t", "session timeline"),
		Help:     b([]string{"?"}, "?", "help"),
		Quit:     b([]string{"q", "ctrl+c"}, "q", "quit"),

		Confirm: b([]string{"enter"}, "enter", "confirm"),
		Cancel:  b([]string{"esc"}, "esc", "cancel"),
		Switch:  b([]string{"tab", "left", "right", "shift+tab"}, "tab/←→", "choose"),
	}
}

// rebindable maps the config file's names to bindings.
func (k *KeyMap) rebindable() map[string]*key.Binding {
	return map[string]*key.Binding{
		"up": &k.Up, "down": &k.Down, "top": &k.Top, "bottom": &k.Bottom,
		"page_up": &k.PageUp, "page_down": &k.PageDown, "half_page_up": &k.HalfUp, "half_page_down": &k.HalfDown,
		"open": &k.Open, "next_pane": &k.NextPane, "next_match": &k.NextMatch, "previous_match": &k.PrevMatch,
		"back": &k.Back, "filter": &k.Filter, "flagged": &k.Flagged, "duplicates": &k.Duplicates,
		"writes": &k.Writes, "best_match": &k.BestMatch, "verify": &k.Verify, "retry": &k.Retry, "mark": &k.Mark, "select": &k.Pick,
		"select_all": &k.PickAll,
		"bundle":     &k.Bundle, "copy_id": &k.CopyID, "copy_bundle": &k.CopyBundle, "dashboard": &k.Dashboard, "reveal": &k.Reveal,
		"refresh": &k.Refresh, "follow": &k.Follow, "mouse": &k.Mouse, "messages": &k.Log, "views": &k.Views, "timeline": &k.Timeline,
		"help": &k.Help, "quit": &k.Quit,
	}
}

// Names lists the action names [keys] accepts, sorted.
func Names() []string {
	var k KeyMap
	var out []string
	for n := range k.rebindable() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Rebind returns k with the named actions bound to new keys (config [keys]: name = ["x", "ctrl+x"]).
// The help label becomes the first key. An unknown action, an empty key list, or a key that would
// then trigger two actions is an error, and k is returned unchanged.
func (k KeyMap) Rebind(bind map[string][]string) (KeyMap, error) {
	out := k
	r := out.rebindable()
	names := make([]string, 0, len(bind))
	for n := range bind {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b, ok := r[strings.ToLower(n)]
		if !ok {
			return k, fmt.Errorf("keys: unknown action %q (known: %s)", n, strings.Join(Names(), ", "))
		}
		ks := bind[n]
		if len(ks) == 0 {
			return k, fmt.Errorf("keys: %s: no keys given", n)
		}
		b.SetKeys(ks...)
		b.SetHelp(ks[0], b.Help().Desc)
	}
	// Navigation and actions share one key space; a key that means two things is a mistake.
	owner := map[string]string{}
	all := Names()
	for _, n := range all {
		for _, ks := range r[n].Keys() {
			if prev, dup := owner[ks]; dup {
				return k, fmt.Errorf("keys: %q is bound to both %s and %s", ks, prev, n)
			}
			owner[ks] = n
		}
	}
	return out, nil
}

// ShortHelp is the help bar for the list (bubbles/help KeyMap).
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Filter, k.Flagged, k.Duplicates, k.Open, k.Verify, k.Retry, k.Mark, k.Help, k.Quit}
}

// FullHelp is the `?` screen, one column per group.
func (k KeyMap) FullHelp() [][]key.Binding {
	groups := k.groups()
	out := make([][]key.Binding, len(groups))
	for i, g := range groups {
		for _, b := range g {
			out[i] = append(out[i], *b)
		}
	}
	return out
}

// groups are FullHelp's columns, the bindings themselves.
func (k *KeyMap) groups() [][]*key.Binding {
	return [][]*key.Binding{
		{&k.Up, &k.Down, &k.Top, &k.Bottom, &k.PageUp, &k.PageDown, &k.HalfUp, &k.HalfDown, &k.Open, &k.NextPane, &k.Back},
		{&k.Filter, &k.NextMatch, &k.PrevMatch, &k.Flagged, &k.Duplicates, &k.Writes, &k.BestMatch, &k.Views, &k.Refresh, &k.Follow},
		{&k.Pick, &k.PickAll, &k.Verify, &k.Retry, &k.Mark, &k.Timeline, &k.Bundle, &k.CopyID, &k.CopyBundle, &k.Dashboard, &k.Reveal},
		{&k.Mouse, &k.Log, &k.Help, &k.Quit},
	}
}

// Table is the keys as a Markdown table, in FullHelp's groups: the keys that press each
// binding, what it does, and its name in the config file's [keys] (the README's table is this).
func (k KeyMap) Table() string {
	names := map[*key.Binding]string{}
	for name, b := range k.rebindable() {
		names[b] = name
	}
	var b strings.Builder
	b.WriteString("| | keys | does | `[keys]` name |\n|---|---|---|---|\n")
	titles := GroupTitles()
	for i, g := range k.groups() {
		for j, kb := range g {
			group := ""
			if j == 0 {
				group = "**" + titles[i] + "**"
			}
			ks := make([]string, len(kb.Keys()))
			for n, key := range kb.Keys() {
				ks[n] = "`" + strings.ReplaceAll(key, "|", "\\|") + "`"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | `%s` |\n", group, strings.Join(ks, " "), kb.Help().Desc, names[kb])
		}
	}
	return b.String()
}

// GroupTitles names FullHelp's columns, in order.
func GroupTitles() []string {
	return []string{"Navigate", "View", "Act on selection", "Program"}
}

// Bindings is a help.KeyMap over a fixed list, for context-specific help bars.
type Bindings []key.Binding

// ShortHelp implements help.KeyMap.
func (b Bindings) ShortHelp() []key.Binding { return b }

// FullHelp implements help.KeyMap.
func (b Bindings) FullHelp() [][]key.Binding { return [][]key.Binding{b} }
