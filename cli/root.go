// Package cli implements exectriage's command line: it parses flags, opens the source
// (live API, embedded demo sandbox or an export file) and runs one command. main.go only calls
// Run; every command lives in its own file here and writes to the Env it is given.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
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
}

// OSEnv is the real process environment.
func OSEnv() *Env {
	return &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Now: time.Now}
}

type command struct {
	name    string
	args    string
	summary string
	run     func(ctx context.Context, env *Env, args []string) int
}

func commands() []command {
	return []command{
		{"scan", "[--since 24h] [--json]", "ambiguous writes and duplicate groups, as a report", runScan},
		{"list", "[--filter QUERY] [--json]", "executions newest first, one line each", runList},
		{"show", "ID [--json] [--reveal]", "one execution with its triage (secrets redacted unless --reveal)", runShow},
		{"verify", "ID [--json]", "check provider state for one execution", runVerify},
		{"retry", "ID --confirm-failed --reason TEXT", "the guarded retry: one send, never a duplicate", runRetry},
		{"resolve", "ID", "settle an indeterminate retry from the logs and the provider", runResolve},
		{"mark", "ID VERDICT [--note TEXT]", "record a verdict: confirmed_failed, confirmed_succeeded, duplicate, ignored", runMark},
		{"journal", "[--json]", "the audit trail of confirmations, retries and verdicts", runJournal},
		{"bundle", "ID... [--out FILE]", "a Markdown support bundle, secrets redacted", runBundle},
		{"doctor", "[DIR]", "find Composio SDK versions that still auto-retry writes", runDoctor},
		{"sandbox", "[--addr 127.0.0.1:8787] [--seed N] [--size N] [--fault TOOL:MODE[:N]]", "serve the Composio-compatible sandbox", runSandbox},
	}
}

// Run runs exectriage with args (without the program name) and returns the exit status.
func Run(ctx context.Context, env *Env, args []string) int {
	if len(args) > 0 {
		switch a := args[0]; {
		case a == "help" || a == "-h" || a == "--help" || a == "-help":
			usage(env.Stdout)
			return ExitOK
		case a == "version" || a == "--version":
			fmt.Fprintln(env.Stdout, "exectriage", Version)
			return ExitOK
		case !strings.HasPrefix(a, "-"):
			for _, c := range commands() {
				if c.name == a {
					return c.run(ctx, env, args[1:])
				}
			}
			fmt.Fprintf(env.Stderr, "exectriage: unknown command %q (run 'exectriage help')\n", a)
			return ExitUsage
		}
	}
	return runTUI(ctx, env, args)
}

// Version is the program version shown by `exectriage version`.
const Version = "0.1.0-dev"

func usage(w io.Writer) {
	fmt.Fprintln(w, "exectriage: triage Composio tool executions (ambiguous writes, duplicates, guarded retry)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage:")
	fmt.Fprintln(w, "  exectriage [--demo | --file F | --base-url URL] [--since D] [--journal PATH|postgres://...]   the TUI")
	for _, c := range commands() {
		fmt.Fprintf(w, "  exectriage %-8s %-45s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "source: the live API when COMPOSIO_API_KEY is set (COMPOSIO_BASE_URL to override), else the embedded demo.")
	fmt.Fprintln(w, "exit status: 0 ok, 1 finding/run-time failure, 2 bad usage or input, 3 retry refused, 4 retry ambiguous.")
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
func sourceCommand(env *Env, name string) (*flag.FlagSet, *sourceFlags) {
	fs := newFlagSet(env, name)
	sf := &sourceFlags{}
	sf.register(fs)
	return fs, sf
}

// parse parses a subcommand's arguments; done says the command ends now with code (a bad
// flag, or -h).
func parse(fs *flag.FlagSet, args []string) (pos []string, code int, done bool) {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, flagExit(err), true
	}
	return pos, ExitOK, false
}

// newFlagSet returns a FlagSet that reports errors to env.Stderr instead of exiting.
func newFlagSet(env *Env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("exectriage "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return fs
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
