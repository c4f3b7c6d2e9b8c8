package triage

import (
	"strings"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sdkversion"
)

// An SDK's language is a fact of the installation that sends, not of each execution: the Logs
// API lists entries without their source, so a write whose old-SDK note depends on the
// language (NoteNeedsLanguage) would need its own detail to be named. One detail per
// installation settles it for all of its executions: LanguageKey says which executions are one
// installation (one user, or without a user one connected account, on one SDK version), and
// Languages names a list entry's language from the first record of its installation that
// carries one, citing that record. Two records of one installation that name different
// languages prove the key is not one installation there: its list entries keep the
// conditional note.

// LanguageKey is the installation e's SDK language is read for: its SDK version and user (its
// connected account without a user); "" when it names no version or no caller.
func LanguageKey(e *model.Execution) string {
	ver := strings.TrimSpace(e.SDKVersion)
	who := e.UserID
	kind := "u"
	if who == "" {
		who, kind = e.ConnectedAccountID, "a"
	}
	if ver == "" || who == "" {
		return ""
	}
	return ver + "\x00" + kind + who
}

// NamesSDK reports whether e's record names its SDK by its source (a detail's language,
// framework or host): its installation's other list entries can be named from it.
func NamesSDK(e *model.Execution) bool {
	_, ok := recordedSDK(e)
	return ok
}

// recordedSDK is the SDK e's record names by its source, or false when it names none.
func recordedSDK(e *model.Execution) (string, bool) {
	sdk, _, ok := sdkversion.FromRecord(e.Source.Language, e.Source.Framework, e.Source.Host)
	return sdk.Name, ok
}

// Languages names the language of list entries from their installation's records, row by
// row: a window adds each record (Add) and rewrites the notes of the rows it is told
// (Renote). It is not safe for concurrent use.
type Languages struct {
	keys map[string]*installation
}

type installation struct {
	sdk      string       // the SDK a record names ("" until one does)
	src      model.Source // that record's source
	from     string       // that record's id
	who      string       // "user" or "connected account": what the key names
	conflict bool         // records of the key named two SDKs
	rows     []langRow    // the rows whose note depends on the language
}

type langRow struct {
	row  int32
	path sdkversion.Path
	ver  string
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
	key := LanguageKey(e)
	if key == "" {
		return note, nil
	}
	if name, ok := recordedSDK(e); ok {
		return note, l.learn(key, name, e)
	}
	if note == "" || !NoteNeedsLanguage(e) {
		return note, nil
	}
	if l.keys == nil {
		l.keys = map[string]*installation{}
	}
	in := l.keys[key]
	if in == nil {
		in = &installation{who: whoOf(key)}
		l.keys[key] = in
	}
	r := langRow{row: row, path: CallPath(e), ver: strings.TrimSpace(e.SDKVersion), note: note}
	in.rows = append(in.rows, r)
	return in.noteOf(r), nil
}

// learn records that an execution of key (e) names sdk, returning the rows whose notes change.
func (l *Languages) learn(key, sdk string, e *model.Execution) []Renote {
	if l.keys == nil {
		l.keys = map[string]*installation{}
	}
	in := l.keys[key]
	if in == nil {
		l.keys[key] = &installation{sdk: sdk, src: e.Source, from: e.ID, who: whoOf(key)}
		return nil
	}
	switch {
	case in.conflict || in.sdk == sdk:
		return nil
	case in.sdk == "":
		in.sdk, in.src, in.from = sdk, e.Source, e.ID
	default:
		in.conflict = true
	}
	out := make([]Renote, len(in.rows))
	for i, r := range in.rows {
		out[i] = Renote{Row: r.row, Note: in.noteOf(r)}
	}
	return out
}

// noteOf is r's note as its installation's records tell: the conditional note of its own
// record until a record names the SDK (or when two name different ones), else that SDK's note
// and the record it was read from.
func (in *installation) noteOf(r langRow) string {
	if in.sdk == "" || in.conflict {
		return r.note
	}
	n := oldSDK(r.ver, r.path, in.src, true)
	if n == "" {
		return ""
	}
	return n + " (language from " + in.from + ": same " + in.who + ", same SDK version)"
}

// whoOf is what a LanguageKey names its caller by.
func whoOf(key string) string {
	if _, who, _ := strings.Cut(key, "\x00"); strings.HasPrefix(who, "a") {
		return "connected account"
	}
	return "user"
}
