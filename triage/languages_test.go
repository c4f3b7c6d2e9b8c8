package triage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/model"
)

// TestLanguagesNameAnInstallationsEntries: a list entry whose note depends on the language is
// named from the first record of its installation (same SDK version, same user, else same
// account) that carries one, whichever came first, citing that record; another version,
// user or no caller at all leaves it conditional; two languages in one installation put the
// conditional note back.
func TestLanguagesNameAnInstallationsEntries(t *testing.T) {
	entry := func(id, user, account, ver string) model.Execution {
		return model.Execution{ID: id, UserID: user, ConnectedAccountID: account, SDKVersion: ver}
	}
	detail := func(id, user, account, ver, lang string) model.Execution {
		e := entry(id, user, account, ver)
		e.Detailed, e.Source = true, model.Source{Language: lang, Host: "sdk"}
		return e
	}
	py := "Python composio 0.15.0 auto-retries writes (language from the same user's executions on this SDK version)"
	tests := []struct {
		name    string
		records []model.Execution
		want    map[string]string // id → its note at the end; ids not named keep their own note
	}{
		{"the detail after the entry", []model.Execution{entry("a", "u1", "", "0.15.0"), detail("log_d", "u1", "", "0.15.0", "python")},
			map[string]string{"a": py}},
		{"the detail before the entry", []model.Execution{detail("log_d", "u1", "", "0.15.0", "python"), entry("a", "u1", "", "0.15.0")},
			map[string]string{"a": py}},
		{"a language whose SDK does not re-send: no note", []model.Execution{entry("a", "u1", "", "0.15.0"), detail("log_d", "u1", "", "0.15.0", "typescript")},
			map[string]string{"a": ""}},
		{"by the account when there is no user", []model.Execution{entry("a", "", "ca_1", "0.15.0"), detail("log_d", "", "ca_1", "0.15.0", "PYTHON_SDK")},
			map[string]string{"a": "Python composio 0.15.0 auto-retries writes (language from the same connected account's executions on this SDK version)"}},
		{"another user", []model.Execution{entry("a", "u2", "", "0.15.0"), detail("log_d", "u1", "", "0.15.0", "python")},
			map[string]string{"a": "Composio SDK 0.15.0 (language not in its list entry) auto-retries writes if it is Python composio"}},
		{"another version", []model.Execution{entry("a", "u1", "", "0.15.2"), detail("log_d", "u1", "", "0.15.0", "python")},
			map[string]string{"a": "Composio SDK 0.15.2 (language not in its list entry) auto-retries writes if it is Python composio"}},
		{"no caller", []model.Execution{entry("a", "", "", "0.15.0"), detail("log_d", "", "", "0.15.0", "python")},
			map[string]string{"a": "Composio SDK 0.15.0 (language not in its list entry) auto-retries writes if it is Python composio"}},
		{"two languages in one installation", []model.Execution{
			detail("log_d", "u1", "", "0.15.0", "python"), entry("a", "u1", "", "0.15.0"), detail("log_e", "u1", "", "0.15.0", "typescript"), entry("b", "u1", "", "0.15.0")},
			map[string]string{
				"a": "Composio SDK 0.15.0 (language not in its list entry) auto-retries writes if it is Python composio",
				"b": "Composio SDK 0.15.0 (language not in its list entry) auto-retries writes if it is Python composio",
			}},
		{"a session's entry, named for its path", []model.Execution{
			func() model.Execution { e := entry("a", "u1", "", "0.24.0"); e.SessionID = "trs_1"; return e }(), detail("log_d", "u1", "", "0.24.0", "python")},
			map[string]string{"a": "Python composio 0.24.0 retries session writes (fixed in 0.26.0) (language from the same user's executions on this SDK version)"}},
	}
	for _, tt := range tests {
		var l Languages
		notes := map[int32]string{}
		row := map[string]int32{}
		for i, e := range tt.records {
			got, renotes := l.Add(&e, int32(i), OldSDK(&e))
			notes[int32(i)], row[e.ID] = got, int32(i)
			for _, n := range renotes {
				if n.Row >= int32(i) {
					t.Errorf("%s: a renote of row %d, not added before row %d", tt.name, n.Row, i)
				}
				notes[n.Row] = n.Note
			}
		}
		for id, want := range tt.want {
			if got := notes[row[id]]; got != want {
				t.Errorf("%s: %s's note %q, want %q", tt.name, id, got, want)
			}
		}
		for _, e := range tt.records {
			if e.Detailed && notes[row[e.ID]] != OldSDK(&e) {
				t.Errorf("%s: the detail %s's note was changed to %q", tt.name, e.ID, notes[row[e.ID]])
			}
		}
	}
}

// A named list entry's note is its detail's note, cited: for every version and path whose
// answer depends on the language.
func TestANamedEntryReadsAsItsDetail(t *testing.T) {
	named := 0
	for _, v := range []string{"0.14.0", "0.15.4", "0.13.1", "0.23.0", "0.25.1", "0.30.0"} {
		for _, session := range []string{"", "trs_1"} {
			for _, lang := range []string{"python", "typescript"} {
				e := model.Execution{ID: "a", UserID: "u", SDKVersion: v, SessionID: session}
				d := e
				d.ID, d.Detailed, d.Source = "log_d", true, model.Source{Language: lang}
				var l Languages
				l.Add(&d, 0, OldSDK(&d))
				got, _ := l.Add(&e, 1, OldSDK(&e))
				want := OldSDK(&d)
				if want != "" && NoteNeedsLanguage(&e) {
					named++
					want += " (language from the same user's executions on this SDK version)"
				} else if !NoteNeedsLanguage(&e) {
					want = OldSDK(&e) // its own note needs no language
				}
				if got != want {
					t.Errorf("%s %s session=%q: %q, want %q", v, lang, session, got, want)
				}
				if strings.Contains(got, "language not") {
					t.Errorf("%s %s session=%q: still conditional: %q", v, lang, session, got)
				}
			}
		}
	}
	if named == 0 {
		t.Fatal("no entry was named: the test shows nothing")
	}
}

// NoteNeedsLanguage, and the memo a load asks it through, say a note needs its language exactly
// when the note a record without a source gets is the conditional one ("… if it is …"), for
// every version, path and source, asked in any order.
func TestLanguageMemoAnswersAsNoteNeedsLanguage(t *testing.T) {
	var m LanguageMemo
	needs := 0
	for round := range 2 {
		for minor := 10; minor <= 28; minor++ {
			for _, session := range []string{"", "trs_1"} {
				for _, src := range []model.Source{{}, {Language: "python"}, {Host: "sdk"}, {Framework: "langchain"}} {
					e := model.Execution{SDKVersion: fmt.Sprintf(" 0.%d.%d", minor, round), SessionID: session, Source: src}
					want := strings.Contains(OldSDK(&e), " if it is ")
					if got := m.Needs(&e); got != want {
						t.Errorf("%+v: the memo says %v, the note %q", e, got, OldSDK(&e))
					}
					if got := NoteNeedsLanguage(&e); got != want {
						t.Errorf("%+v: NoteNeedsLanguage says %v, the note %q", e, got, OldSDK(&e))
					}
					if want {
						needs++
					}
				}
			}
		}
	}
	if needs == 0 {
		t.Fatal("no version needs its language: the test shows nothing")
	}
}
