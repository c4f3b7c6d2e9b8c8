package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/exectriage/exectriage/model"
)

// sessionWithADuplicate finds a session of the sandbox with at least two executions in the
// window, one of them in a duplicate group; it returns the session and that member's position.
func sessionWithADuplicate(h *harness) (string, int) {
	h.t.Helper()
	ds := h.m.data.DS
	count := map[string]int{}
	for _, e := range h.e.srv.Executions() {
		if e.SessionID != "" && ds.Index(e.ID) >= 0 {
			count[e.SessionID]++
		}
	}
	var best string
	pos := -1
	for _, e := range h.e.srv.Executions() {
		i := ds.Index(e.ID)
		if e.SessionID == "" || i < 0 || count[e.SessionID] < 2 || ds.Group(i) == nil {
			continue
		}
		if best == "" || e.SessionID < best {
			best, pos = e.SessionID, i
		}
	}
	if best == "" {
		h.t.Fatal("the sandbox has no session of two with a duplicate in it")
	}
	return best, pos
}

// t on a row lines up its session: every execution of it, oldest first, the one t was pressed
// on marked, the duplicates among them named with their cause.
func TestTimelineOfASession(t *testing.T) {
	cfg := sandboxConfig()
	cfg.Seed, cfg.Size = 9, 1500 // a history with tool-router sessions in its window
	e := newEnvWith(t, cfg)
	h := newHarness(t, e, 120, 40)
	sid, i := sessionWithADuplicate(h)
	want := 0
	for _, x := range e.srv.Executions() {
		if x.SessionID == sid {
			want++
		}
	}
	h.selectRow(i)
	h.keys("t")
	if !h.m.showTime || h.m.timeline.Len() != want {
		t.Fatalf("t on a row of session %s: shown %v, %d steps, want %d", sid, h.m.showTime, h.m.timeline.Len(), want)
	}
	box := ansi.Strip(h.m.timeline.View())
	for _, w := range []string{"Session " + sid, "› ", "DUP×", "oldest first"} {
		if !strings.Contains(box, w) {
			t.Errorf("the timeline lacks %q:\n%s", w, box)
		}
	}
	var last string
	for l := range strings.SplitSeq(box, "\n") {
		if m := regexp.MustCompile(`\d\d:\d\d:\d\d\.\d\d\d`).FindString(l); m != "" {
			if m < last {
				t.Errorf("the steps are not oldest first: %s after %s", m, last)
			}
			last = m
		}
	}
	golden(t, "timeline_120x40", h.screen()+"\n")
	h.keys("esc")
	if h.m.showTime {
		t.Fatal("esc did not close the timeline")
	}
	h2 := newHarness(t, e, 80, 24)
	h2.selectRow(i)
	h2.keys("t")
	s := h2.screen()
	checkFits(t, s, 80, 24)
	golden(t, "timeline_80x24", s+"\n")
}

// TestTheTimelineLinksAnApprovedReCall: in a session's timeline the call that asked
// for approval shows as waiting, and each approved re-call names the call it continues; the
// list marks the ask WAITING FOR APPROVAL and never flags it.
func TestTheTimelineLinksAnApprovedReCall(t *testing.T) {
	cfg := sandboxConfig()
	cfg.Approvals = []string{"SLACK_SEND_MESSAGE"}
	e := newEnvWith(t, cfg)
	ids, sid := approvedTwice(t, e.url)
	h := newHarness(t, e, 140, 40)
	ds := h.m.data.DS
	ask := ds.Index(ids[0])
	if ask < 0 || ds.Index(ids[1]) < 0 {
		t.Fatalf("the approval's calls are not in the list (%v)", ids)
	}
	if tr := ds.Triage(ask); tr.Outcome != model.OutcomeWaiting || tr.Flagged {
		t.Fatalf("the ask: %s flagged=%v", tr.Outcome, tr.Flagged)
	}
	h.filterTo(ids[0])
	if s := h.screen(); !strings.Contains(s, "WAITING FOR APPROVAL") {
		t.Errorf("the ask's row has no WAITING FOR APPROVAL badge:\n%s", s)
	}
	h.keys("t")
	box := ansi.Strip(h.m.timeline.View())
	if !strings.Contains(box, "Session "+sid) || !strings.Contains(box, "WAITING") {
		t.Fatalf("the timeline of %s:\n%s", sid, box)
	}
	if n := strings.Count(box, "approved re-call of "+ids[0]); n != 2 {
		t.Errorf("%d steps name the ask they continue, want 2:\n%s", n, box)
	}
}
