package triage

import (
	"strings"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sdkversion"
)

// An SDK's language is a fact of the installation that sends, not of each execution: the Logs
// API lists entries without their source, so a write whose old-SDK note depends on the
// language (NoteNeedsLanguage) would need its own detail to be named. One detail per
// installation settles it for all of its executions: InstallationOf says which executions are one
// installation (one user, or without a user one connected account, on one SDK version), and
// Languages names a list entry's language from the first record of its installation that
// carries one (the note says it was read from the installation's executions). Two records of
// one installation that name different languages prove the key is not one installation there:
// its list entries keep the conditional note.

// Installation is the installation an execution's SDK language is read for: its SDK version and
// user (its connected account when it names no user).
type Installation struct {
	Version, Who string
	Account      bool // Who is a connected account (the record names no user)
}

// InstallationOf is e's installation; false when e names no SDK version or no caller.
func InstallationOf(e *model.Execution) (Installation, bool) {
	k := Installation{Version: strings.TrimSpace(e.SDKVersion), Who: e.UserID}
	if k.Who == "" {
		k.Who, k.Account = e.ConnectedAccountID, true
	}
	return k, k.Version != "" && k.Who != ""
}

// Languages names the language of list entries from their installation's records, row by
// row: a window adds each record (Add) and rewrites the notes of the rows it is told
// (Renote). It is not safe for concurrent use. A record of a version whose note does not
// depend on the language costs one map lookup.
type Languages struct {
	keys map[Installation]*installation
	memo LanguageMemo
}

type installation struct {
	sdk      string       // the SDK a record names ("" until one does)
	src      model.Source // that record's source
	who      string       // "user" or "connected account": what the key names
	conflict bool         // records of the key named two SDKs
	rows     []langRow    // the rows whose note depends on the language
	notes    map[sdkversion.Path]string
}

type langRow struct {
	row  int32
	path sdkversion.Path
	note string // the note the row's own record gives (conditional)
}

// Renote is a row's old-SDK note, rewritten.
type Renote struct {
	Row  int32
	Note string
}

// Add takes the record of row (its triage's note given) and returns the note the row is to
// show, and the earlier rows whose notes change now that the record is in (nil for most).
func (l *Languages) Add(e *model.Execution, row int32, note string) (string, []Renote) {
	if e.SDKVersion == "" || !l.memo.Depends(strings.TrimSpace(e.SDKVersion)) {
		return note, nil
	}
	key, ok := InstallationOf(e)
	if !ok {
		return note, nil
	}
	if name := l.memo.sdkOf(e.Source); name != "" {
		return note, l.learn(key, name, e)
	}
	if note == "" || !l.memo.Needs(e) {
		return note, nil
	}
	in := l.installation(key)
	r := langRow{row: row, path: CallPath(e), note: note}
	in.rows = append(in.rows, r)
	return in.noteOf(key.Version, r), nil
}

func (l *Languages) installation(key Installation) *installation {
	if l.keys == nil {
		l.keys = map[Installation]*installation{}
	}
	in := l.keys[key]
	if in == nil {
		in = &installation{who: "user"}
		if key.Account {
			in.who = "connected account"
		}
		l.keys[key] = in
	}
	return in
}

// learn records that an execution of key (e) names sdk, returning the rows whose notes change.
func (l *Languages) learn(key Installation, sdk string, e *model.Execution) []Renote {
	in := l.installation(key)
	switch {
	case in.conflict || in.sdk == sdk:
		return nil
	case in.sdk == "":
		in.sdk, in.src = sdk, e.Source
	default:
		in.conflict = true
	}
	clear(in.notes)
	if len(in.rows) == 0 {
		return nil
	}
	out := make([]Renote, len(in.rows))
	for i, r := range in.rows {
		out[i] = Renote{Row: r.row, Note: in.noteOf(key.Version, r)}
	}
	return out
}

// noteOf is r's note as its installation's records tell: the conditional note of its own
// record until a record names the SDK (or when two name different ones), else that SDK's note,
// saying where the language was read.
func (in *installation) noteOf(ver string, r langRow) string {
	if in.sdk == "" || in.conflict {
		return r.note
	}
	n, ok := in.notes[r.path]
	if !ok {
		if n = oldSDK(ver, r.path, in.src, true); n != "" {
			// the record it was read from is not named: fronts that see the records in
			// another order would name another one (every front says the same of a row)
			n += " (language from the same " + in.who + "'s executions on this SDK version)"
		}
		if in.notes == nil {
			in.notes = map[sdkversion.Path]string{}
		}
		in.notes[r.path] = n
	}
	return n
}

// LanguageMemo answers NoteNeedsLanguage once per SDK version and call path (the answer
// reads the version's release lines). The zero value is ready; it is not safe for concurrent
// use.
type LanguageMemo struct {
	one   map[verPath]bool
	named map[model.Source]string // the SDK each source names ("" for none)
}

type verPath struct {
	ver  string
	path sdkversion.Path
}

// Needs is NoteNeedsLanguage(e).
func (m *LanguageMemo) Needs(e *model.Execution) bool {
	return e.SDKVersion != "" && m.sdkOf(e.Source) == "" && m.oneLanguage(strings.TrimSpace(e.SDKVersion), CallPath(e))
}

// NamesSDK reports whether e's record names its SDK by its source (a detail's language,
// framework or host): its installation's other list entries can be named from it.
func (m *LanguageMemo) NamesSDK(e *model.Execution) bool { return m.sdkOf(e.Source) != "" }

// sdkOf is sdkNamed(src), read once per source.
func (m *LanguageMemo) sdkOf(src model.Source) string {
	if src == (model.Source{}) {
		return ""
	}
	name, ok := m.named[src]
	if !ok {
		name = sdkNamed(src)
		if m.named == nil {
			m.named = map[model.Source]string{}
		}
		m.named[src] = name
	}
	return name
}

// Depends reports whether the note of SDK version ver depends on the language on some path.
func (m *LanguageMemo) Depends(ver string) bool {
	return m.oneLanguage(ver, sdkversion.PathExecute) || m.oneLanguage(ver, sdkversion.PathSession)
}

// oneLanguage reports whether ver re-sends writes on path in one of the two languages only.
func (m *LanguageMemo) oneLanguage(ver string, path sdkversion.Path) bool {
	k := verPath{ver, path}
	one, ok := m.one[k]
	if !ok {
		one = oneLanguage(ver, path)
		if m.one == nil {
			m.one = map[verPath]bool{}
		}
		m.one[k] = one
	}
	return one
}
