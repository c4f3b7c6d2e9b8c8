package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

// verifyJSON is verify's answer. The provider's evidence is "provider", a PROVIDER_STATE, as
// in retry's and resolve's answers (docs/json.md).
type verifyJSON struct {
	SchemaVersion int                 `json:"schema_version"`
	Source        string              `json:"source"`
	ID            string              `json:"id"`
	ToolSlug      string              `json:"tool_slug"`
	State         string              `json:"state"`
	Provider      model.ProviderState `json:"provider"`
}

// VerifyOptions are verify's flags and argument.
type VerifyOptions struct {
	Source sourceFlags
	ID     string
}

// NewCmdVerify is `exectriage verify ID`: the provider's state for one execution's effect.
func NewCmdVerify(env *Env, runF func(context.Context, *VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{}
	cmd := &cobra.Command{
		Use:               "verify ID",
		Short:             "check the provider's state for one execution (runs a read tool)",
		Example:           "  exectriage verify log_a-NA1LoG7qec",
		Args:              positional("verify", 1, 1, wantText("want exactly one execution ID (exectriage verify ID [--json])")),
		ValidArgsFunction: idCompletion(env, false),
		RunE: func(c *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "verify", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				return verifyRun(c.Context(), env, opts)
			}))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("verify"))
	registerFlagCompletions(cmd, env)
	return cmd
}

// verifyRun checks the provider for one execution's effect.
func verifyRun(ctx context.Context, env *Env, opts *VerifyOptions) int {
	sf := &opts.Source
	if code, stop := sf.refuseIfNoReads(env, "verify"); stop {
		return code
	}
	a, err := sf.open(ctx, env)
	if err != nil {
		return fail(env, "verify", err)
	}
	defer a.Close()
	if err := a.CheckRead(); err != nil {
		return fail(env, "verify", err)
	}
	// the journal's retries of this execution tell their own effects apart from the original's
	if note := a.ViewJournal(ctx); strings.HasPrefix(note, "journal not read") {
		fmt.Fprintf(env.Stderr, "exectriage: %s\n", sanitize.String(note))
	}
	e, err := a.Get(ctx, opts.ID)
	if err != nil {
		return fail(env, "verify", err)
	}
	a.Learn(ctx, []model.Execution{e})
	st := a.Verify(ctx, &e)
	r := newReport(env, a)
	st.Reason = r.hide(st.Reason)
	st.ReadArgs = r.policy.JSON(st.ReadArgs, true)
	for i := range st.Matches {
		st.Matches[i].ID, st.Matches[i].Summary = r.hide(st.Matches[i].ID), r.hide(st.Matches[i].Summary)
	}
	out := verifyJSON{SchemaVersion: SchemaVersion, Source: r.hide(a.SourceName()), ID: r.hide(e.ID), ToolSlug: r.hide(e.ToolSlug), State: string(st.State), Provider: st}
	w := bufio.NewWriter(env.Stdout)
	if sf.json {
		err = writeJSON(w, out)
	} else {
		r.verifyReport(w, out)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fail(env, "verify", err)
	}
	return ExitOK
}

func (r *report) verifyReport(w io.Writer, v verifyJSON) {
	fmt.Fprintf(w, "source: %s\n", sanitize.String(v.Source))
	fmt.Fprintf(w, "%s  %s  %s\n", sanitize.String(v.ID), sanitize.String(v.ToolSlug), strings.ToUpper(v.State))
	st := v.Provider
	fmt.Fprintf(w, "  %s\n", sanitize.String(st.Reason))
	if st.ReadTool != "" {
		fmt.Fprintf(w, "  checked with %s %s\n", sanitize.String(st.ReadTool), r.line(string(st.ReadArgs), 200))
	}
	for _, m := range st.Matches {
		line := sanitize.String(m.ID)
		if !m.Time.IsZero() {
			line += "  " + stamp(m.Time)
		}
		if m.Summary != "" {
			line += "  " + r.line(m.Summary, 120)
		}
		if n := m.RetryNote(); n != "" {
			line += "  ← " + sanitize.String(n)
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
