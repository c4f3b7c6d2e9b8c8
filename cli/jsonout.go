package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/exectriage/exectriage/internal/cores"
	"github.com/exectriage/exectriage/internal/swar"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

// The --json shapes of scan, list, show and verify. They are stable: keys are only ever
// added, never renamed or removed.
//
//	scan:   {"source", "summary": {"executions", "flagged", "settled", "by_outcome": {outcome: n},
//	         "by_kind": {kind: n}}, "executions": [EXEC...], "duplicate_groups": [GROUP...]}
//	list:   {"source", "executions": [EXEC...]}           (the rows --filter keeps)
//	show:   {"source", "execution": RECORD, "triage": EXEC, "duplicate_group": GROUP|null}
//	verify: {"source", "id", "tool_slug", "state", "evidence": PROVIDER_STATE}
//
// EXEC is {"id", "timestamp", "tool_slug", "toolkit_slug", "user_id"?, "connected_account_id"?,
// "status", "duration_ms"?, "request_id"?, "kind" (read|idempotent_write|write), "outcome"
// (succeeded|failed|rejected|ambiguous), "flagged", "reason", "duplicate_group" (id or null),
// "old_sdk"?, "journal"? (the journal's case: "verdict"?, "retry"?, "retry_log"?, "retry_of"?,
// "settled"; a settled execution is not flagged)}; executions are newest first (ties by id). GROUP is {"id", "pattern"
// (sdk_auto_retry|app_retry|double_submit), "execution_ids" (oldest first), "tool_slug",
// "reason", "gaps_ms"}; groups are ordered by their first member's time. RECORD is the Logs
// API detail shape (model.WireRecord); PROVIDER_STATE is model.ProviderState ("state",
// "verifier", "read_tool", "read_arguments", "matches", "reason", "checked_at"). Keys marked ?
// are omitted when empty. scan and list print one execution or group per line.

// SchemaVersion is the version of every --json answer (its "schema_version"): raised when a
// key is renamed or removed or its meaning changes; keys may be added within a version. The
// shapes are written down in docs/json.md and docs/schema/.
const SchemaVersion = 1

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
	// Journal is the journal's case of the execution, omitted when it has none.
	Journal *model.Case `json:"journal,omitempty"`
}

type groupJSON struct {
	ID           string   `json:"id"`
	Pattern      string   `json:"pattern"`
	ExecutionIDs []string `json:"execution_ids"`
	ToolSlug     string   `json:"tool_slug"`
	Reason       string   `json:"reason"`
	Match        string   `json:"match"`
	Similarity   float64  `json:"similarity"`
	GapsMS       []int64  `json:"gaps_ms"`
	// Deliveries are the trigger deliveries whose handlers made the members (trigger_redelivery).
	Deliveries []string `json:"deliveries,omitempty"`
	// MetaRuns are the meta-tool runs the members each ran under (a re-sent meta tool), and
	// MetaGroup the group of those runs.
	MetaRuns  []string `json:"meta_runs,omitempty"`
	MetaGroup string   `json:"meta_group,omitempty"`
	// OtherCauses are the causes the group's timing and text fit besides pattern, when no
	// evidence tied to the attempts settles it.
	OtherCauses []model.CauseCandidate `json:"other_causes,omitempty"`
}

type summaryJSON struct {
	Executions int            `json:"executions"`
	Flagged    int            `json:"flagged"`
	Settled    int            `json:"settled"`
	ByOutcome  map[string]int `json:"by_outcome"`
	ByKind     map[string]int `json:"by_kind"`
}

type scanJSON struct {
	Source          string      `json:"source"`
	Summary         summaryJSON `json:"summary"`
	Executions      []execJSON  `json:"executions"`
	DuplicateGroups []groupJSON `json:"duplicate_groups"`
}

// toExecJSON is an execution's EXEC object; hide (the secret policy) is applied to every
// string that comes from the record.
func toExecJSON(e *model.Execution, t *model.Triage, hide func(string) string) execJSON {
	j := execJSON{
		ID: hide(e.ID), ToolSlug: hide(e.ToolSlug), ToolkitSlug: hide(e.ToolkitSlug), UserID: hide(e.UserID),
		ConnectedAccountID: hide(e.ConnectedAccountID), Status: hide(e.Status), RequestID: hide(e.RequestID),
		Kind: string(t.Kind), Outcome: string(t.Outcome), Flagged: t.Flagged, Reason: hide(t.Reason), OldSDK: hide(t.OldSDK),
		Journal: t.Case,
	}
	if !e.Timestamp.IsZero() {
		j.Timestamp = e.Timestamp.UTC().Format(model.WireTime)
	}
	if e.HasDuration {
		ms := float64(e.Duration) / float64(time.Millisecond)
		j.DurationMS = &ms
	}
	if t.GroupID != "" {
		g := hide(t.GroupID)
		j.DuplicateGroup = &g
	}
	return j
}

func (r *report) toGroupJSON(g *model.DuplicateGroup) groupJSON {
	j := groupJSON{
		ID:           r.hide(g.ID),
		Pattern:      string(g.Pattern),
		ExecutionIDs: make([]string, len(g.ExecutionIDs)),
		Reason:       r.hide(g.Reason),
		Match:        r.hide(g.Match),
		Similarity:   g.Similarity,
		GapsMS:       []int64{},
	}
	for i, id := range g.ExecutionIDs {
		j.ExecutionIDs[i] = r.hide(id)
	}
	for _, d := range g.Gaps {
		j.GapsMS = append(j.GapsMS, d.Milliseconds())
	}
	for _, d := range g.Deliveries {
		j.Deliveries = append(j.Deliveries, r.hide(d))
	}
	for _, id := range g.MetaRuns {
		j.MetaRuns = append(j.MetaRuns, r.hide(id))
	}
	j.MetaGroup = r.hide(g.MetaGroup)
	j.OtherCauses = g.OtherCauses // the rules' own words: nothing from the record
	j.ToolSlug = r.hide(r.groupTool(g))
	return j
}

// writeScanJSON writes scan's document with one execution or group per line: indenting
// every field of a million executions costs more than the scan itself. Executions are
// written as they are rendered, never all held as execJSON.
func (r *report) writeScanJSON(w io.Writer) error {
	head, err := marshalSafe(r.hide(r.a.SourceName()))
	if err != nil {
		return err
	}
	sum, err := marshalSafe(r.summary())
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "{\n  \"schema_version\": %d,\n  \"source\": %s,\n  \"summary\": %s,\n  \"executions\": [", SchemaVersion, head, sum)
	if err := writeArrayLinesParallel(w, r.s.Len(), r.appendScanned); err != nil {
		return err
	}
	groups := make([]groupJSON, len(r.s.Groups))
	for i := range r.s.Groups {
		groups[i] = r.toGroupJSON(&r.s.Groups[i])
	}
	fmt.Fprint(w, "],\n  \"duplicate_groups\": [")
	if err := writeJSONLines(w, groups); err != nil {
		return err
	}
	subs := r.s.Subscriptions()
	for i := range subs {
		s := &subs[i]
		s.EventID, s.Trigger, s.User, s.Reason = r.hide(s.EventID), r.hide(s.Trigger), r.hide(s.User), r.hide(s.Reason)
		for k := range s.Deliveries {
			s.Deliveries[k] = r.hide(s.Deliveries[k])
		}
		for k := range s.Endpoints {
			s.Endpoints[k] = r.hide(s.Endpoints[k])
		}
	}
	fmt.Fprint(w, "],\n  \"duplicate_subscriptions\": [")
	if err := writeJSONLines(w, subs); err != nil {
		return err
	}
	_, err = fmt.Fprint(w, "]\n}\n")
	return err
}

// appendScanned is appendExec over scan's rows.
func (r *report) appendScanned(buf []byte, k int) []byte {
	e, t := r.s.Exec(k), r.s.Triage(k)
	return r.appendExecOf(buf, &e, &t)
}

// appendExecOf appends e's EXEC object: rendered as it is, and again with the secret policy
// applied to its strings when the configured key shows in it.
func (r *report) appendExecOf(buf []byte, e *model.Execution, t *model.Triage) []byte {
	start := len(buf)
	out := appendExecJSON(buf, e, t, nil)
	if r.policy.HasKnown() && r.policy.ContainsKnown(out[start:]) {
		out = appendExecJSON(out[:start], e, t, r.hide)
	}
	return out
}

func writeJSONLines[T any](w io.Writer, items []T) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	return writeArrayLines(w, len(items), func(b []byte, i int) []byte {
		buf.Reset()
		if err := enc.Encode(&items[i]); err != nil {
			return nil
		}
		return append(b, sanitize.JSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))...)
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
	workers := cores.N()
	if workers < 2 || n < 2*block {
		return writeArrayLines(w, n, item)
	}
	// Blocks are made on every core, in the order taken, and written in order as each is
	// ready, so that no core waits for the slowest block of a round or for the writes. At
	// most ahead blocks are made and not yet written.
	nblocks := (n + block - 1) / block
	ahead := 2 * workers
	done := make([]chan []byte, nblocks)
	for k := range done {
		done[k] = make(chan []byte, 1)
	}
	tokens := make(chan struct{}, ahead)
	free := make(chan []byte, ahead)
	stop := make(chan struct{})
	var next atomic.Int64
	var wg sync.WaitGroup
	defer wg.Wait()   // second: the workers have seen stop
	defer close(stop) // first
	for range workers {
		wg.Go(func() {
			for {
				select {
				case tokens <- struct{}{}:
				case <-stop:
					return
				}
				k := int(next.Add(1) - 1)
				if k >= nblocks {
					return
				}
				var b []byte
				select {
				case b = <-free:
				default:
				}
				for i := k * block; i < min((k+1)*block, n); i++ {
					if i == 0 {
						b = append(b, "\n    "...)
					} else {
						b = append(b, ",\n    "...)
					}
					b = item(b, i)
				}
				done[k] <- b
			}
		})
	}
	for k := range nblocks {
		b := <-done[k]
		if _, err := w.Write(b); err != nil {
			return err
		}
		select {
		case free <- b[:0]:
		default:
		}
		<-tokens
	}
	_, err := io.WriteString(w, "\n  ")
	return err
}

// appendStamp appends t.UTC().AppendFormat(b, model.WireTime) without reading the layout: a
// million rows spent a quarter of a CPU second in AppendFormat.
func appendStamp(b []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, model.WireTime)
	}
	h, mi, s := t.Clock()
	ms := t.Nanosecond() / int(time.Millisecond)
	two := func(b []byte, v int) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	b = append(two(b, int(mo)), '-')
	b = append(two(b, d), 'T')
	b = append(two(b, h), ':')
	b = append(two(b, mi), ':')
	b = append(two(b, s), '.')
	return append(b, byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}

// appendExecJSON appends what json.Encoder writes for toExecJSON(e, t), without building it
// (a test holds the two byte for byte).
func appendExecJSON(b []byte, e *model.Execution, t *model.Triage, hide func(string) string) []byte {
	if hide != nil {
		return appendExecJSONHidden(b, e, t, hide)
	}
	b = append(b, `{"id":`...)
	b = appendJSONString(b, e.ID)
	b = append(b, `,"timestamp":"`...)
	if !e.Timestamp.IsZero() {
		b = appendStamp(b, e.Timestamp)
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
	if t.Case != nil {
		q, err := json.Marshal(t.Case)
		if err != nil {
			return nil
		}
		b = append(b, `,"journal":`...)
		b = append(b, sanitize.JSON(q)...)
	}
	return append(b, '}')
}

// appendExecJSONHidden renders toExecJSON(e, t, hide) (the slow path: only rows that show a
// known secret take it).
func appendExecJSONHidden(b []byte, e *model.Execution, t *model.Triage, hide func(string) string) []byte {
	j := toExecJSON(e, t, hide)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(&j); err != nil {
		return nil
	}
	return append(b, sanitize.JSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))...)
}

// appendJSONString quotes s as encoding/json does (HTML-safe): plain ASCII directly, the rest
// through json.Marshal.
func appendJSONString(b []byte, s string) []byte {
	i := 0
	for ; i+8 <= len(s); i += 8 { // eight bytes at a time: a scan writes a million ids
		if mustEscape(swar.Load(s, i)) {
			return appendJSONEscaped(b, s)
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return appendJSONEscaped(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONEscaped is appendJSONString for a string with something to escape.
func appendJSONEscaped(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, sanitize.JSON(q)...)
}

// mustEscape reports whether any of the eight bytes of x is one appendJSONString escapes: a
// control byte, DEL or past ASCII, a quote, a backslash, <, > or &.
func mustEscape(x uint64) bool {
	return swar.Below(x, 0x20)|swar.Has(x, 0x7f)|swar.High(x)|
		swar.Has(x, '"')|swar.Has(x, '\\')|swar.Has(x, '<')|swar.Has(x, '>')|swar.Has(x, '&') != 0
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

// writeJSON writes v indented, with what a terminal must not see escaped (sanitize.JSON).
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v) // what an Encoder with SetIndent("", "  ") indents
	if err != nil {
		return err
	}
	if err := writeIndented(w, b, "  ", sanitize.JSON); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}

// marshalSafe is json.Marshal with what a terminal must not see escaped.
func marshalSafe(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return sanitize.JSON(b), err
}
