package verify

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// ReadToolRunner runs a read-only tool; *client.Client satisfies it (a read may be retried).
type ReadToolRunner interface {
	RunReadTool(ctx context.Context, call model.ToolCall) (model.ToolResult, error)
}

// OnceRunner runs a tool exactly once, with no retry; *client.Client satisfies it. A read tool
// whose kind only its slug vouches for runs this way: were it a write after all, it would at
// least not run two or three times.
type OnceRunner interface {
	RunReadToolOnce(ctx context.Context, call model.ToolCall) (model.ToolResult, error)
}

// Verifier checks the provider for an execution's effect.
type Verifier interface {
	Verify(ctx context.Context, e *model.Execution) model.ProviderState
}

// DefaultSkew is how far before an execution's start a provider object may be dated and still
// count as its effect: provider clocks and Composio's disagree by a little.
const DefaultSkew = 5 * time.Second

// Verifiers maps write tools to the read that finds their effect: the built-in ones and those
// from the config file (which replace a built-in for the same tool). Safe for concurrent use.
type Verifiers struct {
	runner ReadToolRunner
	bySlug map[string]*check
	skew   time.Duration
	now    func() time.Time

	mu    sync.Mutex
	hints map[string]readHint // read tool → what its tags say, learned on first use
}

// readHint is what a read tool's definition says of it.
type readHint struct {
	ok      bool   // may be run
	certain bool   // its tags say read-only (else only its slug does)
	why     string // when !ok
}

// VerifierOption adjusts Verifiers.
type VerifierOption func(*Verifiers)

// WithSkew sets how far before the execution's start an effect may be dated (default 5 s).
func WithSkew(d time.Duration) VerifierOption { return func(v *Verifiers) { v.skew = max(d, 0) } }

// WithClock sets the clock used for ProviderState.CheckedAt (tests).
func WithClock(now func() time.Time) VerifierOption { return func(v *Verifiers) { v.now = now } }

// NewVerifiers returns the built-in verifiers plus extra (from the config file). An invalid
// extra spec does not fail here (config.Load already reports it with its line); verifying its
// tool then answers unknown with the reason.
func NewVerifiers(r ReadToolRunner, extra []VerifierSpec, opts ...VerifierOption) *Verifiers {
	v := &Verifiers{runner: r, bySlug: map[string]*check{}, skew: DefaultSkew, now: time.Now}
	for _, c := range builtinChecks() {
		v.bySlug[c.tool] = c
	}
	for i, s := range extra {
		c, err := s.compile()
		if err != nil {
			c = &check{tool: strings.ToUpper(strings.TrimSpace(s.Tool)), invalid: fmt.Errorf("verifier %d: %w", i+1, err)}
		}
		v.bySlug[c.tool] = c
	}
	for _, o := range opts {
		o(v)
	}
	return v
}

// NoAPI is the provider state of a source without an API behind it (a file export): unknown,
// checked at now, and why.
func NoAPI(now time.Time) model.ProviderState {
	return model.ProviderState{State: model.ProviderUnknown, CheckedAt: now.UTC(),
		Reason: "no API access for a file source: pass --base-url (with COMPOSIO_API_KEY) to check the provider"}
}

// Has reports whether a verifier exists for the write tool slug.
func (v *Verifiers) Has(slug string) bool {
	c, ok := v.bySlug[strings.ToUpper(slug)]
	return ok && c.invalid == nil
}

// ReadTool returns the read tool that verifies slug, "" when none.
func (v *Verifiers) ReadTool(slug string) string {
	if c, ok := v.bySlug[strings.ToUpper(slug)]; ok {
		return c.readTool
	}
	return ""
}

// Tools lists the write tools that have a verifier, sorted.
func (v *Verifiers) Tools() []string {
	out := make([]string, 0, len(v.bySlug))
	for s, c := range v.bySlug {
		if c.invalid == nil {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// Verify runs the read tool mapped to the execution's tool on the same connected account and
// reports found (with every matching object dated at or after the execution's start minus the
// skew, so the members of a duplicate group all show), not_found, or unknown (no verifier,
// arguments not recorded, the read failed or its answer could not be read).
func (v *Verifiers) Verify(ctx context.Context, e *model.Execution) model.ProviderState {
	st := v.verify(ctx, e)
	if c, ok := v.bySlug[strings.ToUpper(strings.TrimSpace(e.ToolSlug))]; ok && c.bestEffort != "" && st.ReadTool != "" {
		st.Reason += " (best-effort: " + c.bestEffort + ")"
	}
	return st
}

func (v *Verifiers) verify(ctx context.Context, e *model.Execution) model.ProviderState {
	st := model.ProviderState{State: model.ProviderUnknown, CheckedAt: v.now().UTC()}
	slug := strings.ToUpper(strings.TrimSpace(e.ToolSlug))
	c, ok := v.bySlug[slug]
	if !ok {
		st.Reason = fmt.Sprintf("no verifier for %s: check manually in %s", e.ToolSlug, toolkitName(e))
		return st
	}
	st.Verifier = c.name
	st.ReadTool = c.readTool
	if c.invalid != nil {
		st.Reason = fmt.Sprintf("the verifier for %s is invalid (%v): check manually in %s", e.ToolSlug, c.invalid, toolkitName(e))
		return st
	}
	if len(bytes.TrimSpace(e.Arguments)) == 0 {
		if !e.Detailed {
			st.Reason = "the execution's arguments are not loaded: open its detail, then verify"
		} else {
			st.Reason = triage.NoStoredData + ": nothing to match the provider against"
		}
		return st
	}
	var args map[string]any
	if err := decodeJSON(e.Arguments, &args); err != nil || args == nil {
		st.Reason = "the execution's arguments are not a JSON object: nothing to match against"
		return st
	}
	ws, err := c.wants(args)
	if err != nil {
		st.Reason = fmt.Sprintf("cannot check %s: %v", e.ToolSlug, err)
		return st
	}
	since := e.Start().Add(-v.skew)
	readArgs, err := c.args(args, since)
	if err != nil {
		st.Reason = fmt.Sprintf("cannot build the %s arguments: %v", c.readTool, err)
		return st
	}
	raw, err := json.Marshal(readArgs)
	if err != nil {
		st.Reason = fmt.Sprintf("cannot encode the %s arguments: %v", c.readTool, err)
		return st
	}
	st.ReadArgs = raw
	if v.runner == nil {
		st.Reason = "no connection to run " + c.readTool + " (offline source): check manually in " + toolkitName(e)
		return st
	}
	if err := ctx.Err(); err != nil {
		st.Reason = "verify cancelled: " + err.Error()
		return st
	}
	hint := v.readHintOf(ctx, c.readTool)
	if !hint.ok {
		st.Reason = hint.why + ": not run; check manually in " + toolkitName(e)
		return st
	}
	call := model.ToolCall{Slug: c.readTool, Arguments: raw, ConnectedAccountID: e.ConnectedAccountID, UserID: e.UserID}
	run := v.runner.RunReadTool
	if once, ok := v.runner.(OnceRunner); ok && !hint.certain {
		run = once.RunReadToolOnce
	}
	res, err := run(ctx, call)
	st.CheckedAt = v.now().UTC()
	failure := ""
	switch {
	case err != nil:
		failure = err.Error()
	case !res.Successful:
		failure = strings.TrimSpace(res.Error)
		failure = cmp.Or(failure, "the tool reported no success")
	}
	if failure != "" {
		if c.gone && notFoundText(failure) {
			// The object the write removed is gone: the write took effect.
			st.State = model.ProviderFound
			id, _ := argText(args, c.goneArg)
			st.Matches = []model.EvidenceItem{{ID: id, Summary: "no longer exists"}}
			st.Reason = fmt.Sprintf(
				"%s is gone (%s answered not found): the %s took effect, do not retry",
				c.describe(args),
				c.readTool,
				strings.ToLower(c.verb()),
			)
			return st
		}
		st.Reason = fmt.Sprintf("%s failed: %s", c.readTool, oneLine(failure, 160))
		return st
	}
	var data any
	if err := decodeJSON(res.Data, &data); err != nil {
		st.Reason = fmt.Sprintf("%s answered something that is not JSON: %v", c.readTool, err)
		return st
	}
	items, where, ok := c.findItems(data)
	if !ok && c.empty {
		if _, isObj := data.(map[string]any); isObj || data == nil {
			items, where, ok = nil, c.lists[0], true
		}
	}
	if !ok {
		st.Reason = fmt.Sprintf("%s answered without a list of items (looked for %s)", c.readTool, strings.Join(c.lists, ", "))
		return st
	}
	what := c.describe(args)
	unknown, missing := 0, ""
	var oldest time.Time // of every item: a full page reaching back past since missed nothing
	for _, it := range items {
		if t, ok := firstPresent(it, c.times); ok {
			if tt, ok := itemTime(t); ok && (oldest.IsZero() || tt.Before(oldest)) {
				oldest = tt
			}
		}
		ev, vd, miss := c.match(ws, it)
		switch vd {
		case itemNoMatch:
			continue
		case itemUnknown:
			unknown++
			missing = miss
			continue
		}
		if !c.single && !c.gone && !ev.Time.IsZero() && ev.Time.Before(since) {
			continue // an older, identical object: not this execution's effect
		}
		st.Matches = append(st.Matches, ev)
	}
	slices.SortStableFunc(st.Matches, func(a, b model.EvidenceItem) int { return a.Time.Compare(b.Time) })
	sinceText := model.When(since)
	switch {
	case (c.gone || c.single) && len(st.Matches) == 0 && unknown > 0:
		st.Reason = fmt.Sprintf("%s answered without %s: check manually in %s", c.readTool, missing, toolkitName(e))
	case c.gone && len(st.Matches) > 0:
		st.State = model.ProviderNotFound
		st.Reason = fmt.Sprintf("%s still exists (%s): the %s did not take effect", what, c.readTool, strings.ToLower(c.verb()))
		st.Matches = nil
	case c.gone:
		st.Reason = fmt.Sprintf("%s answered, but not with %s: check manually in %s", c.readTool, what, toolkitName(e))
	case c.single && len(st.Matches) > 0:
		st.State = model.ProviderFound
		st.Reason = fmt.Sprintf("%s is in the requested state (%s): the change is in place, do not retry", what, c.readTool)
	case c.single:
		st.State = model.ProviderNotFound
		st.Reason = fmt.Sprintf("%s is not in the requested state (%s)", what, c.readTool)
	case len(st.Matches) == 1:
		st.State = model.ProviderFound
		st.Reason = fmt.Sprintf("found %s: %s%s (%s): do not retry", what, st.Matches[0].ID, atTime(st.Matches[0].Time), c.readTool)
	case len(st.Matches) > 1:
		st.State = model.ProviderFound
		ids := make([]string, len(st.Matches))
		for i, m := range st.Matches {
			ids[i] = m.ID
		}
		st.Reason = fmt.Sprintf(
			"found %d× %s since %s: %s (%s): do not retry",
			len(st.Matches),
			what,
			sinceText,
			strings.Join(ids, ", "),
			c.readTool,
		)
	case unknown > 0:
		st.Reason = fmt.Sprintf(
			"%d of %d items %s returned have no %s to compare: check manually in %s",
			unknown,
			len(items),
			c.readTool,
			missing,
			toolkitName(e),
		)
	case c.pageSize > 0 && len(items) >= c.pageSize && (oldest.IsZero() || !oldest.Before(since)):
		st.Reason = fmt.Sprintf(
			"no %s among the %d newest items %s returned, but the page was full: check manually in %s",
			what,
			len(items),
			c.readTool,
			toolkitName(e),
		)
	case c.blind != nil && c.blind(args) != "":
		st.Reason = fmt.Sprintf(
			"no %s among %d items %s returned, but %s: check manually in %s",
			what,
			len(items),
			c.readTool,
			c.blind(args),
			toolkitName(e),
		)
	default:
		st.State = model.ProviderNotFound
		st.Reason = fmt.Sprintf("no %s since %s %s (%s)", what, sinceText, amongAt(len(items), where), c.readTool)
	}
	return st
}

// amongAt says what a search that found nothing read: "among the 3 items at WHERE", "among
// the 1 item …", or "at WHERE, which holds none since then" for none at all.
func amongAt(n int, where string) string {
	switch n {
	case 0:
		return "at " + where + ", which holds none since then"
	case 1:
		return "among the 1 item at " + where
	}
	return fmt.Sprintf("among the %d items at %s", n, where)
}

// notFoundText recognises a read that failed because the object does not exist.
func notFoundText(s string) bool {
	low := strings.ToLower(s)
	return strings.Contains(low, "not found") || strings.Contains(low, "not_found") || triage.HasWord(low, "404") ||
		strings.Contains(low, "does not exist") || strings.Contains(low, "no longer exists")
}

func atTime(t time.Time) string {
	if t.IsZero() {
		return " (time not given)"
	}
	return " at " + model.When(t)
}

func toolkitName(e *model.Execution) string {
	tk := strings.ToLower(e.ToolkitSlug)
	if tk == "" {
		if toks := triage.SlugTokens(e.ToolSlug); len(toks) > 0 {
			tk = strings.ToLower(toks[0])
		}
	}
	switch tk {
	case "gmail":
		return "Gmail"
	case "slack":
		return "Slack"
	case "github":
		return "GitHub"
	case "hubspot":
		return "HubSpot"
	case "notion":
		return "Notion"
	case "linear":
		return "Linear"
	case "googlecalendar":
		return "Google Calendar"
	case "":
		return "the provider"
	}
	return tk
}

func decodeJSON(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return errors.New("empty")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// argValues reads the argument at the first present dotted path as text values: a string
// (a comma-separated one split when split is true), a number, or a list of those.
func argValues(orig map[string]any, split bool, paths ...string) []string {
	for _, p := range paths {
		var out []string
		add := func(v any) {
			switch v.(type) {
			case nil, map[string]any, []any:
				return
			}
			s := strings.TrimSpace(scalarText(v))
			if s == "" {
				return
			}
			if _, isStr := v.(string); isStr && split {
				for part := range strings.SplitSeq(s, ",") {
					if part = strings.TrimSpace(part); part != "" {
						out = append(out, part)
					}
				}
				return
			}
			out = append(out, s)
		}
		v := lookup(orig, p)
		if l, ok := v.([]any); ok {
			for _, x := range l {
				add(x)
			}
		} else {
			add(v)
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// argText is the first value of argValues.
func argText(orig map[string]any, paths ...string) (string, bool) {
	if v := argValues(orig, false, paths...); len(v) > 0 {
		return v[0], true
	}
	return "", false
}

// fromArg is a rule value taken from the original arguments; absent means "not set".
func fromArg(paths ...string) func(map[string]any) ([]string, bool, error) {
	return func(orig map[string]any) ([]string, bool, error) {
		s, ok := argText(orig, paths...)
		return []string{s}, ok, nil
	}
}

// fromList takes every element of a list argument (or a comma-separated string).
func fromList(paths ...string) func(map[string]any) ([]string, bool, error) {
	return func(orig map[string]any) ([]string, bool, error) {
		v := argValues(orig, true, paths...)
		return v, len(v) > 0, nil
	}
}

// requiredArg fails the check when the argument is missing: without it nothing can be matched.
func requiredArg(name string, paths ...string) func(map[string]any) ([]string, bool, error) {
	return func(orig map[string]any) ([]string, bool, error) {
		s, ok := argText(orig, paths...)
		if !ok {
			return nil, false, fmt.Errorf("argument %s not recorded", name)
		}
		return []string{s}, true, nil
	}
}

// readHintOf says whether the read tool may run, from its definition's tags when the runner
// can look them up: destructiveHint, or hints without readOnlyHint, refuse it (its slug's verb
// vouched for it, its definition does not); readOnlyHint makes it certain. Without tags (no
// catalog, no hints, the definition not found) the slug's verb decides and the run is not
// certain. Learned once per tool.
func (v *Verifiers) readHintOf(ctx context.Context, tool string) readHint {
	v.mu.Lock()
	h, ok := v.hints[tool]
	v.mu.Unlock()
	if ok {
		return h
	}
	h = readHint{ok: true}
	if cat, isCat := v.runner.(triage.ToolCatalog); isCat {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		t, err := cat.GetTool(cctx, tool)
		cancel()
		if err == nil {
			var ro, destr bool
			for _, tag := range t.Tags {
				ro = ro || strings.EqualFold(tag, triage.TagReadOnly)
				destr = destr || strings.EqualFold(tag, triage.TagDestructive)
			}
			kind, hinted := triage.KindFromTags(t.Tags)
			switch {
			case destr:
				h = readHint{why: tool + " is tagged destructiveHint: a verifier never runs it"}
			case hinted && kind != model.KindRead:
				h = readHint{
					why: tool + " is not tagged readOnlyHint (its tags: " + strings.Join(t.Tags, ", ") + "): a verifier never runs a write",
				}
			case ro:
				h.certain = true
			}
		} else if ctx.Err() != nil {
			return h // not learned: ask again next time
		}
	}
	v.mu.Lock()
	if v.hints == nil {
		v.hints = map[string]readHint{}
	}
	v.hints[tool] = h
	v.mu.Unlock()
	return h
}
