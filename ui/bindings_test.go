package ui

import (
	"reflect"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/window"
)

// Every key of the KeyMap but the panes' navigation and the dialogs' own is a row of the
// root's bindings, once: what it does, when, and why it is off live there.
func TestEveryKeyIsARow(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	notRows := map[string]bool{"Up": true, "Down": true, "Top": true, "Bottom": true, "PageUp": true, "PageDown": true,
		"HalfUp": true, "HalfDown": true, "Open": true, "Confirm": true, "Cancel": true, "Switch": true}
	rows := map[string]int{}
	for _, b := range h.m.bindings {
		rows[b.key(h.m.Keys).Help().Desc]++
	}
	v := reflect.ValueOf(*h.m.Keys)
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		kb, ok := v.Field(i).Interface().(key.Binding)
		if !ok || notRows[name] {
			continue
		}
		if n := rows[kb.Help().Desc]; n != 1 {
			t.Errorf("%s (%q) is in %d rows of the bindings, want 1", name, kb.Help().Desc, n)
		}
	}
}

// A key the session has off says so in the two places a person meets it, from one rule: the
// help screen marks it "(off)", and pressing it refuses with "<key> is off: <why>", whatever
// key it is bound to (v bound to V said "v is off"). A key that is on is neither.
func TestOffKeysSayWhyWhereverTheyShow(t *testing.T) {
	states := []struct {
		name                                string
		readOnly                            bool
		journalProblem, readProblem, reason string
		off                                 []string // descriptions of the keys off
	}{
		{name: "a normal session"},
		{name: "read-only", readOnly: true, readProblem: "a read-only session checks no provider (--allow-reads)", reason: "read-only", off: []string{"retry", "mark", "verify"}},
		{name: "no journal", journalProblem: "open /srv/j.db: permission denied", reason: "permission denied", off: []string{"retry", "mark"}},
		{name: "no reads", readProblem: "the source cannot run a read tool", reason: "read tool", off: []string{"verify"}},
	}
	for _, st := range states {
		t.Run(st.name, func(t *testing.T) {
			h := newHarness(t, newEnv(t), 120, 40)
			km, err := h.m.Keys.Rebind(map[string][]string{"verify": {"V"}})
			if err != nil {
				t.Fatal(err)
			}
			*h.m.Keys = km
			h.m.readOnly, h.m.journalProblem, h.m.readProblem = st.readOnly, st.journalProblem, st.readProblem
			i, ok := h.find(func(_ *model.Execution, t *model.Triage) bool { return t.Flagged && t.Kind.IsWrite() })
			if !ok {
				t.Fatal("no flagged write")
			}
			h.selectRow(i)
			h.keys("?")
			help := h.screen()
			h.keys("esc")
			for _, b := range h.m.bindings {
				if b.off == nil {
					continue
				}
				kb := b.key(h.m.Keys)
				desc := kb.Help().Desc
				wantOff := false
				for _, o := range st.off {
					wantOff = wantOff || strings.HasPrefix(desc, o)
				}
				if got := strings.Contains(help, desc+" (off)"); got != wantOff {
					t.Errorf("help: %q off %v, want %v", desc, got, wantOff)
				}
				k := kb.Keys()[0]
				h.m.status.Clear()
				h.keys(k)
				_, text := h.m.status.Text()
				refused := strings.HasPrefix(text, k+" is off: ") && strings.Contains(text, st.reason)
				if refused != wantOff {
					t.Errorf("pressing %s (%s): status %q, refused %v, want %v", k, desc, text, refused, wantOff)
				}
				for h.m.retry.IsOpen() || h.m.mark.IsOpen() {
					h.keys("esc")
				}
			}
		})
	}
}

func TestTogglesFlaggedWritesAndDuplicates(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	ds := h.m.data.DS
	h.keys("a")
	if h.m.list.Len() != ds.Flagged {
		t.Errorf("a: %d rows, %d flagged", h.m.list.Len(), ds.Flagged)
	}
	h.keys("a", "w")
	if h.m.list.Len() != ds.Writes {
		t.Errorf("w: %d rows, %d writes", h.m.list.Len(), ds.Writes)
	}
	h.keys("w", "d")
	groups := 0
	for _, it := range h.m.list.Items().Slice() {
		if it.Kind == window.ItemGroup {
			groups++
		}
	}
	if groups != len(ds.Groups) || groups == 0 {
		t.Errorf("d: %d group rows, %d groups", groups, len(ds.Groups))
	}
	h.keys("g") // the first row: a group
	before := h.m.list.Len()
	h.keys("enter") // fold the first group
	if h.m.list.Len() != before-len(ds.Members[h.m.list.Items().Slice()[0].Group]) {
		t.Errorf("enter on a group row: %d rows, was %d", h.m.list.Len(), before)
	}
	if !strings.Contains(h.screen(), "[d dups]") {
		t.Error("the status line does not show the duplicates toggle")
	}
}
