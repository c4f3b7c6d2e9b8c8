package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

type verifyJSON struct {
	Source   string              `json:"source"`
	ID       string              `json:"id"`
	ToolSlug string              `json:"tool_slug"`
	State    string              `json:"state"`
	Evidence model.ProviderState `json:"evidence"`
}

// runVerify checks the provider for one execution's effect.
func runVerify(ctx context.Context, env *Env, args []string) int {
	fs, sf := sourceCommand(env, "verify")
	pos, code, done := parse(fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		return usageError(env, "verify", "want exactly one execution ID (exectriage verify ID [--json])")
	}
	a, err := sf.open(ctx, env)
	if err != nil {
		return fail(env, "verify", err)
	}
	defer a.Close()
	if err := a.CheckRead(); err != nil {
		return fail(env, "verify", err)
	}
	e, err := a.Get(ctx, pos[0])
	if err != nil {
		return fail(env, "verify", err)
	}
	a.Learn(ctx, []model.Execution{e})
	st := a.Verify(ctx, &e)
	r := newReport(a, nil)
	st.Reason = r.hide(st.Reason)
	st.ReadArgs = r.policy.JSON(st.ReadArgs, true)
	for i := range st.Matches {
		st.Matches[i].ID, st.Matches[i].Summary = r.hide(st.Matches[i].ID), r.hide(st.Matches[i].Summary)
	}
	out := verifyJSON{Source: r.hide(a.SourceName()), ID: r.hide(e.ID), ToolSlug: r.hide(e.ToolSlug), State: string(st.State), Evidence: st}
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
