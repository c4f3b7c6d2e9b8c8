package header

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/data"
	"github.com/exectriage/exectriage/ui/keys"
	"github.com/exectriage/exectriage/ui/styles"
	"github.com/exectriage/exectriage/ui/theme"
	"github.com/exectriage/exectriage/window"
)

func TestSparkScalesToTheLargestAndLeavesGaps(t *testing.T) {
	tests := []struct {
		in   []int
		want string
	}{
		{[]int{0, 1, 2, 4, 8}, " ▁▂▄█"},
		{[]int{0, 0, 0}, "   "},
		{[]int{5, 5}, "██"},
		{[]int{1, 100}, "▁█"},
	}
	for _, tt := range tests {
		if got := spark(tt.in); got != tt.want {
			t.Errorf("spark(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestResampleKeepsEveryCount(t *testing.T) {
	var h window.Histogram
	for b := range window.HistBuckets {
		h.Execs[b] = 1
		if b%10 == 0 {
			h.Flagged[b] = 1
		}
	}
	for _, n := range []int{8, 37, 100, 600} {
		e, f := resample(&h, n)
		se, sf := 0, 0
		for i := range e {
			se += e[i]
			sf += f[i]
		}
		if se != window.HistBuckets || sf != (window.HistBuckets+9)/10 || len(e) != n {
			t.Errorf("n=%d: %d executions, %d flagged in %d columns", n, se, sf, len(e))
		}
	}
}

func TestJoinLRFitsTheWidth(t *testing.T) {
	for _, w := range []int{20, 40, 80, 200} {
		got := joinLR(strings.Repeat("left ", 20), "right side", w)
		if ansi.StringWidth(got) != w {
			t.Errorf("w=%d: %d wide: %q", w, ansi.StringWidth(got), got)
		}
	}
}

// The source's colour comes from its kind, not its name: a base URL is live.
func TestSourceColourFollowsTheKind(t *testing.T) {
	st := styles.New(theme.Default())
	c := common.Common{Styles: st, Keys: &keys.KeyMap{}, Now: time.Now}
	name := "http://127.0.0.1:8787"
	label := "[" + name + "]"
	if st.Header.Live.Render(label) == st.Header.Demo.Render(label) {
		t.Fatal("live and demo look the same: the test could not tell them apart")
	}
	for _, tt := range []struct {
		kind Kind
		want string
	}{
		{KindLive, st.Header.Live.Render(label)},
		{KindFile, st.Header.File.Render(label)},
		{KindDemo, st.Header.Demo.Render(label)},
	} {
		m := New(c, data.NewStore())
		m.SetSize(160, 3)
		m.Source, m.Kind = name, tt.kind
		if v := m.View(); !strings.Contains(v, tt.want) {
			t.Errorf("kind %d: the source is not in its colour:\n%q", tt.kind, v)
		}
	}
}

// A profile is named in the header; a production one loudly and in words.
func TestHeaderNamesTheProfile(t *testing.T) {
	st := styles.New(theme.Default())
	c := common.Common{Styles: st, Keys: &keys.KeyMap{}, Now: time.Now}
	m := New(c, data.NewStore())
	m.SetSize(160, 3)
	m.Source, m.Kind = "LIVE backend.composio.dev", KindLive
	m.Profile = "staging"
	if v := ansi.Strip(m.View()); !strings.Contains(v, "profile staging") || strings.Contains(v, "PRODUCTION") {
		t.Errorf("staging: %s", strings.SplitN(v, "\n", 2)[0])
	}
	m.Profile, m.Production = "prod", true
	if v := ansi.Strip(m.View()); !strings.Contains(v, "PRODUCTION: prod") {
		t.Errorf("prod: %s", strings.SplitN(v, "\n", 2)[0])
	}
	if !strings.Contains(m.View(), st.Status.Error.Bold(true).Reverse(true).Render(" PRODUCTION: prod ")) {
		t.Error("a production profile is not in the loud style")
	}
}

// TestALoadSaysWhatItWaitsFor: while the API's rate limit holds a load back, the header says
// so in place of the page count, so a long wait is not taken for a hang.
func TestALoadSaysWhatItWaitsFor(t *testing.T) {
	st := styles.New(theme.Default())
	c := common.Common{Styles: st, Keys: &keys.KeyMap{}, Now: time.Now}
	m := New(c, data.NewStore())
	m.SetSize(160, 3)
	m.Loading, m.Loaded, m.Pages = true, 4200, 42
	if v := ansi.Strip(m.View()); !strings.Contains(v, "loading 4,200 records · page 42") {
		t.Fatalf("loading:\n%s", v)
	}
	m.Waiting = []string{"waiting 12s for the API's rate limit (2000 requests a window)", "waiting 12s for the API's rate limit", "rate limit: 12s"}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "4,200 records · waiting 12s for the API's rate limit (2000 requests a window)") {
		t.Fatalf("waiting:\n%s", v)
	}
	// Narrower, the wait is said in fewer words, never dropped (at 100
	// columns it was, and a minute's wait looked like a hang).
	m.Source, m.Kind = "LIVE 127.0.0.1:39615", KindLive
	for _, w := range []int{60, 80, 100, 120} {
		m.SetSize(w, 3)
		line := strings.SplitN(ansi.Strip(m.View()), "\n", 2)[0]
		if !strings.Contains(line, "12s") || !strings.Contains(line, "rate limit") || common.Width(line) > w {
			t.Errorf("at %d columns the wait is not said:\n%s", w, line)
		}
		if !strings.Contains(line, "LIVE 127.0.0.1:39615") {
			t.Errorf("at %d columns the source is cut:\n%s", w, line)
		}
	}
}

// On a narrow header the refresh clock goes first; the source and a PRODUCTION profile are the
// last to go (they were cut before the clock).
func TestNarrowHeadersKeepTheSourceAndProduction(t *testing.T) {
	st := styles.New(theme.Default())
	c := common.Common{Styles: st, Keys: &keys.KeyMap{}, Now: time.Now}
	m := New(c, data.NewStore())
	m.Source, m.Kind = "LIVE backend.composio.dev", KindLive
	m.Profile, m.Production, m.ReadOnly = "prod", true, true
	m.Refreshed = "12:03:04"
	for _, w := range []int{40, 60, 80, 100, 160} {
		m.SetSize(w, 3)
		line := strings.SplitN(ansi.Strip(m.View()), "\n", 2)[0]
		if common.Width(line) > w {
			t.Errorf("w=%d: the line is %d wide", w, common.Width(line))
		}
		full := strings.Contains(line, "[LIVE backend.composio.dev]") && strings.Contains(line, "PRODUCTION: prod")
		if w >= 80 && (!full || !strings.Contains(line, "READ-ONLY")) {
			t.Errorf("w=%d: the source, PRODUCTION or READ-ONLY was cut: %q", w, line)
		}
		if !full && strings.Contains(line, "12:03:04") {
			t.Errorf("w=%d: the clock stayed while the source or PRODUCTION went: %q", w, line)
		}
		if w == 160 && !strings.Contains(line, "refreshed 12:03:04") {
			t.Errorf("w=160: no clock on a wide header: %q", line)
		}
	}
}

// TestTheHeaderKeepsTheMarksThatMatter: a stale or partial load's mark
// dropped first on a narrow header (at 100 columns), and "0 dup groups" showed while the groups
// were still being found. The mark now stays with the source, after the
// counts have gone (its first word down to 60), and groups not yet found read "groups …".
func TestTheHeaderKeepsTheMarksThatMatter(t *testing.T) {
	st := styles.New(theme.Default())
	c := common.Common{Styles: st, Keys: &keys.KeyMap{}, Now: time.Now}
	m := New(c, data.NewStore())
	m.Source, m.Kind = "LIVE backend.composio.dev", KindLive
	m.Refreshed = "12:03:04 UTC"
	for _, mark := range []string{"STALE: refresh failed", "PARTIAL: load stopped", "LOAD FAILED"} {
		m.Partial = mark
		for _, w := range []int{60, 80, 100, 120, 160} {
			m.SetSize(w, 3)
			line := strings.SplitN(ansi.Strip(m.View()), "\n", 2)[0]
			want := mark
			if w < 80 { // beside a long source, its first word
				want, _, _ = strings.Cut(mark, ":")
			}
			if !strings.Contains(line, want) || common.Width(line) > w {
				t.Errorf("at %d columns the mark %q is cut:\n%s", w, mark, line)
			}
		}
	}
	m.Partial = ""
	m.SetSize(160, 3)
	m.Grouping = true
	if line := strings.SplitN(ansi.Strip(m.View()), "\n", 2)[0]; !strings.Contains(line, "groups …") || strings.Contains(line, "0 dup groups") {
		t.Errorf("while the groups are found:\n%s", line)
	}
	m.Grouping = false
	if line := strings.SplitN(ansi.Strip(m.View()), "\n", 2)[0]; !strings.Contains(line, "0 dup groups") {
		t.Errorf("once found:\n%s", line)
	}
}
