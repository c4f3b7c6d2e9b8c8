package ui

import (
	"testing"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/window"
)

// The selector is the list's selection on its own, without the root: a request is tagged and
// a stale result dropped; a key's request is pending until its result is installed; the rows
// are behind while the installed query or view is not the one asked for; the dataset waiting
// for its rows is installed with them; a query that refines the installed one narrows from
// its matches.
func TestSelectorAlone(t *testing.T) {
	ds := window.Build(synthetic(200), nil, func(execs []model.Execution) window.Analysis {
		r := triage.Analyze(execs, triage.NewKinds(), triage.Options{})
		return window.Analysis{Triage: r.Triage, Groups: r.Groups}
	})
	var s selector
	q, err := filter.Parse("tool:GMAIL_SEND_EMAIL")
	if err != nil {
		t.Fatal(err)
	}
	s.nextDS = ds
	cmd := s.request(nil, window.View{}, q, "", 0, -1)
	s.asked()
	if !s.pending() || !s.behind(q, window.View{}) {
		t.Fatal("a key's request is neither pending nor behind")
	}
	msg, ok := cmd().(selectedMsg)
	if !ok || msg.ds != ds {
		t.Fatalf("the request selected over %v, want the dataset waiting", msg.ds)
	}
	if ok, _ := s.take(selectedMsg{tag: msg.tag - 1, ds: ds}); ok {
		t.Fatal("a stale result was taken")
	}
	ok, byKey := s.take(msg)
	if !ok || !byKey || s.pending() || s.behind(q, window.View{}) || s.nextDS != nil || s.lastDS != ds {
		t.Fatalf("the result: ok %v, by key %v, pending %v, next %v", ok, byKey, s.pending(), s.nextDS != nil)
	}
	narrower, _ := filter.Parse("tool:GMAIL_SEND_EMAIL user:user_3")
	s.request(ds, window.View{}, narrower, "", 0, -1)
	if !s.behind(narrower, window.View{}) {
		t.Error("a new query's rows are not behind while its selection is made")
	}
	if s.pending() {
		t.Error("rows that moved by themselves (no key asked) are pending")
	}
	if moved, byKey := s.take(selectedMsg{tag: s.tag, ds: ds, q: narrower}); !moved || byKey {
		t.Errorf("a selection no key asked for: taken %v, by key %v", moved, byKey)
	}
}
