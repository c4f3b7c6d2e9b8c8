package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
)

// The --json shapes of scan, list, show and verify. They are stable: keys are only ever
// added, never renamed or removed.
//
//	scan:   {"source", "summary": {"executions", "flagged", "by_outcome": {outcome: n},
//	         "by_kind": {kind: n}}, "executions": [EXEC...], "duplicate_groups": [GROUP...]}
//	list:   {"source", "executions": [EXEC...]}           (the rows --filter keeps)
//	show:   {"source", "execution": RECORD, "triage": EXEC, "duplicate_group": GROUP|null}
//	verify: {"source", "id", "tool_slug", "state", "evidence": PROVIDER_STATE}
//
// EXEC is {"id", "timestamp", "tool_slug", "toolkit_slug", "user_id"?, "connected_account_id"?,
// "status", "duration_ms"?, "request_id"?, "kind" (read|idempotent_write|write), "outcome"
// (succeeded|failed|rejected|ambiguous), "flagged", "reason", "duplicate_group" (id or null),
// "old_sdk"?}; executions are newest first (ties by id). GROUP is {"id", "pattern"
// (sdk_auto_retry|app_retry|double_submit), "execution_ids" (oldest first), "tool_slug",
// "reason", "gaps_ms"}; groups are ordered by their first member's time. RECORD is the Logs
// API detail shape (model.WireRecord); PROVIDER_STATE is model.ProviderState ("state",
// "verifier", "read_tool", "read_arguments", "matches", "reason", "checked_at"). Keys marked ?
// are omitted when empty. scan and list print one execution or group per line.

type execJSON struct {
	ID                 string   `json:"id"`
	Timestamp          string   `json:"timestamp"`
	ToolSlug           string   `json:"tool_slug"`
	ToolkitSlug        string   `json:"toolkit_slug"`
	UserID             string   `json:"user_id,omitempty"`
	ConnectedAccountID string   `json:"connected_account_id,omitempty"`
	Status             string   `json:"status"`
	DurationMS         *float64 `json:"duration_ms,omitempty"`
	RequestID          string   `json:"request_id,omitempty"`
	Kind               string   `json:"kind"`
	Outcome            string   `json:"outcome"`
	Flagged            bool     `json:"flagged"`
	Reason             string   `json:"reason"`
	DuplicateGroup     *string  `json:"duplicate_group"`
	OldSDK             string   `json:"old_sdk,omitempty"`
}

type groupJSON struct {
	ID           string   `json:"id"`
	Pattern      string   `json:"pattern"`
	ExecutionIDs []string `json:"execution_ids"`
	ToolSlug     string   `json:"tool_slug"`
	Reason       string   `json:"reason"`
	GapsMS       []int64  `json:"gaps_ms"`
}

type summaryJSON struct {
	Executions int            `json:"executions"`
	Flagged    int            `json:"flagged"`
	ByOutcome  map[string]int `json:"by_outcome"`
	ByKind     map[string]int `json:"by_kind"`
}

type scanJSON struct {
	Source          string      `json:"source"`
	Summary         summaryJSON `json:"summary"`
	Executions      []execJSON  `json:"executions"`
	DuplicateGroups []groupJSON `json:"duplicate_groups"`
}

func toExecJSON(e *model.Execution, t *model.Triage) execJSON {
	j := execJSON{
		ID: e.ID, ToolSlug: e.ToolSlug, ToolkitSlug: e.ToolkitSlug, UserID: e.UserID,
		ConnectedAccountID: e.ConnectedAccountID, Status: e.Status, RequestID: e.RequestID,
		Kind: string(t.Kind), Outcome: string(t.Outcome), Flagged: t.Flagged, Reason: t.Reason, OldSDK: t.OldSDK,
	}
	if !e.Timestamp.IsZero() {
		j.Timestamp = e.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	if e.HasDuration {
		ms := float64(e.Duration) / float64(time.Millisecond)
		j.DurationMS = &ms
	}
	if t.GroupID != "" {
		g := t.GroupID
		j.DuplicateGroup = &g
	}
	return j
}

func toGroupJSON(g *model.DuplicateGroup, execs []model.Execution, pos map[string]int) groupJSON {
	j := groupJSON{ID: g.ID, Pattern: string(g.Pattern), ExecutionIDs: g.ExecutionIDs, Reason: g.Reason, GapsMS: []int64{}}
	if j.ExecutionIDs == nil {
		j.ExecutionIDs = []string{}
	}
	for _, d := range g.Gaps {
		j.GapsMS = append(j.GapsMS, d.Milliseconds())
	}
	if len(g.ExecutionIDs) > 0 {
		if i, ok := pos[g.ExecutionIDs[0]]; ok {
			j.ToolSlug = execs[i].ToolSlug
		}
	}
	return j
}

// writeScanJSON writes scan's document with one execution or group per line: indenting
// every field of a million executions costs more than the scan itself. Executions are
// written as they are rendered, never all held as execJSON.
func (s *session) writeScanJSON(w io.Writer) error {
	head, err := json.Marshal(s.src.Name())
	if err != nil {
		return err
	}
	sum, err := json.Marshal(s.summary())
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "{\n  \"source\": %s,\n  \"summary\": %s,\n  \"executions\": [", head, sum)
	if err := writeArrayLinesParallel(w, len(s.execs), func(buf []byte, k int) []byte {
		return appendExecJSON(buf, &s.execs[k], &s.res.Triage[k])
	}); err != nil {
		return err
	}
	groups := make([]groupJSON, len(s.res.Groups))
	for i := range s.res.Groups {
		groups[i] = toGroupJSON(&s.res.Groups[i], s.execs, s.pos)
	}
	fmt.Fprint(w, "],\n  \"duplicate_groups\": [")
	if err := writeJSONLines(w, groups); err != nil {
		return err
	}
	_, err = fmt.Fprint(w, "]\n}\n")
	return err
}

// groupPositions maps the first member of each duplicate group to its position in execs
// (the first execution with that id, as index does for every id).
func (s *session) groupPositions() map[string]int {
	pos := make(map[string]int, len(s.res.Groups))
	for i := range s.res.Groups {
		if ids := s.res.Groups[i].ExecutionIDs; len(ids) > 0 {
			pos[ids[0]] = -1
		}
	}
	for i := range s.execs {
		if p, ok := pos[s.execs[i].ID]; ok && p < 0 {
			pos[s.execs[i].ID] = i
		}
	}
	return pos
}

func writeJSONLines[T any](w io.Writer, items []T) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	return writeArrayLines(w, len(items), func(b []byte, i int) []byte {
		buf.Reset()
		if err := enc.Encode(&items[i]); err != nil {
			return nil
		}
		return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
	})
}

// writeArrayLines writes n items, one per line, inside a JSON array; item appends item k's
// JSON to buf (nil: it failed).
func writeArrayLines(w io.Writer, n int, item func(buf []byte, k int) []byte) error {
	buf := make([]byte, 0, 64<<10)
	for k := range n {
		if k == 0 {
			buf = append(buf, "\n    "...)
		} else {
			buf = append(buf, ",\n    "...)
		}
		next := item(buf, k)
		if next == nil {
			return fmt.Errorf("encoding item %d as JSON", k)
		}
		buf = next
		if len(buf) >= 60<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if n > 0 {
		buf = append(buf, "\n  "...)
	}
	_, err := w.Write(buf)
	return err
}

// writeArrayLinesParallel is writeArrayLines with the items rendered on every core, a block
// of them per goroutine, and written in order; item must be safe to call concurrently.
func writeArrayLinesParallel(w io.Writer, n int, item func(buf []byte, k int) []byte) error {
	const block = 8192
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || n < 2*block {
		return writeArrayLines(w, n, item)
	}
	bufs := make([][]byte, workers)
	for lo := 0; lo < n; lo += workers * block {
		var wg sync.WaitGroup
		for j := range workers {
			blo := lo + j*block
			if blo >= n {
				bufs[j] = bufs[j][:0]
				continue
			}
			bhi := min(blo+block, n)
			wg.Go(func() {
				b := bufs[j][:0]
				for k := blo; k < bhi; k++ {
					if k == 0 {
						b = append(b, "\n    "...)
					} else {
						b = append(b, ",\n    "...)
					}
					b = item(b, k)
				}
				bufs[j] = b
			})
		}
		wg.Wait()
		for _, b := range bufs {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
	}
	_, err := io.WriteString(w, "\n  ")
	return err
}

// appendExecJSON appends what json.Encoder writes for toExecJSON(e, t), without building it
// (a test holds the two byte for byte).
func appendExecJSON(b []byte, e *model.Execution, t *model.Triage) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, e.ID)
	b = append(b, `,"timestamp":"`...)
	if !e.Timestamp.IsZero() {
		b = e.Timestamp.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
	}
	b = append(b, `","tool_slug":`...)
	b = appendJSONString(b, e.ToolSlug)
	b = append(b, `,"toolkit_slug":`...)
	b = appendJSONString(b, e.ToolkitSlug)
	if e.UserID != "" {
		b = append(b, `,"user_id":`...)
		b = appendJSONString(b, e.UserID)
	}
	if e.ConnectedAccountID != "" {
		b = append(b, `,"connected_account_id":`...)
		b = appendJSONString(b, e.ConnectedAccountID)
	}
	b = append(b, `,"status":`...)
	b = appendJSONString(b, e.Status)
	if e.HasDuration {
		b = append(b, `,"duration_ms":`...)
		b = appendJSONFloat(b, float64(e.Duration)/float64(time.Millisecond))
	}
	if e.RequestID != "" {
		b = append(b, `,"request_id":`...)
		b = appendJSONString(b, e.RequestID)
	}
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, string(t.Kind))
	b = append(b, `,"outcome":`...)
	b = appendJSONString(b, string(t.Outcome))
	b = append(b, `,"flagged":`...)
	b = strconv.AppendBool(b, t.Flagged)
	b = append(b, `,"reason":`...)
	b = appendJSONString(b, t.Reason)
	b = append(b, `,"duplicate_group":`...)
	if t.GroupID == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, t.GroupID)
	}
	if t.OldSDK != "" {
		b = append(b, `,"old_sdk":`...)
		b = appendJSONString(b, t.OldSDK)
	}
	return append(b, '}')
}

// appendJSONString quotes s as encoding/json does (HTML-safe): plain ASCII directly, the rest
// through json.Marshal.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONFloat formats f as encoding/json does: the shortest decimal, exponent notation
// only for very small or very large magnitudes (left to json.Marshal).
func appendJSONFloat(b []byte, f float64) []byte {
	if a := math.Abs(f); a == 0 || a >= 1e-6 && a < 1e21 {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	q, err := json.Marshal(f)
	if err != nil {
		return append(b, "null"...) // NaN or infinity: a duration never is
	}
	return append(b, q...)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// session is one command's source, executions and triage.
type session struct {
	src   source.Source
	execs []model.Execution // newest first
	res   *triage.Result
	setup triageSetup
	pos   map[string]int // id → index in execs
}

// begin opens the source, loads and triages. The caller closes s.src.
func (sf *sourceFlags) begin(ctx context.Context, env *Env) (*session, error) {
	src, err := sf.open(ctx, env)
	if err != nil {
		return nil, err
	}
	s := &session{src: src}
	if s.execs, err = sf.loadAll(ctx, env, src); err != nil {
		src.Close()
		return nil, err
	}
	if s.setup, err = sf.setup(ctx, env, src, s.execs); err != nil {
		src.Close()
		return nil, err
	}
	s.res = sf.analyze(ctx, env, src, s.execs, s.setup)
	if !sf.lean { // scan looks up only the first members of groups (groupPositions)
		s.index()
	}
	return s, nil
}

func (s *session) index() {
	s.pos = make(map[string]int, len(s.execs))
	for i := range s.execs {
		if _, dup := s.pos[s.execs[i].ID]; !dup {
			s.pos[s.execs[i].ID] = i
		}
	}
}

// runScan reports flagged writes and duplicate groups.
func runScan(ctx context.Context, env *Env, args []string) int {
	fs := newFlagSet(env, "scan")
	var sf sourceFlags
	sf.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		return usageError(env, "scan", "unexpected argument %q", pos[0])
	}
	sf.lean = true
	if env.Getenv("GOGC") == "" {
		// scan holds every execution of the window at once: collecting at 75% growth instead
		// of 100% keeps the peak (1.2 GB for a million) a tenth lower at no measurable cost.
		defer debug.SetGCPercent(debug.SetGCPercent(75))
	}
	s, err := sf.begin(ctx, env)
	if err != nil {
		return fail(env, "scan", err)
	}
	defer s.src.Close()
	s.pos = s.groupPositions()
	w := bufio.NewWriterSize(env.Stdout, 64<<10)
	if sf.json {
		err = s.writeScanJSON(w)
	} else {
		s.scanReport(w, &sf, env.Now())
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fail(env, "scan", err)
	}
	return ExitOK
}

func (s *session) summary() summaryJSON {
	sum := summaryJSON{Executions: len(s.execs), ByOutcome: map[string]int{}, ByKind: map[string]int{}}
	for _, o := range outcomeOrder {
		sum.ByOutcome[string(o)] = 0
	}
	for _, k := range kindOrder {
		sum.ByKind[string(k)] = 0
	}
	for i := range s.res.Triage {
		t := &s.res.Triage[i]
		sum.ByOutcome[string(t.Outcome)]++
		sum.ByKind[string(t.Kind)]++
		if t.Flagged {
			sum.Flagged++
		}
	}
	return sum
}

// header is the first line of every human report: where the data came from and what span.
func (s *session) header(w io.Writer, sf *sourceFlags, now time.Time) {
	fmt.Fprintf(w, "source: %s", sanitize.String(s.src.Name()))
	if sf.since > 0 {
		fmt.Fprintf(w, " · since %s (%s)", shortDuration(sf.since), stamp(now.Add(-sf.since)))
	}
	fmt.Fprintf(w, " · %d executions", len(s.execs))
	if n := len(s.execs); n > 0 {
		fmt.Fprintf(w, " · %s … %s", stamp(s.execs[n-1].Timestamp), stamp(s.execs[0].Timestamp))
	}
	fmt.Fprintln(w)
}

var (
	outcomeOrder = []model.Outcome{model.OutcomeSucceeded, model.OutcomeFailed, model.OutcomeRejected, model.OutcomeAmbiguous}
	kindOrder    = []model.ToolKind{model.KindRead, model.KindIdempotentWrite, model.KindWrite}
)

func (s *session) scanReport(w io.Writer, sf *sourceFlags, now time.Time) {
	s.header(w, sf, now)
	sum := s.summary()
	var parts []string
	for _, o := range outcomeOrder {
		parts = append(parts, fmt.Sprintf("%s %d", o, sum.ByOutcome[string(o)]))
	}
	fmt.Fprintf(w, "outcome  %s\n", strings.Join(parts, " · "))
	parts = parts[:0]
	for _, k := range kindOrder {
		parts = append(parts, fmt.Sprintf("%s %d", k, sum.ByKind[string(k)]))
	}
	fmt.Fprintf(w, "kind     %s\n", strings.Join(parts, " · "))

	fmt.Fprintf(w, "\nflagged writes: %d\n", sum.Flagged)
	for i := range s.execs {
		t := &s.res.Triage[i]
		if !t.Flagged {
			continue
		}
		e := &s.execs[i]
		fmt.Fprintf(w, "  %s  %s  %s  %s  %s\n", stamp(e.Timestamp), sanitize.Line(e.ID, 40), sanitize.Line(e.ToolSlug, 48),
			sanitize.Line(who(e), 60), strings.ToUpper(string(t.Outcome)))
		fmt.Fprintf(w, "      %s\n", sanitize.Line(t.Reason, 160))
		if g := t.GroupID; g != "" {
			fmt.Fprintf(w, "      duplicate group %s\n", sanitize.Line(g, 40))
		}
	}

	fmt.Fprintf(w, "\nduplicate groups: %d\n", len(s.res.Groups))
	for i := range s.res.Groups {
		g := &s.res.Groups[i]
		tool := ""
		if len(g.ExecutionIDs) > 0 {
			if j, ok := s.pos[g.ExecutionIDs[0]]; ok {
				tool = s.execs[j].ToolSlug
			}
		}
		fmt.Fprintf(w, "  %s  %s  %s  %d executions\n", sanitize.Line(g.ID, 40), g.Pattern, sanitize.Line(tool, 48), len(g.ExecutionIDs))
		ids := make([]string, len(g.ExecutionIDs))
		for k, id := range g.ExecutionIDs {
			ids[k] = sanitize.Line(id, 40)
		}
		fmt.Fprintf(w, "      %s\n", strings.Join(ids, " → "))
		if g.Reason != "" {
			fmt.Fprintf(w, "      %s\n", sanitize.Line(g.Reason, 160))
		}
	}

	old := map[string]int{}
	var notes []string
	for i := range s.res.Triage {
		if n := s.res.Triage[i].OldSDK; n != "" {
			if old[n] == 0 {
				notes = append(notes, n)
			}
			old[n]++
		}
	}
	if len(notes) > 0 {
		total := 0
		for _, n := range old {
			total += n
		}
		fmt.Fprintf(w, "\nold SDKs: %d executions came from an SDK that auto-retries writes (upgrade: Python composio >= %s, @composio/core >= %s)\n",
			total, triage.PythonSDKFixedIn, triage.TypeScriptSDKFixedIn)
		for _, n := range notes {
			fmt.Fprintf(w, "  %s (%d)\n", sanitize.Line(n, 120), old[n])
		}
	}
}

// runList prints executions newest first, one line each, optionally filtered.
func runList(ctx context.Context, env *Env, args []string) int {
	fs := newFlagSet(env, "list")
	var sf sourceFlags
	sf.register(fs)
	query := fs.String("filter", "", "filter `QUERY`: fuzzy text plus field terms ("+strings.Join(filter.FieldNames(), ":, ")+":)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		*query = strings.TrimSpace(*query + " " + strings.Join(pos, " "))
	}
	q, err := filter.Parse(*query)
	if err != nil {
		return usageError(env, "list", "--filter: %s", sanitize.String(err.Error()))
	}
	s, err := sf.begin(ctx, env)
	if err != nil {
		return fail(env, "list", err)
	}
	defer s.src.Close()
	ix := filter.NewIndex(len(s.execs))
	for i := range s.execs {
		ix.Append(filter.Row{Exec: &s.execs[i], Triage: &s.res.Triage[i]})
	}
	match := ix.Filter(q)
	w := bufio.NewWriterSize(env.Stdout, 64<<10)
	if sf.json {
		name, _ := json.Marshal(s.src.Name())
		fmt.Fprintf(w, "{\n  \"source\": %s,\n  \"executions\": [", name)
		if err = writeArrayLines(w, len(match), func(buf []byte, k int) []byte {
			return appendExecJSON(buf, &s.execs[match[k]], &s.res.Triage[match[k]])
		}); err == nil {
			_, err = io.WriteString(w, "]\n}\n")
		}
	} else {
		fmt.Fprintf(env.Stderr, "source: %s · %d of %d executions\n", sanitize.String(s.src.Name()), len(match), len(s.execs))
		s.listLines(w, match)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fail(env, "list", err)
	}
	return ExitOK
}

// listLines writes one aligned line per execution: time, tool, toolkit, user/account,
// status, duration, badges.
func (s *session) listLines(w io.Writer, match []int) {
	const toolMax, kitMax, whoMax = 40, 16, 48
	type line struct{ tool, kit, who string }
	lines := make([]line, len(match))
	var tw, kw, ww int
	for k, i := range match {
		e := &s.execs[i]
		l := line{sanitize.Line(e.ToolSlug, toolMax), sanitize.Line(e.ToolkitSlug, kitMax), sanitize.Line(who(e), whoMax)}
		tw, kw, ww = max(tw, width(l.tool)), max(kw, width(l.kit)), max(ww, width(l.who))
		lines[k] = l
	}
	groupSize := map[string]int{}
	for i := range s.res.Groups {
		groupSize[s.res.Groups[i].ID] = len(s.res.Groups[i].ExecutionIDs)
	}
	for k, i := range match {
		e, t, l := &s.execs[i], &s.res.Triage[i], lines[k]
		status := e.Status
		if status == "" {
			status = "none"
		}
		fmt.Fprintf(w, "%s  %s  %s  %s  %-7s  %7s", stamp(e.Timestamp), pad(l.tool, tw), pad(l.kit, kw), pad(l.who, ww),
			sanitize.Line(status, 7), duration(e))
		if t.Flagged {
			fmt.Fprintf(w, "  %s", strings.ToUpper(string(t.Outcome)))
		}
		if n := groupSize[t.GroupID]; n > 0 {
			fmt.Fprintf(w, "  DUPx%d", n)
		}
		fmt.Fprintf(w, "  %s\n", sanitize.Line(e.ID, 40))
	}
}

// width is the display width of an already sanitized line (runes; sanitize escapes the
// rest).
func width(s string) int { return len([]rune(s)) }

func pad(s string, n int) string {
	if d := n - width(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

func who(e *model.Execution) string {
	switch {
	case e.UserID != "" && e.ConnectedAccountID != "":
		return e.UserID + "/" + e.ConnectedAccountID
	case e.UserID != "":
		return e.UserID
	case e.ConnectedAccountID != "":
		return e.ConnectedAccountID
	}
	return "-"
}

// stamp formats a time in UTC to the second; "-" when unknown.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-------------------"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func duration(e *model.Execution) string {
	if !e.HasDuration {
		return "-"
	}
	return shortDuration(e.Duration)
}

func shortDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d%time.Hour == 0 && d >= 48*time.Hour && d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// lookup finds id among the loaded executions, else asks the source (the id may be outside
// the window), and makes sure it carries its full detail, re-running triage when it changed.
func (s *session) lookup(ctx context.Context, id string) (int, error) {
	i, ok := s.pos[id]
	if ok && s.execs[i].Detailed {
		return i, nil
	}
	d, err := s.src.Get(ctx, id)
	if err != nil {
		if errors.Is(err, source.ErrNotFound) {
			return 0, &cliError{code: ExitUsage, msg: fmt.Sprintf("no execution %s in %s", id, s.src.Name())}
		}
		return 0, err
	}
	if ok {
		s.execs[i] = d
	} else {
		s.execs = append(s.execs, d)
		sortNewestFirst(s.execs)
		s.index()
		i = s.pos[id]
	}
	s.res = triage.Analyze(s.execs, s.setup.kinds, s.setup.opt)
	return i, nil
}

type showJSON struct {
	Source         string          `json:"source"`
	Execution      json.RawMessage `json:"execution"` // the record in the Logs API detail shape, secrets redacted
	Triage         execJSON        `json:"triage"`
	DuplicateGroup *groupJSON      `json:"duplicate_group"`
}

// runShow prints one execution, its whole record and its triage.
func runShow(ctx context.Context, env *Env, args []string) int {
	fs := newFlagSet(env, "show")
	var sf sourceFlags
	sf.register(fs)
	reveal := fs.Bool("reveal", false, "show secrets in the record (tokens, passwords, keys) instead of [REDACTED]; the API key stays hidden")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		return usageError(env, "show", "want exactly one execution ID (exectriage show ID [--json] [--reveal])")
	}
	s, err := sf.begin(ctx, env)
	if err != nil {
		return fail(env, "show", err)
	}
	defer s.src.Close()
	i, err := s.lookup(ctx, pos[0])
	if err != nil {
		return fail(env, "show", err)
	}
	e, t := &s.execs[i], &s.res.Triage[i]
	rec, err := json.Marshal(model.ToWire(e, true))
	if err != nil {
		return fail(env, "show", err)
	}
	out := showJSON{Source: s.src.Name(), Execution: showRecord(rec, *reveal, env.Getenv("COMPOSIO_API_KEY")), Triage: toExecJSON(e, t)}
	if g, ok := s.res.Group(t.GroupID); ok && t.GroupID != "" {
		gj := toGroupJSON(&g, s.execs, s.pos)
		out.DuplicateGroup = &gj
	}
	w := bufio.NewWriter(env.Stdout)
	if sf.json {
		err = writeJSON(w, out)
	} else {
		err = s.showReport(w, out, e, t)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fail(env, "show", err)
	}
	return ExitOK
}

func (s *session) showReport(w io.Writer, out showJSON, e *model.Execution, t *model.Triage) error {
	fmt.Fprintf(w, "source: %s\n", sanitize.String(s.src.Name()))
	fmt.Fprintf(w, "execution %s\n", sanitize.String(e.ID))
	row := func(k, v string) { fmt.Fprintf(w, "  %-9s %s\n", k, v) }
	row("time", stamp(e.Timestamp))
	row("tool", fmt.Sprintf("%s (%s) · %s", sanitize.String(e.ToolSlug), sanitize.String(e.ToolkitSlug), t.Kind))
	row("who", sanitize.String(who(e)))
	row("status", fmt.Sprintf("%s · %s", sanitize.String(orNone(e.Status)), duration(e)))
	row("outcome", fmt.Sprintf("%s: %s", t.Outcome, sanitize.String(t.Reason)))
	flag := "no"
	if t.Flagged {
		flag = "yes: check the provider before any retry (exectriage verify " + sanitize.String(e.ID) + ")"
	}
	row("flagged", flag)
	if g := out.DuplicateGroup; g != nil {
		ids := make([]string, len(g.ExecutionIDs))
		for k, id := range g.ExecutionIDs {
			ids[k] = sanitize.String(id)
		}
		row("group", fmt.Sprintf("%s %s: %s", sanitize.String(g.ID), g.Pattern, strings.Join(ids, " → ")))
		if g.Reason != "" {
			row("", sanitize.String(g.Reason))
		}
	}
	if t.OldSDK != "" {
		row("old SDK", sanitize.String(t.OldSDK))
	}
	if e.RequestID != "" {
		row("request", sanitize.String(e.RequestID))
	}
	var rec bytes.Buffer
	if err := json.Indent(&rec, out.Execution, "", "  "); err != nil {
		return err
	}
	fmt.Fprintf(w, "record:\n%s\n", sanitize.Block(rec.String(), 0))
	return nil
}

// showRecord redacts secrets in a record unless the person asked to see them; the API key
// itself is never shown either way.
func showRecord(rec []byte, reveal bool, apiKey string) json.RawMessage {
	if !reveal {
		return redact.New(apiKey).JSON(rec)
	}
	if apiKey == "" {
		return rec
	}
	return bytes.ReplaceAll(rec, []byte(apiKey), []byte("[REDACTED:known_secret]"))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

type verifyJSON struct {
	Source   string              `json:"source"`
	ID       string              `json:"id"`
	ToolSlug string              `json:"tool_slug"`
	State    string              `json:"state"`
	Evidence model.ProviderState `json:"evidence"`
}

// runVerify checks the provider for one execution's effect.
func runVerify(ctx context.Context, env *Env, args []string) int {
	fs := newFlagSet(env, "verify")
	var sf sourceFlags
	sf.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		return usageError(env, "verify", "want exactly one execution ID (exectriage verify ID [--json])")
	}
	src, err := sf.open(ctx, env)
	if err != nil {
		return fail(env, "verify", err)
	}
	defer src.Close()
	e, err := src.Get(ctx, pos[0])
	if err != nil {
		if errors.Is(err, source.ErrNotFound) {
			err = &cliError{code: ExitUsage, msg: fmt.Sprintf("no execution %s in %s", pos[0], src.Name())}
		}
		return fail(env, "verify", err)
	}
	ts, err := sf.setup(ctx, env, src, []model.Execution{e})
	if err != nil {
		return fail(env, "verify", err)
	}
	var st model.ProviderState
	if c := src.Client(); c == nil {
		st = model.ProviderState{State: model.ProviderUnknown, CheckedAt: env.Now().UTC(),
			Reason: "no API access for a file source: pass --base-url (with COMPOSIO_API_KEY) to check the provider"}
	} else {
		st = triage.NewVerifiers(c, ts.cfg.Verifiers, triage.WithClock(env.Now)).Verify(ctx, &e)
	}
	out := verifyJSON{Source: src.Name(), ID: e.ID, ToolSlug: e.ToolSlug, State: string(st.State), Evidence: st}
	w := bufio.NewWriter(env.Stdout)
	if sf.json {
		err = writeJSON(w, out)
	} else {
		verifyReport(w, out)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fail(env, "verify", err)
	}
	return ExitOK
}

func verifyReport(w io.Writer, v verifyJSON) {
	fmt.Fprintf(w, "source: %s\n", sanitize.String(v.Source))
	fmt.Fprintf(w, "%s  %s  %s\n", sanitize.String(v.ID), sanitize.String(v.ToolSlug), strings.ToUpper(v.State))
	st := v.Evidence
	fmt.Fprintf(w, "  %s\n", sanitize.String(st.Reason))
	if st.ReadTool != "" {
		fmt.Fprintf(w, "  checked with %s %s\n", sanitize.String(st.ReadTool), sanitize.Line(string(st.ReadArgs), 200))
	}
	for _, m := range st.Matches {
		line := sanitize.String(m.ID)
		if !m.Time.IsZero() {
			line += "  " + stamp(m.Time)
		}
		if m.Summary != "" {
			line += "  " + sanitize.Line(m.Summary, 120)
		}
		fmt.Fprintf(w, "  match %s\n", line)
	}
	switch model.ProviderStateKind(v.State) {
	case model.ProviderFound:
		fmt.Fprintln(w, "  the effect exists: do not retry")
	case model.ProviderNotFound:
		fmt.Fprintln(w, "  no effect found: a guarded retry may be offered after confirmation")
	}
}
