package doctor

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/exectriage/exectriage/sanitize"
)

// Verdict is the one-word verdict of a finding as the table shows it.
func (f Finding) Verdict() string {
	switch {
	case f.Use == UseNotUsed:
		return "not used"
	case f.Use == UseMCP:
		return "over MCP"
	case f.RetriesWrites == nil:
		return "unknown"
	case *f.RetriesWrites && f.may:
		return "may retry writes"
	case *f.RetriesWrites:
		return "RETRIES WRITES"
	}
	return "ok"
}

// shownVersion is the version column: the exact version, the range, or both, and the
// package.json field that forces it when one does.
func (f Finding) shownVersion() string {
	if f.Via != "" {
		g := f
		g.Via = ""
		return g.shownVersion() + " (" + f.Via + ")"
	}
	switch {
	case f.VersionSource == "import":
		return "undeclared"
	case f.Version != "" && f.Constraint != "" && f.Constraint != "=="+f.Version && f.Constraint != f.Version && f.LockFile != "":
		return f.Constraint + " (locked " + f.Version + ")"
	case f.Version != "":
		return f.Version
	case f.Constraint != "":
		return f.Constraint
	}
	return "any"
}

// withPlace is the reason with the place the code uses the path (a reviewer checks the line):
// "sent at file:line (path)", unless the reason names the place already.
func (f Finding) withPlace() string {
	if f.Evidence == "" || f.Use != UseUsed || f.File == f.Evidence || strings.Contains(f.Reason, f.Evidence) {
		return f.Reason
	}
	return f.Reason + "; sent at " + f.Evidence + " (" + f.CallPath + ")"
}

// WriteJSON writes the report as {"findings": [...], "problems": [...]}: one object per
// finding with file, ecosystem, package, version, constraint, retries_writes (true, false or
// null), reason, and fix and lock_file when they apply.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}

// WriteText writes the report for a person: a table (file, package, version, verdict, fix),
// then why for every finding that is not plainly ok, then the notes, the problems and a
// summary line.
// Everything read from the project passes through sanitize: file contents are not trusted.
// Long cells are cut to fit a terminal unless whole (a file or a pipe keeps every word).
func (r *Report) WriteText(w io.Writer, dir string, whole bool) error {
	ew := &errWriter{w: w}
	cut := func(s string, n int) string {
		if whole {
			return sanitize.String(s)
		}
		return sanitize.Line(s, n)
	}
	switch {
	case len(r.Findings) == 0 && len(r.Notes) == 0:
		ew.printf("no Composio SDK found under %s\n", cut(dir, 200))
	case len(r.Findings) == 0:
		ew.printf("no Composio package declared under %s\n", cut(dir, 200))
	default:
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "FILE\tPACKAGE\tVERSION\tVERDICT\tFIX")
		for _, f := range r.Findings {
			fix := f.Fix
			fix = cmp.Or(fix, "-")
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", cut(f.File, 60), cut(f.Package, 40),
				cut(f.shownVersion(), 40), f.Verdict(), cut(fix, 60))
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("writing report: %w", err)
		}
		first := true
		for _, f := range r.Findings {
			if f.RetriesWrites != nil && !*f.RetriesWrites && f.Use == "" {
				continue
			}
			if first {
				ew.printf("\nwhy:\n")
				first = false
			}
			ew.printf("  %s: %s: %s\n", cut(f.File, 80), cut(f.Package, 40), cut(f.withPlace(), 300))
		}
	}
	if len(r.Notes) > 0 {
		ew.printf("\nnotes (no alarm):\n")
		for _, n := range r.Notes {
			ew.printf("  %s: %s\n", cut(n.Evidence, 80), cut(n.Text, 300))
		}
	}
	if len(r.Problems) > 0 {
		ew.printf("\nnot read:\n")
		for _, p := range r.Problems {
			ew.printf("  %s: %s\n", cut(p.File, 80), cut(p.Error, 200))
		}
	}
	n := 0
	for _, f := range r.Findings {
		if f.RetriesWrites != nil && *f.RetriesWrites {
			n++
		}
	}
	if n > 0 {
		ew.printf(
			"\n%d of %d findings can re-send a timed-out write: Python composio before %s and @composio/core before %s retry "+
				"tools.execute and proxy calls, so one action can happen two or three times.\n",
			n,
			len(r.Findings),
			PythonFixedVersion,
			NPMFixedVersion,
		)
	} else if len(r.Findings) > 0 {
		ew.printf("\nno finding re-sends timed-out writes.\n")
	}
	return ew.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = fmt.Errorf("writing report: %w", err)
	}
	return n, err
}

func (e *errWriter) printf(format string, a ...any) { fmt.Fprintf(e, format, a...) }

// Report is the result of a scan.
type Report struct {
	Findings []Finding `json:"findings"`
	Problems []Problem `json:"problems,omitempty"`
	// Notes are what a reviewer may want to know and is no alarm of doctor's: never counted in
	// RetriesWrites, never in the exit status.
	Notes []Note `json:"notes,omitempty"`
}

// Note is one place in the code worth a look, and why.
type Note struct {
	Evidence string `json:"evidence"`  // file:line
	CallPath string `json:"call_path"` // "other.create" (sdkversion's path), or "session" (sends not followed)
	Call     string `json:"call"`      // the call as written
	Text     string `json:"text"`
}

// RetriesWrites reports whether any finding retries writes.
func (r *Report) RetriesWrites() bool {
	for _, f := range r.Findings {
		if f.RetriesWrites != nil && *f.RetriesWrites {
			return true
		}
	}
	return false
}
