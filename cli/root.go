// Package cli implements exectriage's command line: it parses flags, opens the source
// (live API, embedded demo sandbox or an export file) and runs one command. main.go only calls
// Run; every command lives in its own file here and writes to the Env it is given.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"
)

// Exit statuses shared by every command.
const (
	ExitOK        = 0 // done
	ExitFinding   = 1 // the command ran and found something (doctor: an SDK that retries writes) or failed at run time
	ExitUsage     = 2 // bad flags, bad input file, unknown id
	ExitRefused   = 3 // the retry guard refused
	ExitAmbiguous = 4 // the retry was sent and its outcome is unknown
)

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Now    func() time.Time

	// define, when set, makes every command register its flags, hand them over and return
	// (definedFlags: the cobra tree is built from the commands' own definitions).
	define func(*flag.FlagSet)
}

// OSEnv is the real process environment.
func OSEnv() *Env {
	return &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Now: time.Now}
}

type command struct {
	name    string
	args    string
	summary string
	example string
	run     func(ctx context.Context, env *Env, args []string) int
	// complete completes the positional arguments after the first (nil: none offered).
	complete func(args []string, toComplete string) ([]string, cobra.ShellCompDirective)
	// idArgs: the arguments are execution ids (completed where it is cheap: --file, --demo).
	idArgs bool
}

// maxCompletedIDs is how many ids a completion offers, newest first.
const maxCompletedIDs = 200

// maxCompletionFile is the largest export a completion reads (a completion must answer at once).
const maxCompletionFile = 64 << 20

// completeIDs offers execution ids, newest first, with their tool, where reading them is
// cheap: an export file (--file, up to 64 MB) or the embedded demo (--demo). Against the live
// API a completion would list the logs on every tab: it offers nothing there.
func completeIDs(ctx context.Context, env *Env, cmd *cobra.Command, prefix string) ([]string, cobra.ShellCompDirective) {
	none := cobra.ShellCompDirectiveNoFileComp
	file, _ := cmd.Flags().GetString("file")
	demo, _ := cmd.Flags().GetBool("demo")
	if file == "" && !demo {
		return nil, none
	}
	if file != "" {
		if st, err := os.Stat(file); err != nil || st.Size() > maxCompletionFile {
			return nil, none
		}
	}
	a, err := app.Open(ctx, app.Options{File: file, Demo: demo && file == "", Getenv: env.Getenv, Now: env.Now, SinceSet: file != ""})
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

func commands() []command {
	return []command{
		{name: "scan", args: "", summary: "ambiguous writes and duplicate groups, as a report", run: runScan,
			example: "  exectriage scan --since 24h\n  exectriage scan --file export.jsonl --json | jq '.duplicate_groups[] | .pattern'"},
		{name: "list", args: "[QUERY...]", summary: "executions newest first, one line each", run: runList,
			example: "  exectriage list --filter 'gmsend flagged:yes'\n  exectriage list --filter pattern:agent_retry --json"},
		{name: "show", args: "ID", idArgs: true, summary: "one execution with its triage (secrets redacted unless --reveal)", run: runShow,
			example: "  exectriage show log_a-NA1LoG7qec\n  exectriage show log_a-NA1LoG7qec --json"},
		{name: "verify", args: "ID", idArgs: true, summary: "check the provider's state for one execution (runs a read tool)", run: runVerify,
			example: "  exectriage verify log_a-NA1LoG7qec"},
		{name: "retry", args: "ID --confirm-failed --reason TEXT", idArgs: true, summary: "the guarded retry: one send, never a duplicate", run: runRetry,
			example: "  exectriage retry log_a-NA1LoG7qec --confirm-failed --reason 'customer saw no email; provider shows none'"},
		{name: "resolve", args: "ID", summary: "settle an indeterminate retry from the logs and the provider", run: runResolve,
			example: "  exectriage resolve 58d9c377-02a2-4e36-bbf0-e7a96fec6de9\n  exectriage resolve 58d9c377-02a2-4e36-bbf0-e7a96fec6de9 --as failed --reason 'bounce seen'"},
		{name: "mark", args: "ID VERDICT", summary: "record a verdict: " + strings.Join(verdictNames(), ", "), run: runMark, complete: completeMark,
			example: "  exectriage mark log_a-NA1LoG7qec confirmed_succeeded --note 'the customer found it in spam'"},
		{name: "journal", args: "", summary: "the audit trail of confirmations, retries and verdicts", run: runJournal,
			example: "  exectriage journal\n  exectriage journal --demo --json"},
		{name: "bundle", args: "ID...", idArgs: true, summary: "a Markdown support bundle, secrets redacted", run: runBundle,
			example: "  exectriage bundle log_a-NA1LoG7qec --out ticket-1234.md"},
		{name: "doctor", args: "[DIR]", summary: "find Composio SDK versions that still auto-retry writes", run: runDoctor,
			example: "  exectriage doctor .\n  exectriage doctor --api --last 500"},
		{name: "info", args: "", summary: "where exectriage keeps things and what it would use (never the API key)", run: runInfo,
			example: "  exectriage info\n  exectriage info --json"},
		{name: "sandbox", args: "", summary: "serve the Composio-compatible sandbox", run: runSandbox,
			example: "  exectriage sandbox --addr 127.0.0.1:8787 --fault GMAIL_SEND_EMAIL:timeout_after_commit"},
	}
}

func verdictNames() []string {
	out := make([]string, len(model.Verdicts()))
	for i, v := range model.Verdicts() {
		out[i] = string(v)
	}
	return out
}

// completeMark offers the verdicts as mark's second argument.
func completeMark(args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 1 {
		return verdictNames(), cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// exitCodes is the one exit-status table, in --help and the README.
const exitCodes = `Exit status:
  0  done
  1  the command ran and found something (doctor: an SDK that retries writes), or failed at run time
  2  bad usage or input: an unknown flag or command, a missing or extra argument, an unknown id,
     an unreadable file, a verdict that does not fit
  3  the retry guard refused
  4  the retry was sent and its outcome is unknown (run resolve)`

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

// Run runs exectriage with args (without the program name) and returns the exit status. The
// commands, their flags, help, completions and man pages come from one cobra definition
// (newRoot); each command parses its own arguments again from the same flag definitions.
func Run(ctx context.Context, env *Env, args []string) int {
	root := newRoot(ctx, env, args)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	var ex exitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ex):
		return ex.code
	}
	// cobra's own errors: an unknown command or flag, a bad flag value
	msg := err.Error()
	if strings.HasPrefix(msg, "unknown command ") {
		if i := strings.Index(msg, " for \""); i > 0 {
			msg = msg[:i]
		}
		msg += " (run 'exectriage help')"
	}
	fmt.Fprintf(env.Stderr, "exectriage: %s\n", msg)
	return ExitUsage
}

// newRoot builds the command tree. raw is the whole argument list: a command runs with the
// arguments after its name, parsed by its own flag set (the one registered with cobra here).
func newRoot(ctx context.Context, env *Env, raw []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "exectriage",
		Short: "triage Composio tool executions: ambiguous writes, duplicates, a guarded retry",
		Long: "exectriage lists Composio tool executions, flags writes whose outcome is ambiguous, groups\n" +
			"duplicates and names their cause, checks the provider's real state and offers a retry that\n" +
			"can never cause a duplicate. Without a command it opens the TUI.\n\n" +
			"Source: --file, --base-url, --demo; else the live API when COMPOSIO_API_KEY (or a Composio\n" +
			"CLI login) is set, else the embedded demo.\n\n" + exitCodes,
		Version:       versionString(),
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(*cobra.Command, []string) error {
			return codeErr(runTUI(ctx, env, raw))
		},
	}
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetVersionTemplate("{{.Name}} {{.Version}}\n")
	root.Flags().AddFlagSet(definedFlags(ctx, env, runTUI))
	for _, c := range commands() {
		cmd := &cobra.Command{
			Use:           strings.TrimSpace(c.name + " " + c.args),
			Short:         c.summary,
			Example:       c.example,
			Args:          cobra.ArbitraryArgs, // each command says what it wants, in its own words
			SilenceErrors: true,
			SilenceUsage:  true,
			RunE: func(*cobra.Command, []string) error {
				return codeErr(c.run(ctx, env, argsAfter(raw, c.name)))
			},
		}
		switch {
		case c.complete != nil:
			cmd.ValidArgsFunction = func(cc *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				if len(args) == 0 {
					return completeIDs(ctx, env, cc, toComplete)
				}
				return c.complete(args, toComplete)
			}
		case c.idArgs:
			cmd.ValidArgsFunction = func(cc *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				if len(args) > 0 && c.name != "bundle" {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return completeIDs(ctx, env, cc, toComplete)
			}
		}
		cmd.Flags().AddFlagSet(definedFlags(ctx, env, c.run))
		registerFlagCompletions(cmd)
		root.AddCommand(cmd)
	}
	root.AddCommand(&cobra.Command{
		Use: "version", Short: "the version, commit and Go version", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(env.Stdout, "exectriage", versionString())
			return nil
		},
	})
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		if cmd == root {
			return fmt.Errorf("%w (see 'exectriage --help')", err)
		}
		return fmt.Errorf("%s: %w (see '%s --help')", cmd.Name(), err, cmd.CommandPath())
	})
	return root
}

// argsAfter is raw without the command's name (the first argument naming it).
func argsAfter(raw []string, name string) []string {
	for i, a := range raw {
		if a == name {
			return raw[i+1:]
		}
	}
	return nil
}

// definedFlags runs a command in definition mode: it registers its flags and returns at its
// parse, without doing anything, handing its flag set over.
func definedFlags(ctx context.Context, env *Env, run func(context.Context, *Env, []string) int) *flag.FlagSet {
	var got *flag.FlagSet
	def := *env
	def.define = func(fs *flag.FlagSet) { got = fs }
	run(ctx, &def, nil)
	if got == nil {
		return flag.NewFlagSet("none", flag.ContinueOnError)
	}
	return got
}

// registerFlagCompletions completes the values of the flags whose values are a fixed set.
func registerFlagCompletions(cmd *cobra.Command) {
	if cmd.Flags().Lookup("filter") != nil {
		_ = cmd.RegisterFlagCompletionFunc("filter", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var out []string
			for _, f := range filter.FieldNames() {
				out = append(out, f+":")
			}
			for _, p := range model.Patterns() {
				out = append(out, "pattern:"+string(p))
			}
			return append(out, "flagged:yes", "outcome:ambiguous", "kind:write"), cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
		})
	}
	if cmd.Flags().Lookup("as") != nil {
		_ = cmd.RegisterFlagCompletionFunc("as", cobra.FixedCompletions([]string{"succeeded", "failed"}, cobra.ShellCompDirectiveNoFileComp))
	}
}

// Version is the program version; the build's module version, commit and Go version are
// added from the binary's build information.
const Version = "0.1.0-dev"

// versionString is "0.1.0-dev (module v1.2.3, commit abc1234, go1.26.8)" as far as the build
// says.
func versionString() string {
	v := Version
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

// parseFlags parses flags that may appear before, between or after positional arguments
// ("show ID --json"), and returns the positionals. Errors are printed by the FlagSet.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// sourceCommand returns a subcommand's flag set with the source flags registered.
func sourceCommand(env *Env, name string) (*flagSet, *sourceFlags) {
	fs := newFlagSet(env, name)
	sf := &sourceFlags{}
	sf.register(fs.FlagSet, commandFlags(name))
	return fs, sf
}

// flagSet is a command's flags with what parse needs: where errors go, and the definition
// hook (definedFlags).
type flagSet struct {
	*flag.FlagSet
	env    *Env
	define func(*flag.FlagSet)
}

// parse parses a subcommand's arguments; done says the command ends now with code (a bad
// flag, or -h).
func parse(fs *flagSet, args []string) (pos []string, code int, done bool) {
	if d := fs.define; d != nil { // definition mode (definedFlags): hand the flags over, do nothing
		d(fs.FlagSet)
		return nil, ExitOK, true
	}
	pos, err := parseFlags(fs.FlagSet, args)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(fs.env.Stderr, "%s: %s (see '%s --help')\n", fs.Name(), err, fs.Name())
		}
		return nil, flagExit(err), true
	}
	for _, p := range pos { // an id, a verdict, a directory: never empty ("show ''")
		if strings.TrimSpace(p) == "" {
			fmt.Fprintf(fs.env.Stderr, "%s: an empty argument (an execution ID, a verdict or a path cannot be empty)\n", fs.Name())
			return nil, ExitUsage, true
		}
	}
	return pos, ExitOK, false
}

// newFlagSet returns a command's flag set: errors come back to parse, which prints them in one
// line (never the whole flag list); help is cobra's.
func newFlagSet(env *Env, name string) *flagSet {
	fs := flag.NewFlagSet(progName(name), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, env: env, define: env.define}
}

// usageError prints a one-line usage problem and returns ExitUsage.
func usageError(env *Env, cmd, format string, a ...any) int {
	fmt.Fprintf(env.Stderr, "%s: %s\n", progName(cmd), fmt.Sprintf(format, a...))
	return ExitUsage
}

// flagExit maps a flag parse error to an exit status (-h is not an error).
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
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
