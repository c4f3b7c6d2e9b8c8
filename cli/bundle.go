package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/exectriage/exectriage/bundle"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/exectriage/exectriage/triage"
)

// runBundle writes the Markdown support bundle for one or more executions: each with its
// triage, its duplicate group, the provider's state (checked now for writes, when the source
// has API access) and the journal's history; secrets redacted.
func runBundle(ctx context.Context, env *Env, args []string) int {
	fs := newFlagSet(env, "bundle")
	var sf sourceFlags
	sf.register(fs)
	out := fs.String("out", "", "write the bundle to `FILE` (created with mode 0600) instead of standard output")
	noVerify := fs.Bool("no-verify", false, "do not check the provider (runs no read tools)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) == 0 {
		return usageError(env, "bundle", "want at least one execution ID (exectriage bundle ID... [--out FILE])")
	}
	if sf.json {
		return usageError(env, "bundle", "--json is not available: the bundle is Markdown (use show --json for JSON)")
	}
	s, err := sf.begin(ctx, env)
	if err != nil {
		return fail(env, "bundle", err)
	}
	defer s.src.Close()

	ids := dedupe(pos)
	// lookup may add an execution and re-sort, so indices are read only once all are in
	for _, id := range ids {
		if _, err := s.lookup(ctx, id); err != nil {
			return fail(env, "bundle", err)
		}
	}

	var verifiers *triage.Verifiers
	if c := s.src.Client(); c != nil && !*noVerify {
		verifiers = triage.NewVerifiers(c, s.setup.cfg.Verifiers, triage.WithClock(env.Now))
	}
	hist := openHistory(ctx, env, &sf)
	defer hist.close()

	in := bundle.Input{
		GeneratedAt: env.Now().UTC(),
		Source:      s.src.Name(),
		Version:     Version,
		Redactor:    redact.New(env.Getenv("COMPOSIO_API_KEY")),
		HistoryNote: hist.note,
	}
	for _, id := range ids {
		i := s.pos[id]
		e, t := s.execs[i], s.res.Triage[i]
		it := bundle.Item{Exec: e, Triage: t}
		if t.GroupID != "" {
			if g, ok := s.res.Group(t.GroupID); ok {
				it.Group = &g
			}
		}
		if verifiers != nil && t.Kind.IsWrite() {
			st := verifiers.Verify(ctx, &e)
			it.Provider = &st
		}
		it.History = hist.lines(ctx, env, id)
		in.Items = append(in.Items, it)
	}

	var buf bytes.Buffer
	if err := bundle.Render(&buf, in); err != nil {
		return fail(env, "bundle", err)
	}
	if *out == "" {
		w := bufio.NewWriter(env.Stdout)
		_, err = w.Write(buf.Bytes())
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			return fail(env, "bundle", err)
		}
		return ExitOK
	}
	if err := writeFileAtomic(*out, buf.Bytes()); err != nil {
		return fail(env, "bundle", err)
	}
	fmt.Fprintf(env.Stderr, "exectriage bundle: %d execution(s) written to %s\n", len(in.Items), sanitize.String(*out))
	return ExitOK
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// writeFileAtomic writes data to path through a temporary file in the same directory, so a
// reader never sees half a bundle; the file is private to the user (it holds log content).
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".bundle-*.md")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o600)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// history reads an execution's journal entries for the bundle. A bundle is a read-only
// command: it reads a journal that exists (the flag, EXECTRIAGE_JOURNAL, or the default file)
// and never creates one.
type history struct {
	j    journal.Journal
	note string
}

func openHistory(ctx context.Context, env *Env, sf *sourceFlags) *history {
	dsn, err := journalDSN(env, sf.journal)
	if err != nil {
		return &history{note: "journal not read: " + err.Error()}
	}
	if !journal.IsPostgres(dsn) {
		if _, err := os.Stat(dsn); errors.Is(err, os.ErrNotExist) {
			return &history{note: "no journal found: nothing was confirmed, retried or marked with exectriage on this machine"}
		}
	}
	j, err := journal.Open(ctx, dsn)
	if err != nil {
		return &history{note: "journal not read: " + err.Error()}
	}
	return &history{j: j}
}

func (h *history) close() {
	if h.j != nil {
		h.j.Close()
	}
}

// lines returns the journal's entries for an execution, oldest first; nil without a journal.
func (h *history) lines(ctx context.Context, env *Env, id string) []string {
	if h.j == nil {
		return nil
	}
	type entry struct {
		at   time.Time
		text string
	}
	var entries []entry
	var errs []string
	if cs, err := h.j.Confirmations(ctx, id); err != nil {
		errs = append(errs, err.Error())
	} else {
		for _, c := range cs {
			text := fmt.Sprintf("confirmed failed by %s: %s (outcome %s", c.Who, c.Reason, c.Outcome)
			if c.Provider.State != "" {
				text += ", provider " + string(c.Provider.State)
			}
			entries = append(entries, entry{c.At, text + ")"})
		}
	}
	if as, err := h.j.Attempts(ctx, id); err != nil {
		errs = append(errs, err.Error())
	} else {
		for _, a := range as {
			text := fmt.Sprintf("retry attempt %s by %s: %s", a.ID, a.Who, a.State)
			if a.NewLogID != "" {
				text += ", new log " + a.NewLogID
			}
			if a.Detail != "" {
				text += ": " + a.Detail
			}
			at := a.CreatedAt
			if !a.FinishedAt.IsZero() {
				at = a.FinishedAt
			}
			entries = append(entries, entry{at, text})
		}
	}
	if vs, err := h.j.Verdicts(ctx, id); err != nil {
		errs = append(errs, err.Error())
	} else {
		for _, v := range vs {
			text := fmt.Sprintf("verdict %s by %s", v.Verdict, v.Who)
			if v.Note != "" {
				text += ": " + v.Note
			}
			entries = append(entries, entry{v.At, text})
		}
	}
	sort.SliceStable(entries, func(i, k int) bool { return entries[i].at.Before(entries[k].at) })
	out := make([]string, 0, len(entries)+len(errs))
	for _, e := range entries {
		out = append(out, e.at.UTC().Format(bundle.TimeLayout)+" "+e.text)
	}
	if len(errs) > 0 {
		fmt.Fprintf(env.Stderr, "exectriage bundle: journal partly unreadable: %s\n", sanitize.String(strings.Join(errs, "; ")))
		out = append(out, "journal partly unreadable: "+strings.Join(errs, "; "))
	}
	return out
}
