package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/exectriage/exectriage/bundle"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/triage"
)

// Support bundles: what goes into one, and writing it.

// BundleInput is a bundle's input for these items: the source, the version, the policy's
// redactor and, with a journal, each item's history.
func (a *App) BundleInput(ctx context.Context, j *Journal, note string, items []bundle.Item) (bundle.Input, error) {
	in := bundle.Input{Items: items, GeneratedAt: a.Now().UTC(), Source: a.SourceName(), Version: a.o.Version,
		Redactor: a.policy.Redactor(), HistoryNote: note, Command: func(verb string, args ...string) string {
			return triage.CommandLine(a.SessionArgs(), verb, args...)
		}}
	// each item's tool-router session, as a timeline (the API's list entries carry no session
	// id: its server finds them); a session that cannot be read says so in its item
	type found struct {
		execs []model.Execution
		note  string
	}
	sessions := map[string]found{}
	for i := range in.Items {
		sid := in.Items[i].Exec.SessionID
		if sid == "" {
			continue
		}
		if _, ok := sessions[sid]; !ok {
			execs, err := a.FindSessions(ctx, []string{sid})
			f := found{execs: execs}
			if err != nil {
				f.note = err.Error()
			}
			sessions[sid] = f
		}
		in.Items[i].Session, in.Items[i].SessionNote = sessions[sid].execs, sessions[sid].note
	}
	if j == nil {
		in.NoJournal = true
		return in, nil
	}
	var errs []string
	for i := range in.Items {
		en, err := j.Entries(ctx, in.Items[i].Exec.ID)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		var lines []string
		for _, h := range phrase.History(en.Confirmations, en.Attempts, en.Verdicts, a.Hint, a.Now()) {
			lines = append(lines, h.Time.UTC().Format(bundle.TimeLayout)+" "+h.Text)
		}
		in.Items[i].History = lines
	}
	if len(errs) > 0 {
		return in, fmt.Errorf("journal partly unreadable: %s", strings.Join(errs, "; "))
	}
	return in, nil
}

// WriteBundle renders a bundle of items with the session's journal history and writes it,
// mode 0600, to the bundle directory; it returns the path and the text.
func (a *App) WriteBundle(ctx context.Context, items []bundle.Item) (string, string, error) {
	if len(items) == 0 {
		return "", "", fmt.Errorf("nothing to bundle")
	}
	in, err := a.BundleInput(ctx, a.j, "", items)
	if err != nil {
		in.HistoryNote = err.Error()
	}
	text, err := RenderBundle(in)
	if err != nil {
		return "", "", err
	}
	ids := make([]string, len(items))
	for i := range items {
		ids[i] = items[i].Exec.ID
	}
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	path, err := a.writeOut(bundleName(ids)+"-"+a.Now().UTC().Format("20060102T150405Z")+"-*.md", text)
	if err != nil {
		return "", "", err
	}
	return path, string(text), nil
}

// RenderBundle renders a support bundle (secrets redacted, controls escaped).
func RenderBundle(in bundle.Input) ([]byte, error) {
	var buf bytes.Buffer
	if err := bundle.Render(&buf, in); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// bundleName names a bundle for ids.
func bundleName(ids []string) string {
	name := "exectriage-bundle"
	if len(ids) > 0 {
		name += "-" + safeName(ids[0])
	}
	if len(ids) > 1 {
		name += fmt.Sprintf("-and-%d", len(ids)-1)
	}
	return name
}

// writeOut writes a file of the TUI's (a bundle, a copy fallback), private to the user, and
// returns its path: in the bundle directory when one is set, else in a directory of this
// session's own (os.MkdirTemp, 0700) in the system's temp directory. The file is made by
// os.CreateTemp (O_EXCL, 0600, a random part in its name, pattern's *), so neither a file nor
// a symlink planted under a guessable name in a shared directory is followed or overwritten.
func (a *App) writeOut(pattern string, data []byte) (string, error) {
	dir := a.bundleDir
	if dir == "" {
		a.mu.Lock()
		if a.outDir == "" {
			d, err := os.MkdirTemp("", "exectriage-")
			if err != nil {
				a.mu.Unlock()
				return "", fmt.Errorf("a private directory for the file: %w", err)
			}
			a.outDir = d
		}
		dir = a.outDir
		a.mu.Unlock()
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", fmt.Errorf("writing in %s: %w", dir, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}
