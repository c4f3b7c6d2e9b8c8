package triage

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/exectriage/exectriage/model"
)

// Step is the next step the guard advises: the advice in words, in which "{1}", "{2}"... stand
// for the commands of Do that carry it out. Each front writes the commands its own way: the CLI
// as command lines (Shell), the TUI as its keys; nothing rewrites the other's words.
type Step struct {
	Say string
	Do  []Command
	// In are the session's flags (--demo, --file F, --profile P...) each command line carries,
	// so that a hint runs against what the person is looking at: set by the app, not the guard.
	In []string
}

// Verbs a Command may have: exectriage's commands.
const (
	VerbVerify  = "verify"
	VerbMark    = "mark"
	VerbShow    = "show"
	VerbJournal = "journal"
	VerbResolve = "resolve"
	VerbRetry   = "retry"
)

// Command is one exectriage command a step runs.
type Command struct {
	Verb string
	// ID is the execution (or, for resolve, the attempt) it is about.
	ID string
	// Verdict is mark's verdict; Note says the verdict wants a note (--note TEXT).
	Verdict model.Verdict
	Note    bool
	// Confirm is retry's confirmation of failure (--confirm-failed --reason TEXT).
	Confirm bool
	// Again says the command repeats one already run (a fresh provider check).
	Again bool
}

// Say is a step of words alone.
func Say(words string) Step { return Step{Say: words} }

// Words writes the step with each command as write gives it.
func (s Step) Words(write func(Command) string) string {
	out := s.Say
	for i, c := range s.Do {
		out = strings.ReplaceAll(out, "{"+strconv.Itoa(i+1)+"}", write(c))
	}
	return out
}

// Shell writes the step with its commands as command lines, in the step's session:
// `exectriage --demo mark ID VERDICT`.
func (s Step) Shell() string { return s.Words(func(c Command) string { return c.ShellIn(s.In) }) }

// String is Shell.
func (s Step) String() string { return s.Shell() }

// IsZero reports whether there is no step.
func (s Step) IsZero() bool { return s.Say == "" && len(s.Do) == 0 }

// MarshalJSON writes the step as its command lines (the "next" of --json answers).
func (s Step) MarshalJSON() ([]byte, error) { return json.Marshal(s.Shell()) }

// UnmarshalJSON reads a step written by MarshalJSON, as words.
func (s *Step) UnmarshalJSON(b []byte) error {
	var words string
	if err := json.Unmarshal(b, &words); err != nil {
		return err
	}
	*s = Say(words)
	return nil
}

// Shell is the command as a command line, quoted in backticks.
func (c Command) Shell() string { return c.ShellIn(nil) }

// ShellIn is the command as a command line with the session's flags, quoted in backticks.
func (c Command) ShellIn(in []string) string {
	line := CommandLine(in, c.Verb, c.ID)
	switch {
	case c.Verb == VerbMark:
		line += " " + string(c.Verdict)
		if c.Note {
			line += " --note TEXT"
		}
	case c.Verb == VerbRetry && c.Confirm:
		line += " --confirm-failed --reason TEXT"
	}
	if c.Again {
		return "a fresh `" + line + "`"
	}
	return "`" + line + "`"
}

// CommandLine writes an exectriage command line: the session's flags (in), then the verb and
// its arguments, each quoted for a POSIX shell when it needs to be.
func CommandLine(in []string, verb string, args ...string) string {
	var b strings.Builder
	b.WriteString("exectriage")
	for _, w := range in {
		b.WriteString(" ")
		b.WriteString(shellWord(w))
	}
	b.WriteString(" ")
	b.WriteString(verb)
	for _, w := range args {
		b.WriteString(" ")
		b.WriteString(shellWord(w))
	}
	return b.String()
}

// shellWord quotes w for a POSIX shell unless it is made of safe characters only.
func shellWord(w string) string {
	if w == "" {
		return "''"
	}
	safe := true
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
