package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sdkversion"
	"github.com/exectriage/exectriage/triage"
)

// scanMemoryLimit is scan's soft memory limit (GOMEMLIMIT overrides it).
const scanMemoryLimit = 850 << 20

// ScanOptions are scan's flags.
type ScanOptions struct {
	Source sourceFlags
}

// NewCmdScan is `exectriage scan`: flagged writes and duplicate groups, as a report.
func NewCmdScan(env *Env, runF func(context.Context, *ScanOptions) error) *cobra.Command {
	opts := &ScanOptions{}
	cmd := &cobra.Command{
		Use:   "scan",
		Short: "ambiguous writes and duplicate groups, as a report",
		Example: "  exectriage scan --since 24h\n  exectriage scan --file export.jsonl --json | jq '.duplicate_groups[] | .pattern'\n  " +
			"exectriage scan --demo --jq '.summary.flagged'",
		Args: noArgs("scan"),
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "scan", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				return scanRun(c.Context(), env, opts)
			}))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("scan"))
	registerFlagCompletions(cmd, env)
	return cmd
}

// scanRun reports flagged writes and duplicate groups.
func scanRun(ctx context.Context, env *Env, opts *ScanOptions) int {
	sf := &opts.Source
	sf.lean = true
	defer leanGC(env)()
	a, sc, err := sf.scan(ctx, env)
	if err != nil {
		return fail(env, "scan", err)
	}
	defer a.Close()
	r := newScanReport(env, a, sc)
	r.indexFirstMembers()
	w := bufio.NewWriterSize(env.Stdout, 64<<10)
	if sf.json {
		err = r.writeScanJSON(w)
	} else {
		r.scanReport(w, env.Now())
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fail(env, "scan", err)
	}
	return ExitOK
}

// leanGC tunes the collector for a command that streams a window into rows (scan, list of an
// export), unless GOGC or GOMEMLIMIT say otherwise; the returned func restores it.
func leanGC(env *Env) (restore func()) {
	percent, limit := -2, int64(-1)
	if env.Getenv("GOGC") == "" {
		// a row is about 140 bytes per execution: collecting at 75% growth instead of 100%
		// keeps the peak lower at no measurable cost.
		percent = debug.SetGCPercent(75)
	}
	if env.Getenv("GOMEMLIMIT") == "" {
		// Past a few million executions the rows are most of the heap, and 75% growth on top
		// of them is hundreds of megabytes: a soft limit makes the collector run more often
		// there instead (5M executions stay within 1 GB). It is soft: a window whose rows
		// alone pass it still completes, collected more often.
		limit = debug.SetMemoryLimit(scanMemoryLimit)
	}
	return func() {
		if percent != -2 {
			debug.SetGCPercent(percent)
		}
		if limit >= 0 {
			debug.SetMemoryLimit(limit)
		}
	}
}

func (r *report) scanReport(w io.Writer, now time.Time) {
	r.header(w, now)
	sum := r.summary()
	var parts []string
	for _, o := range outcomeOrder {
		if n := sum.ByOutcome[string(o)]; n > 0 || o != model.OutcomeWaiting { // only sessions with approvals have it
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
		}
	}
	fmt.Fprintf(w, "outcome  %s\n", strings.Join(parts, " · "))
	parts = parts[:0]
	for _, k := range kindOrder {
		parts = append(parts, fmt.Sprintf("%s %d", k, sum.ByKind[string(k)]))
	}
	fmt.Fprintf(w, "kind     %s\n", strings.Join(parts, " · "))

	fmt.Fprintf(w, "\nflagged writes: %d", sum.Flagged)
	if sum.Settled > 0 {
		fmt.Fprintf(w, " (and %d settled in the journal)", sum.Settled)
	}
	fmt.Fprintln(w)
	for i := range r.s.Len() {
		t := r.s.Triage(i)
		if !t.Flagged {
			continue
		}
		ex := r.s.Exec(i)
		e := &ex
		fmt.Fprintf(w, "  %s  %s  %s  %s  %s\n", stamp(e.Timestamp), r.line(e.ID, 40), r.line(e.ToolSlug, 48),
			r.line(who(e), 60), strings.ToUpper(string(t.Outcome)))
		fmt.Fprintf(w, "      %s\n", r.line(t.Reason, 160))
		if g := t.GroupID; g != "" {
			fmt.Fprintf(w, "      duplicate group %s\n", r.line(g, 40))
		}
	}

	fmt.Fprintf(w, "\nduplicate groups: %d\n", len(r.s.Groups))
	for i := range r.s.Groups {
		g := &r.s.Groups[i]
		fmt.Fprintf(w, "  %s  %s  %s  %d executions\n", r.line(g.ID, 40), g.Pattern, r.line(r.groupTool(g), 48), len(g.ExecutionIDs))
		ids := make([]string, len(g.ExecutionIDs))
		for k, id := range g.ExecutionIDs {
			ids[k] = r.line(id, 40)
		}
		fmt.Fprintf(w, "      %s\n", strings.Join(ids, " → "))
		if g.Reason != "" {
			fmt.Fprintf(w, "      %s\n", r.line(g.Reason, 160))
		}
	}

	if subs := r.s.Subscriptions(); len(subs) > 0 {
		fmt.Fprintf(w, "\nduplicate subscriptions: %d events delivered to two webhook endpoints or more\n", len(subs))
		for _, s := range subs {
			fmt.Fprintf(w, "  %s  event %s  %s\n", stamp(s.At), r.line(s.EventID, 48), r.line(strings.Join(s.Deliveries, " + "), 120))
			fmt.Fprintf(w, "      %s\n", r.line(s.Reason, 240))
		}
	}

	old := map[string]int{}
	var notes []string
	for i := range r.s.Len() {
		if n := r.s.Triage(i).OldSDK; n != "" {
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
		fmt.Fprintf(
			w,
			"\nold SDKs: %d executions came from an SDK that re-sends writes on their call path (upgrade: tools.execute Python composio "+
				">= %s, @composio/core >= %s; sessions Python >= %s, TypeScript >= %s)\n",
			total,
			triage.PythonSDKFixedIn,
			triage.TypeScriptSDKFixedIn,
			sdkversion.PythonSessionFixedIn,
			sdkversion.TypeScriptSessionFixedIn,
		)
		for _, n := range notes {
			fmt.Fprintf(w, "  %s (%d)\n", r.line(n, 120), old[n])
		}
	}
}
