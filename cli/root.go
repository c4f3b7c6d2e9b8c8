// Package cli implements exectriage's command line on cobra: one command per file, each an
// Options struct whose flags are bound once (gh's layout: NewCmdX(env, runF) builds the
// command, xRun(ctx, opts) runs it; a test passes runF to see the parsed options). The shared
// flags a command takes (source, journal, read-only, output) are registered on it by one
// function, and cobra parses the whole command line with that command's flags, so a flag means
// the same before the command's name or after it. main.go only calls Run.
package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

// Exit statuses shared by every command.
const (
	ExitOK        = 0 // done
	ExitFinding   = 1 // the command ran and found something (doctor: an SDK that retries writes) or failed at run time
	ExitUsage     = 2 // bad flags, bad input file, unknown id
	ExitRefused   = 3 // the retry guard refused
	ExitAmbiguous = 4 // the retry was sent and its outcome is unknown
	// ExitInterrupted: Ctrl-C (or SIGTERM) stopped the command, as shells report a SIGINT.
	ExitInterrupted = 130
)

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Now    func() time.Time
}

// OSEnv is the real process environment.
func OSEnv() *Env {
	return &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Now: time.Now}
}

// exitCodes is the one exit-status table, in --help and the README.
const exitCodes = `Exit status:
  0  done
  1  the command ran and found something (doctor: an SDK that retries writes), or failed at run time
  2  bad usage or input: an unknown flag or command, a flag the command does not take (before
     or after its name), a missing or extra argument, an unknown id, an unreadable file, a
     verdict that does not fit, a write in a read-only session
  3  the retry guard refused
  4  the retry was sent and its outcome is unknown (run resolve)
  130  interrupted (Ctrl-C), quietly; a retry in flight still ends 3 or 4 and says so`

// exitError carries a command's exit status through cobra.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// codeErr is nil for ExitOK, else an exitError.
func codeErr(code int) error {
	if code == ExitOK {
		return nil
	}
	return exitError{code}
}

// usageErr is bad usage found before a command runs (its arguments, a flag it does not take):
// Run prints it as one line and exits 2.
type usageErr struct{ cmd, msg string }

func (e usageErr) Error() string { return progName(e.cmd) + ": " + e.msg }

func usagef(cmd, format string, a ...any) error {
	return usageErr{cmd: cmd, msg: fmt.Sprintf(format, a...)}
}

// Run runs exectriage with args (without the program name) and returns the exit status.
func Run(ctx context.Context, env *Env, args []string) int {
	root := NewRootCmd(env)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	var ex exitError
	var ue usageErr
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ex):
		if ctx.Err() != nil && ex.code == ExitFinding { // stopped, not finished: 2, 3 and 4 keep their word
			return ExitInterrupted
		}
		return ex.code
	case errors.As(err, &ue):
		fmt.Fprintln(env.Stderr, sanitize.String(ue.Error()))
		return ExitUsage
	}
	// cobra's own errors: an unknown flag, a bad flag value
	fmt.Fprintf(env.Stderr, "exectriage: %s\n", sanitize.String(err.Error()))
	return ExitUsage
}

// NewRootCmd builds the whole command tree on env: the TUI at the root, one subcommand per
// file, help and completion. Every flag any command takes is known to the root as well (hidden
// where the TUI does not take it), so that cobra can tell a flag's value from a command's name
// wherever the flag stands; the command then parses the whole line with its own flags.
func NewRootCmd(env *Env) *cobra.Command {
	root := NewCmdTUI(env, nil)
	root.Version = versionString()
	root.SetVersionTemplate("{{.Name}} {{.Version}}\n")
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.AddCommand(
		NewCmdScan(env, nil),
		NewCmdList(env, nil),
		NewCmdShow(env, nil),
		NewCmdVerify(env, nil),
		NewCmdRetry(env, nil),
		NewCmdResolve(env, nil),
		NewCmdMark(env, nil),
		NewCmdJournal(env, nil),
		NewCmdBundle(env, nil),
		NewCmdDoctor(env, nil),
		NewCmdInfo(env, nil),
		NewCmdCache(env, nil),
		NewCmdView(env, nil),
		NewCmdExport(env, nil),
		NewCmdSync(env, nil),
		NewCmdWatch(env, nil),
		NewCmdSandbox(env, nil),
		newCmdVersion(env),
		newCmdCompletion(env),
	)
	root.SetHelpCommand(newCmdHelp())
	root.SuggestionsMinimumDistance = 2 // cobra's default, which SuggestionsFor does not apply itself
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		if cmd == root {
			return fmt.Errorf("%w (see 'exectriage --help')", err)
		}
		return fmt.Errorf("%s: %w (see '%s --help')", cmd.Name(), err, cmd.CommandPath())
	})
	for _, c := range root.Commands() {
		c.SilenceErrors, c.SilenceUsage = true, true
	}
	knowEveryFlag(root)
	return root
}

// foreignFlag stands on the root for a flag of some commands that the TUI does not take: it
// tells cobra whether the flag takes a value (so `exectriage --reveal show ID` finds show), and
// the TUI refuses it when it is given without a command.
type foreignFlag struct {
	typ     string
	owners  []string
	changed bool
}

func (f *foreignFlag) String() string   { return "" }
func (f *foreignFlag) Type() string     { return f.typ }
func (f *foreignFlag) Set(string) error { f.changed = true; return nil }

// knowEveryFlag registers on the root, hidden, every subcommand flag the root lacks.
func knowEveryFlag(root *cobra.Command) {
	for _, c := range root.Commands() {
		c.LocalFlags().VisitAll(func(fl *flag.Flag) {
			if fl.Name == "help" {
				return
			}
			if have := root.Flags().Lookup(fl.Name); have != nil {
				if ff, ok := have.Value.(*foreignFlag); ok {
					ff.owners = append(ff.owners, c.Name())
				}
				return
			}
			root.Flags().AddFlag(&flag.Flag{Name: fl.Name, Usage: fl.Usage, NoOptDefVal: fl.NoOptDefVal, Hidden: true,
				Value: &foreignFlag{typ: fl.Value.Type(), owners: []string{c.Name()}}})
		})
	}
}

// refuseForeignFlags refuses, on the root (the TUI), a flag only commands take.
func refuseForeignFlags(root *cobra.Command) error {
	var err error
	root.Flags().VisitAll(func(fl *flag.Flag) {
		if ff, ok := fl.Value.(*foreignFlag); ok && ff.changed && err == nil {
			err = usagef(
				"",
				"unknown flag: --%s: it is a flag of %s, not of the TUI (see 'exectriage --help')",
				fl.Name,
				strings.Join(ff.owners, ", "),
			)
		}
	})
	return err
}

// positional returns an Args check: no empty argument ("show ”"), and between min and max
// arguments (max < 0: no limit), else want(args) as the one-line usage error.
func positional(cmd string, minN, maxN int, want func(args []string) string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		for _, p := range args { // an id, a verdict, a directory: never empty
			if strings.TrimSpace(p) == "" {
				return usagef(cmd, "an empty argument (an execution ID, a verdict or a path cannot be empty)")
			}
		}
		if len(args) < minN || maxN >= 0 && len(args) > maxN {
			return usagef(cmd, "%s", want(args))
		}
		return nil
	}
}

// wantText is a fixed usage message for positional.
func wantText(msg string) func([]string) string { return func([]string) string { return msg } }

// noArgs refuses any positional argument with "unexpected argument".
func noArgs(cmd string) cobra.PositionalArgs {
	return positional(cmd, 0, 0, func(args []string) string {
		return fmt.Sprintf("unexpected argument %q", sanitize.String(args[0]))
	})
}

// newCmdHelp is `exectriage help [COMMAND]`: an unknown topic is a usage error (exit 2) with
// the commands it may have meant, as an unknown command is.
func newCmdHelp() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "help about any command",
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []string
			for _, s := range c.Root().Commands() {
				if s.IsAvailableCommand() {
					names = append(names, s.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			target, rest, err := root.Find(args)
			if err != nil || target == nil || target == root && len(args) > 0 || len(rest) > 0 && len(target.Commands()) > 0 {
				topic := strings.Join(args, " ")
				return usagef("help", "unknown help topic %q%s", topic, didYouMean(root, args[0]))
			}
			return target.Help()
		},
	}
}

// didYouMean is cobra's suggestions for a mistyped command, as a sentence ("" for none).
func didYouMean(root *cobra.Command, typed string) string {
	s := root.SuggestionsFor(typed)
	if len(s) == 0 {
		return " (run 'exectriage help')"
	}
	return "; did you mean " + strings.Join(s, " or ") + "?"
}

// shells are the shells completion writes a script for.
var shells = []string{"bash", "zsh", "fish", "powershell"}

// newCmdCompletion is `exectriage completion SHELL`: an unknown shell is exit 2 with the
// shells it may have meant.
func newCmdCompletion(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:       "completion " + strings.Join(shells, "|"),
		Short:     "a shell completion script (commands, flags, verdicts, filter terms, ids from --file or --demo)",
		Example:   "  source <(exectriage completion bash)\n  exectriage completion zsh > \"${fpath[1]}/_exectriage\"",
		ValidArgs: shells,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("completion", "want one shell: %s", strings.Join(shells, ", "))
			}
			if !slices.Contains(shells, args[0]) {
				return usagef("completion", "unknown shell %q%s", sanitize.String(args[0]), closest(args[0], shells))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			root, w := c.Root(), env.Stdout
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(w, true)
			case "zsh":
				return root.GenZshCompletion(w)
			case "fish":
				return root.GenFishCompletion(w, true)
			default:
				return root.GenPowerShellCompletionWithDesc(w)
			}
		},
	}
}

// closest names the known words within two edits of typed, as a did-you-mean; else the list.
func closest(typed string, known []string) string {
	var near []string
	for _, k := range known {
		if levenshtein(strings.ToLower(typed), k) <= 1 || strings.HasPrefix(k, strings.ToLower(typed)) {
			near = append(near, k)
		}
	}
	if len(near) == 0 || len(typed) == 0 {
		return ": want " + strings.Join(known, ", ")
	}
	sort.Strings(near)
	return "; did you mean " + strings.Join(near, " or ") + "? (want " + strings.Join(known, ", ") + ")"
}

// levenshtein is the edit distance of a and b (short words only).
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func newCmdVersion(env *Env) *cobra.Command {
	return &cobra.Command{
		Use: "version", Short: "the version, commit and Go version", Args: noArgs("version"),
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(env.Stdout, "exectriage", versionString())
			return nil
		},
	}
}

// maxCompletedIDs is how many ids a completion offers, newest first.
const maxCompletedIDs = 200

// maxCompletionFile is the largest export a completion reads (a completion must answer at once).
const maxCompletionFile = 64 << 20

// completeIDs offers execution ids, newest first, with their tool, where reading them is
// cheap: an export file (--file, up to 64 MB) or the embedded demo (--demo). Against the live
// API a completion would list the logs on every tab: it offers nothing there.
func completeIDs(env *Env, cmd *cobra.Command, prefix string) ([]string, cobra.ShellCompDirective) {
	none := cobra.ShellCompDirectiveNoFileComp
	file, _ := cmd.Flags().GetString("file")
	demo, _ := cmd.Flags().GetBool("demo")
	if file == "" && !demo {
		return nil, none
	}
	if file != "" {
		if st, err := os.Stat(file); err != nil || !st.Mode().IsRegular() || st.Size() > maxCompletionFile {
			return nil, none
		}
	}
	ctx := cmd.Context()
	// A completion never writes: read-only, so the demo's anchor is read and never made.
	a, err := app.Open(
		ctx,
		app.Options{File: file, Demo: demo && file == "", Getenv: env.Getenv, Now: env.Now, SinceSet: file != "", ReadOnly: true},
	)
	if err != nil {
		return nil, none
	}
	defer a.Close()
	execs, err := a.LoadAll(ctx)
	if err != nil {
		return nil, none
	}
	slices.SortStableFunc(execs, func(x, y model.Execution) int { return y.Timestamp.Compare(x.Timestamp) })
	var out []string
	for i := 0; i < len(execs) && len(out) < maxCompletedIDs; i++ {
		if strings.HasPrefix(execs[i].ID, prefix) {
			out = append(out, sanitize.String(execs[i].ID)+"\t"+sanitize.String(execs[i].ToolSlug))
		}
	}
	return out, none
}

// idCompletion completes the first argument (or every one, when many) with execution ids.
func idCompletion(env *Env, many bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 && !many {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return completeIDs(env, cmd, toComplete)
	}
}

// Version is the program version of a development build; the build's module version, commit
// and Go version are added from the binary's build information.
const Version = "0.1.0-dev"

// stampedVersion and stampedCommit are set by a release build's linker flags (tools/release:
// -X github.com/exectriage/exectriage/cli.stampedVersion=0.2.0), never at run time.
var stampedVersion, stampedCommit string

// programVersion is the release's version when the build was stamped, else Version.
func programVersion() string { return cmp.Or(stampedVersion, Version) }

// versionString is "0.1.0-dev (module v1.2.3, commit abc1234, go1.26.8)" as far as the build
// says.
func versionString() string {
	v := programVersion()
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	var parts []string
	if m := bi.Main.Version; m != "" && m != "(devel)" {
		parts = append(parts, "module "+m)
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	rev = cmp.Or(stampedCommit, rev)
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "+dirty"
		}
		parts = append(parts, "commit "+rev)
	}
	parts = append(parts, bi.GoVersion)
	return v + " (" + strings.Join(parts, ", ") + ")"
}

// usageError prints a one-line usage problem and returns ExitUsage.
func usageError(env *Env, cmd, format string, a ...any) int {
	fmt.Fprintf(env.Stderr, "%s: %s\n", progName(cmd), fmt.Sprintf(format, a...))
	return ExitUsage
}

// progName is the prefix of a command's messages: "exectriage scan", or "exectriage" alone
// for the TUI (no stray space before the colon).
func progName(cmd string) string {
	if cmd == "" {
		return "exectriage"
	}
	return "exectriage " + cmd
}
