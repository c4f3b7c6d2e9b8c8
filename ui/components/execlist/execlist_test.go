package execlist

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/data"
	"github.com/exectriage/exectriage/ui/keys"
	"github.com/exectriage/exectriage/ui/styles"
	"github.com/exectriage/exectriage/ui/theme"
	"github.com/exectriage/exectriage/window"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// store builds a dataset of n executions without running triage: every third is a flagged
// ambiguous write, so the rendering of badges and markers is exercised.
func store(n int) *data.Store {
	execs := make([]model.Execution, n)
	tr := make([]model.Triage, n)
	for i := range execs {
		execs[i] = model.Execution{ID: fmt.Sprintf("log_%07d", i), Timestamp: t0.Add(-time.Duration(i) * time.Second),
			ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", UserID: "user_" + fmt.Sprint(i%7), Status: "failed",
			Duration: 61 * time.Second, HasDuration: true}
		tr[i] = model.Triage{Kind: model.KindWrite, Outcome: model.OutcomeSucceeded}
		if i%3 == 0 {
			tr[i] = model.Triage{Kind: model.KindWrite, Outcome: model.OutcomeAmbiguous, Flagged: true}
		}
	}
	s := data.NewStore()
	s.DS = window.Build(execs, nil, func([]model.Execution) window.Analysis { return window.Analysis{Triage: tr} })
	return s
}

func newList(s *data.Store, w, h int) Model {
	k := keys.Default()
	c := common.Common{Styles: styles.New(theme.Default()), Keys: &k, Now: func() time.Time { return t0 }}
	m := New(c, s)
	m.SetSize(w, h)
	m.SetItems(window.SelectItems(s.DS, window.View{}), 0)
	return m
}

func TestViewIsExactlyTheBoxAtEverySize(t *testing.T) {
	s := store(500)
	for _, sz := range [][2]int{{80, 10}, {120, 20}, {200, 30}, {60, 5}} {
		m := newList(s, sz[0], sz[1])
		lines := strings.Split(m.View(), "\n")
		if len(lines) != sz[1] {
			t.Fatalf("%v: %d lines", sz, len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w != sz[0] {
				t.Errorf("%v: line %d is %d wide: %q", sz, i, w, ansi.Strip(l))
			}
		}
	}
}

func TestFlaggedRowsAreMarkedWithoutColour(t *testing.T) {
	m := newList(store(10), 120, 8)
	plain := strings.Split(ansi.Strip(m.View()), "\n")
	// row 0 is log_0000000 (flagged, selected), row 1 is not flagged
	if !strings.HasPrefix(plain[2], "│›!") || !strings.Contains(plain[2], "AMBIGUOUS") {
		t.Errorf("selected flagged row: %q", plain[2])
	}
	if strings.HasPrefix(plain[3], "│ !") || strings.Contains(plain[3], "AMBIGUOUS") {
		t.Errorf("unflagged row marked: %q", plain[3])
	}
}

func TestNavigationKeepsTheCursorVisible(t *testing.T) {
	m := newList(store(1000), 80, 10) // 7 visible rows
	press := func(s string) {
		var k tea.KeyPressMsg
		switch s {
		case "pgdown":
			k = tea.KeyPressMsg{Code: tea.KeyPgDown}
		case "end":
			k = tea.KeyPressMsg{Code: tea.KeyEnd}
		default:
			k = tea.KeyPressMsg{Code: rune(s[0]), Text: s}
		}
		m, _ = m.Update(k)
	}
	tests := []struct {
		key        string
		cursor     int
		wantOffset int
	}{
		{"j", 1, 0}, {"j", 2, 0}, {"pgdown", 9, 3}, {"k", 8, 3}, {"G", 999, 993}, {"g", 0, 0}, {"end", 999, 993}, {"k", 998, 993},
	}
	for _, tt := range tests {
		press(tt.key)
		if m.cursor != tt.cursor || m.offset != tt.wantOffset {
			t.Fatalf("after %s: cursor %d offset %d, want %d %d", tt.key, m.cursor, m.offset, tt.cursor, tt.wantOffset)
		}
		if m.cursor < m.offset || m.cursor >= m.offset+m.rows() {
			t.Fatalf("after %s: cursor %d is off screen (offset %d)", tt.key, m.cursor, m.offset)
		}
	}
}

func TestSetItemsClampsTheSelection(t *testing.T) {
	m := newList(store(50), 80, 10)
	m.SetItems(window.ItemsOf(m.Items().Slice()[:3]), 40)
	if m.Cursor() != 2 {
		t.Errorf("cursor %d", m.Cursor())
	}
	m.SetItems(window.Items{}, 0)
	if _, ok := m.Selected(); ok {
		t.Error("selection in an empty list")
	}
	if !strings.Contains(ansi.Strip(m.View()), "no executions") {
		t.Error("empty list says nothing")
	}
}

// The cost of a frame must not grow with the number of executions: compare the two.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		s := store(n)
		m := newList(s, 200, 50)
		m.cursor = n / 2
		m.scrollTo(m.cursor)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}

// The pieces of a row keep their own styles: the filter's matches, the flagged marker and the
// badges, in the selected row too, where each takes the selection's background.
func TestRowPiecesKeepTheirStyles(t *testing.T) {
	m := newList(store(10), 120, 8)
	m.Highlight = func(int) map[string][]int { return map[string][]int{"tool": {0, 1}} }
	st := m.Styles
	sel := func(s lipgloss.Style) lipgloss.Style {
		return s.Inherit(st.List.Selected).Background(st.List.Selected.GetBackground())
	}
	lines := strings.Split(m.View(), "\n")
	selected, flagged, other := lines[2], lines[5], lines[3] // log_0 (selected), log_3, log_1
	for _, c := range []struct {
		name, line, want string
	}{
		{"selected match", selected, sel(st.List.Match).Render("GM")},
		{"selected marker", selected, sel(st.List.Marker).Render("!")},
		{"selected badge", selected, sel(st.Badge.Ambiguous).Render("AMBIGUOUS")},
		{"match", flagged, st.List.Match.Render("GM")},
		{"marker", flagged, st.List.Marker.Render("!")},
		{"badge", flagged, st.Badge.Ambiguous.Render("AMBIGUOUS")},
		// the plain pieces after the match run on in one rendering of the row's style
		{"plain run", other, strings.TrimSuffix(st.List.Row.Render("AIL_SEND_EMAIL"), ansi.ResetStyle)},
	} {
		if !strings.Contains(c.line, c.want) {
			t.Errorf("%s: %q lacks %q", c.name, c.line, c.want)
		}
	}
}
