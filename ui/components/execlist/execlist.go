// Package execlist is the execution list: a windowed table over window.Items that renders only
// the rows on screen, so the cost of a frame does not depend on how many executions there are.
// It owns the cursor and the scroll offset; the root model gives it rows (built off the UI
// loop) and the store to read them from.
package execlist

import (
	"cmp"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/data"
	"github.com/exectriage/exectriage/window"
)

// Highlighter returns, for a visible execution, the byte offsets to highlight per column
// ("tool", "toolkit", "user", "account"); nil when the filter has no free text.
type Highlighter func(exec int) map[string][]int

// Model is the list.
type Model struct {
	common.Common
	store *data.Store
	items window.Items

	cursor, offset int
	width, height  int
	focused        bool

	// Highlight marks filter matches on visible rows.
	Highlight Highlighter
	// Spinner is the spinner's current frame, shown on rows being verified or retried.
	Spinner string
	// Title and Note head the box ("Executions", "filter: gmail"); Empty is shown with no rows.
	Title, Note, Empty string
	// Secrets redacts the columns (the list never reveals: a user id that is a token, or the
	// configured API key, must not show even in part).
	Secrets *redact.Policy
}

// cell returns a column's text with its secrets redacted and cleaned. A redacted value loses
// its filter highlight: the offsets are into the original text. Only the start of a huge value
// is read; a column is far narrower.
func (m Model) cell(s string, hl []int) (string, []int) {
	if len(s) > common.MaxFieldBytes {
		s = s[:common.MaxFieldBytes]
	}
	if r := m.Secrets.Text(s, false); r != s {
		s, hl = r, nil
	}
	return common.Clean(s), hl
}

// New returns an empty list reading from store.
func New(c common.Common, store *data.Store) Model {
	return Model{Common: c, store: store, Title: "Executions", Empty: "no executions"}
}

// SetSize sets the box's outer size.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.clamp()
}

// SetFocused says whether key input goes to the list.
func (m *Model) SetFocused(f bool) { m.focused = f }

// Focused reports whether the list has focus.
func (m Model) Focused() bool { return m.focused }

// SetItems replaces the rows and puts the cursor on row sel (clamped).
func (m *Model) SetItems(items window.Items, sel int) {
	m.items = items
	m.cursor = sel
	m.clamp()
	m.scrollTo(m.cursor)
}

// Items returns the rows.
func (m Model) Items() window.Items { return m.items }

// Len is the number of rows.
func (m Model) Len() int { return m.items.Len() }

// Cursor is the selected row's index.
func (m Model) Cursor() int { return m.cursor }

// Selected returns the selected row.
func (m Model) Selected() (window.Item, bool) {
	if m.cursor < 0 || m.cursor >= m.items.Len() {
		return window.Item{}, false
	}
	return m.items.At(m.cursor), true
}

// AtTop reports whether the view shows the newest rows with the cursor on the first one
// (follow mode refreshes only then).
func (m Model) AtTop() bool { return m.cursor == 0 && m.offset == 0 }

// rows is the number of table rows that fit (box minus borders and the column header).
func (m Model) rows() int { return max(m.height-3, 1) }

func (m *Model) clamp() {
	if m.cursor >= m.items.Len() {
		m.cursor = m.items.Len() - 1
	}
	if m.cursor < 0 {
		m.cursor = 0
	}
	maxOff := max(m.items.Len()-m.rows(), 0)
	m.offset = min(max(m.offset, 0), maxOff)
	m.scrollTo(m.cursor)
}

func (m *Model) scrollTo(i int) {
	n := m.rows()
	if i < m.offset {
		m.offset = i
	}
	if i >= m.offset+n {
		m.offset = i - n + 1
	}
	m.offset = max(m.offset, 0)
}

// Move moves the cursor by d rows.
func (m *Model) Move(d int) {
	m.cursor += d
	m.clamp()
}

// Top moves to the newest row.
func (m *Model) Top() { m.cursor, m.offset = 0, 0; m.clamp() }

// Bottom moves to the oldest row.
func (m *Model) Bottom() { m.cursor = m.items.Len() - 1; m.clamp() }

// Update handles navigation keys and the mouse wheel; other messages are ignored.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k := m.Keys
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Up):
			m.Move(-1)
		case key.Matches(msg, k.Down):
			m.Move(1)
		case key.Matches(msg, k.Top):
			m.Top()
		case key.Matches(msg, k.Bottom):
			m.Bottom()
		case key.Matches(msg, k.PageUp):
			m.Move(-m.rows())
		case key.Matches(msg, k.PageDown):
			m.Move(m.rows())
		case key.Matches(msg, k.HalfUp):
			m.Move(-max(m.rows()/2, 1))
		case key.Matches(msg, k.HalfDown):
			m.Move(max(m.rows()/2, 1))
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.Move(-3)
		case tea.MouseWheelDown:
			m.Move(3)
		}
	}
	return m, nil
}

// Click selects the row at line y of the box (0 = top border); it reports whether a row was hit.
func (m *Model) Click(y int) bool {
	r := y - 2
	if r < 0 || r >= m.rows() || m.offset+r >= m.items.Len() {
		return false
	}
	m.cursor = m.offset + r
	return true
}

// layout is the column widths for a given inner width.
type layout struct {
	time, tool, toolkit, user, session, status, dur, badges int
	wideTime                                                bool
	// shortTime: the date and the minute (narrow terminals: a window spans days)
	shortTime bool
}

const gutter = 3 // cursor, flag marker, space

func layoutFor(w int) layout {
	var l layout
	l.status, l.dur = 7, 6
	switch {
	case w >= 190: // room for the session too
		l.wideTime, l.time, l.tool, l.toolkit, l.user, l.session = true, 14, 34, 10, 26, 16
	case w >= 170:
		l.wideTime, l.time, l.tool, l.toolkit, l.user = true, 14, 36, 10, 30
	case w >= 130:
		l.wideTime, l.time, l.tool, l.toolkit, l.user = true, 14, 28, 10, 22
	case w >= 96:
		l.wideTime, l.time, l.tool, l.toolkit, l.user = true, 14, 24, 8, 14
	case w >= 70: // 80 columns: the date, and who, without the toolkit
		l.shortTime, l.time, l.tool, l.user = true, 11, 20, 9
	case w >= 56:
		l.shortTime, l.time, l.tool = true, 11, 20
	default:
		l.time, l.tool = 8, 22
	}
	used := gutter + l.time + 1 + l.tool + 1 + l.status + 1 + l.dur + 1
	if l.toolkit > 0 {
		used += l.toolkit + 1
	}
	if l.user > 0 {
		used += l.user + 1
	}
	if l.session > 0 {
		used += l.session + 1
	}
	l.badges = max(w-used, 0)
	if l.badges < 12 && l.tool > 12 { // give badges room before the tool name
		give := min(12-l.badges, l.tool-12)
		l.tool -= give
		l.badges += give
	}
	return l
}

// View renders the box with the visible rows only.
func (m Model) View() string {
	inner := max(m.width-2, 1)
	l := layoutFor(inner)
	var b strings.Builder
	b.WriteString(m.header(l, inner))
	n := m.rows()
	if m.items.Len() == 0 {
		b.WriteString("\n")
		b.WriteString(m.Styles.List.Empty.Render(common.Fit("  "+m.Empty, inner)))
	}
	for r := 0; r < n && m.offset+r < m.items.Len(); r++ {
		i := m.offset + r
		b.WriteString("\n")
		b.WriteString(m.row(l, inner, m.items.At(i), i == m.cursor))
	}
	right := ""
	if m.items.Len() > 0 {
		right = common.Count(m.cursor+1) + "/" + common.Count(m.items.Len())
	} else {
		right = "0/0"
	}
	title := m.Title
	if m.Note != "" {
		title += " · " + m.Note
	}
	st := m.Styles.Pane
	return common.Box(common.BoxStyles{Border: st.Border, BorderFocus: st.BorderFocus, Title: st.Title, TitleFocus: st.TitleFocus},
		title, right, b.String(), m.width, m.height, m.focused)
}

func (m Model) header(l layout, w int) string {
	cols := []string{common.Fit("", gutter-1), common.Fit("TIME", l.time), common.Fit("TOOL", l.tool)}
	if l.toolkit > 0 {
		cols = append(cols, common.Fit("TOOLKIT", l.toolkit))
	}
	if l.user > 0 {
		name := "USER/ACCOUNT"
		if l.user < len(name) {
			name = "USER"
		}
		cols = append(cols, common.Fit(name, l.user))
	}
	if l.session > 0 {
		cols = append(cols, common.Fit("SESSION", l.session))
	}
	cols = append(cols, common.Fit("STATUS", l.status), common.FitLeft("DUR", l.dur), common.Fit("FLAGS", l.badges))
	return m.Styles.List.ColumnHeader.Render(common.Fit(strings.Join(cols, " "), w))
}

// seg is a piece of a row: its text and, unless it is plain, the text in its own style. A
// piece holds no lipgloss.Style (648 bytes): a frame's rows made about 20 KB of pieces each,
// most of a loading TUI's frame garbage.
type seg struct {
	text string
	out  string // text rendered in its style; empty for a plain piece
	// plain marks a piece in the row's base style: consecutive plain pieces are rendered
	// with one Style.Render (the costly part of a frame).
	plain bool
}

// styled is text in its own style.
func styled(text string, s lipgloss.Style) seg { return seg{text: text, out: s.Render(text)} }

// plain is text in the row's base style.
func plain(text string) seg { return seg{text: text, plain: true} }

func (m Model) row(l layout, w int, it window.Item, selected bool) string {
	st := m.Styles
	ds := m.store.DS
	if int(it.Exec) >= ds.Len() {
		return common.Fit("", w)
	}
	e := m.store.Row(int(it.Exec))
	tr := ds.Triage(int(it.Exec))
	t := &tr

	base := st.List.Row
	switch {
	case it.Kind == window.ItemGroup:
		base = st.List.Group
	case t.Flagged:
		base = st.List.Flagged
	}
	if selected {
		base = st.List.Selected
	}
	sty := func(s lipgloss.Style) lipgloss.Style {
		if selected {
			return s.Inherit(st.List.Selected).Background(st.List.Selected.GetBackground())
		}
		return s
	}
	cur := " "
	if selected {
		cur = "›"
	}
	if it.Kind == window.ItemGroup {
		return m.groupRow(l, w, it, cur, base)
	}

	segs := make([]seg, 0, 24)
	add := func(text string, s lipgloss.Style) { segs = append(segs, styled(text, s)) }
	addBase := func(text string) { segs = append(segs, plain(text)) }
	if m.store != nil && m.store.Picked[m.store.DS.ID(int(it.Exec))] {
		cur = map[bool]string{true: "»", false: "•"}[selected]
	}
	addBase(cur)
	if t.Flagged {
		add("!", sty(st.List.Marker))
	} else {
		addBase(" ")
	}
	addBase(" ")
	ts := common.Clock(e.Timestamp)
	switch {
	case l.wideTime:
		ts = common.Stamp(e.Timestamp)
	case l.shortTime:
		ts = common.ShortStamp(e.Timestamp)
	}
	addBase(common.Fit(ts, l.time) + " ")

	var hl map[string][]int
	if m.Highlight != nil {
		hl = m.Highlight(int(it.Exec))
	}
	tool, toolHL := m.cell(e.Tool, hl["tool"])
	toolW := l.tool
	if it.Kind == window.ItemMember {
		glyph := "├ "
		if members := ds.Members[it.Group]; int(it.Member) == len(members)-1 {
			glyph = "└ "
		}
		add(glyph, sty(st.Muted))
		toolW -= 2
	} else if it.Child { // a meta tool's child, under its run
		add("└ ", sty(st.Muted))
		toolW -= 2
	}
	segs = append(segs, highlight(common.Fit(tool, toolW), toolHL, sty(st.List.Match))...)
	addBase(" ")
	if l.toolkit > 0 {
		toolkit, toolkitHL := m.cell(e.Toolkit, hl["toolkit"])
		segs = append(segs, highlight(common.Fit(toolkit, l.toolkit), toolkitHL, sty(st.List.Match))...)
		addBase(" ")
	}
	if l.user > 0 {
		who, field := e.User, "user"
		if who == "" {
			who, field = e.Account, "account"
		}
		whoText, whoHL := m.cell(who, hl[field])
		segs = append(segs, highlight(common.Fit(whoText, l.user), whoHL, sty(st.List.Match))...)
		addBase(" ")
	}
	if l.session > 0 { // t lines the session up; "-" when the row's record names none (yet)
		sess := e.Session
		sess = cmp.Or(sess, "-")
		sessText, sessHL := m.cell(sess, hl["session"])
		segs = append(segs, highlight(common.Fit(sessText, l.session), sessHL, sty(st.List.Match))...)
		addBase(" ")
	}
	status := e.Status
	status = cmp.Or(status, "pending")
	statusText, _ := m.cell(status, nil)
	addBase(common.Fit(statusText, l.status) + " ")
	dur := "-"
	if e.HasDuration {
		dur = common.Duration(e.Duration)
	}
	addBase(common.FitLeft(dur, l.dur) + " ")

	badges := m.badges(it, e.ID, t, sty)
	used := 0
	for _, s := range segs {
		used += common.Width(s.text)
	}
	room := w - used
	var bs []seg
	for _, bd := range badges {
		need := common.Width(bd.text)
		if len(bs) > 0 {
			need++
		}
		if need > room {
			if room > 0 {
				bs = append(bs, plain(common.Fit("…", room)))
				room = 0
			}
			break
		}
		if len(bs) > 0 {
			bs = append(bs, plain(" "))
		}
		bs = append(bs, bd)
		room -= need
	}
	segs = append(segs, bs...)
	if room > 0 {
		segs = append(segs, plain(strings.Repeat(" ", room)))
	}
	var b strings.Builder
	for i := 0; i < len(segs); i++ {
		s := segs[i]
		if !s.plain {
			b.WriteString(s.out)
			continue
		}
		var text strings.Builder
		text.WriteString(s.text)
		for i+1 < len(segs) && segs[i+1].plain {
			i++
			text.WriteString(segs[i].text)
		}
		b.WriteString(base.Render(text.String()))
	}
	return b.String()
}

func (m Model) groupRow(l layout, w int, it window.Item, cur string, base lipgloss.Style) string {
	ds := m.store.DS
	g := &ds.Groups[it.Group]
	e := m.store.Row(int(it.Exec))
	members := ds.Members[it.Group]
	fold := "▾"
	if len(members) > 0 && (it.Kind == window.ItemGroup) && m.collapsed(it) {
		fold = "▸"
	}
	flagged := 0
	for _, ei := range members {
		if ds.Flag(int(ei)) {
			flagged++
		}
	}
	mark := " "
	if flagged > 0 {
		mark = "!"
	}
	who := e.User
	who = cmp.Or(who, e.Account)
	eff := "took effect ?"
	if g.Effective >= 0 {
		eff = "took effect " + common.Count(g.Effective) + "/" + common.Count(len(members))
	}
	tool, _ := m.cell(e.Tool, nil)
	whoText, _ := m.cell(who, nil)
	text := cur + mark + " " + fold + " DUP×" + common.Count(len(members)) + " " + common.Clean(string(g.Pattern)) + " " + g.SimilarityWord() +
		"  " + tool + "  " + whoText + "  " + eff + "  last " + common.Clock(e.Timestamp)
	return base.Render(common.Fit(text, w))
}

// collapsed reports whether a group row's members are hidden: the next row is not its member.
func (m Model) collapsed(it window.Item) bool {
	for i := m.offset; i < m.items.Len(); i++ {
		if m.items.At(i) == it {
			if i+1 < m.items.Len() && m.items.At(i+1).Kind == window.ItemMember && m.items.At(i+1).Group == it.Group {
				return false
			}
			return true
		}
	}
	return false
}

// badges are in order of what matters when the column is cut: the outcome, a retry, the
// provider's answer, the duplicate group, a verdict.
func (m Model) badges(it window.Item, id string, t *model.Triage, sty func(lipgloss.Style) lipgloss.Style) []seg {
	st := m.Styles.Badge
	var out []seg
	if orig, ok := m.store.RetryOf[id]; ok { // the execution a guarded retry made
		out = append(out, styled("RETRY OF "+common.Clean(orig), sty(st.Retried)))
	}
	switch t.Outcome {
	case model.OutcomeAmbiguous:
		if t.Flagged {
			out = append(out, styled("AMBIGUOUS", sty(st.Ambiguous)))
		}
	case model.OutcomeRejected:
		if t.Flagged {
			out = append(out, styled("REJECTED", sty(st.Rejected)))
		}
	case model.OutcomeWaiting:
		out = append(out, styled("WAITING FOR APPROVAL", sty(st.Waiting)))
	}
	switch {
	case m.store.Retrying[id]:
		out = append(out, styled(m.Spinner+"RETRYING", sty(st.Retrying)))
	default:
		switch m.store.RetryState(id) {
		case model.AttemptSucceeded:
			out = append(out, styled("RETRIED", sty(st.Retried)))
		case model.AttemptFailed:
			out = append(out, styled("RETRY FAILED", sty(st.Rejected)))
		case model.AttemptIntent, model.AttemptSent, model.AttemptIndeterminate:
			out = append(out, styled("RETRIED?", sty(st.Ambiguous)))
		}
	}
	if m.store.Verifying[id] {
		out = append(out, styled(m.Spinner+"verifying", sty(st.Found)))
	} else if ps, ok := m.store.Provider[id]; ok {
		switch ps.State {
		case model.ProviderFound:
			out = append(out, styled("VERIFIED:found", sty(st.Found)))
		case model.ProviderNotFound:
			out = append(out, styled("VERIFIED:not_found", sty(st.Verified)))
		default:
			out = append(out, styled("VERIFIED:unknown", sty(st.Marked)))
		}
	}
	ds := m.store.DS
	if it.Kind == window.ItemMember {
		if it.Member > 0 {
			g := &ds.Groups[it.Group]
			if int(it.Member)-1 < len(g.Gaps) {
				out = append(out, styled(common.Gap(g.Gaps[it.Member-1]), sty(st.Dup)))
			}
		}
	} else if g := ds.Group(int(it.Exec)); g != nil {
		out = append(out, styled("DUP×"+common.Count(len(g.ExecutionIDs))+" "+common.Clean(string(g.Pattern)), sty(st.Dup)))
	}
	if v, ok := m.store.Verdicts[id]; ok {
		out = append(out, styled("MARKED:"+string(v), sty(st.Marked)))
	}
	return out
}

// highlight splits text into plain and matched pieces; pos are byte offsets into text (the
// filter's Highlight positions; a cut text keeps its prefix, so they stay valid).
func highlight(text string, pos []int, match lipgloss.Style) []seg {
	if len(pos) == 0 {
		return []seg{plain(text)}
	}
	hit := make(map[int]bool, len(pos))
	for _, p := range pos {
		hit[p] = true
	}
	var out []seg
	var cur strings.Builder
	curHit := false
	flush := func() {
		if cur.Len() > 0 {
			if curHit {
				out = append(out, styled(cur.String(), match))
			} else {
				out = append(out, plain(cur.String()))
			}
			cur.Reset()
		}
	}
	for i, r := range text {
		h := hit[i] && r != '…'
		if h != curHit {
			flush()
			curHit = h
		}
		cur.WriteRune(r)
	}
	flush()
	return out
}
