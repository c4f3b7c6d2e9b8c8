package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/exectriage/exectriage/internal/safefile"
	"github.com/exectriage/exectriage/journal"
)

// The demo is the same world in every command: its history is generated for an anchor (the
// minute it was first opened), kept in demo-anchor beside the demo's journal, so an id copied
// from `list` names the same execution in `show`, `retry` and the TUI, and the demo journal's
// claims keep guarding it. After DemoMaxAge the demo starts a new world (so its newest
// executions stay recent) and, since the new world's ids name other executions, empties the
// demo's own journal with it; a journal the person named is never touched.

// DemoMaxAge is how long one demo world lasts.
const DemoMaxAge = 24 * time.Hour

// DemoAnchorName is the file, beside the demo journal, that holds the demo's anchor.
const DemoAnchorName = "demo-anchor"

// maxAnchorSize bounds what is read of demo-anchor: it holds one RFC 3339 time.
const maxAnchorSize = 256

// demoAnchor returns the demo's anchor, starting a new world when there is none or it is
// older than DemoMaxAge (or in the future: a clock that went back). A read-only session uses
// the stored anchor when it is current, else the minute now, and writes or resets nothing.
func demoAnchor(o Options) (time.Time, error) {
	now := o.now().UTC()
	dir, own, err := demoDir(o)
	if err != nil {
		return time.Time{}, err
	}
	path := filepath.Join(dir, DemoAnchorName)
	b, err := safefile.Read(path, maxAnchorSize)
	switch {
	case errors.Is(err, safefile.ErrNotRegular) || errors.Is(err, safefile.ErrTooLarge):
		return time.Time{}, Usagef("demo: %v: remove it (it should hold one time)", err)
	case err == nil:
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(b))); err == nil && !t.After(now) && now.Sub(t) < DemoMaxAge {
			return t, nil
		}
	}
	anchor := now.Truncate(time.Minute)
	if o.ReadOnly { // a read-only session writes nothing: a world of its own, and no reset
		return anchor, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return time.Time{}, fmt.Errorf("demo: %w", err)
	}
	if own != "" { // a new world: the old one's claims and verdicts name other executions now
		for _, f := range []string{own, own + "-wal", own + "-shm"} {
			if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return time.Time{}, fmt.Errorf("demo: start a new demo journal: %w", err)
			}
		}
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(anchor.Format(time.RFC3339)+"\n"), 0o600); err != nil {
		return time.Time{}, fmt.Errorf("demo: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return time.Time{}, fmt.Errorf("demo: %w", err)
	}
	return anchor, nil
}

// demoDir is where demo-anchor lives: beside the demo's own journal, whose path is own; own is
// "" when the person named the journal (--journal), which the demo then never resets.
func demoDir(o Options) (dir, own string, err error) {
	o.Demo = true
	dsn, err := JournalDSN(o)
	if err != nil {
		return "", "", err
	}
	if strings.TrimSpace(o.Journal) == "" && !journal.IsPostgres(dsn) && filepath.Base(dsn) == DemoJournalName {
		return filepath.Dir(dsn), dsn, nil
	}
	p, err := journal.DefaultPath(o.getenv)
	if err != nil {
		return "", "", err
	}
	return filepath.Dir(p), "", nil
}
