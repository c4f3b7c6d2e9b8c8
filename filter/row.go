package filter

import (
	"strings"
	"unicode/utf8"

	"github.com/exectriage/exectriage/model"
)

// Row is one execution as the filter sees it: the record and, when known, its triage.
type Row struct {
	Exec   *model.Execution
	Triage *model.Triage
}

// Fields are the searchable texts of a row. The first seven (Tool to Error) form the
// free-text haystack, in that order; the rest are only reachable through field terms.
type Fields struct {
	Tool, Toolkit, User, Account, ID, RequestID, Error string
	Status, Outcome, Kind, Group                       string
	Session, Trace                                     string
	Flagged, Settled                                   bool
}

// The field slots, in arena order: the free-text ones first (joined by spaces), then the
// field-only ones (contiguous).
const (
	slotTool = iota
	slotToolkit
	slotUser
	slotAccount
	slotID
	slotRequest
	slotError
	slotGroup
	slotStatus
	slotOutcome
	slotKind
	slotSession
	slotTrace
	nSlots
	nHaySlots = slotError + 1
	// slotPattern is a group's cause (sdk_auto_retry, agent_retry, ...): not in the arena but
	// a property of the group, so only views that know the groups (View) answer it.
	slotPattern = nSlots
)

// Length caps, in bytes (cut on a rune boundary), so one odd record cannot bloat the index
// and every row fits 16-bit offsets. Haystack applies the same caps.
const (
	maxFieldLen = 256
	maxErrorLen = 160
	maxEnumLen  = 64
)

// FieldsOf extracts the searchable fields of a row. Error is the recorded error message
// (or its kind when there is no message).
func FieldsOf(r *Row) Fields {
	var f Fields
	if e := r.Exec; e != nil {
		f.Tool, f.Toolkit, f.User, f.Account = e.ToolSlug, e.ToolkitSlug, e.UserID, e.ConnectedAccountID
		f.ID, f.RequestID, f.Status = e.ID, e.RequestID, e.Status
		f.Error = e.ErrorText()
		f.Session, f.Trace = e.SessionID, e.TraceID
	}
	if t := r.Triage; t != nil {
		f.Outcome, f.Kind, f.Group, f.Flagged = string(t.Outcome), string(t.Kind), t.GroupID, t.Flagged
		f.Settled = t.Case != nil && t.Case.Settled
	}
	if e := r.Exec; e != nil && !e.IsToolExecution() {
		// a row of its own kind (read, as triage has it: it changes nothing a retry could
		// repeat): kind:delivery selects the trigger deliveries, kind:event the account events
		switch e.Type {
		case model.TypeTriggerMessage:
			f.Kind = strings.TrimSpace(f.Kind + " delivery")
		default:
			f.Kind = strings.TrimSpace(f.Kind + " event")
		}
	}
	return f
}

func (f *Fields) slots() [nSlots]string {
	return [nSlots]string{
		slotTool: f.Tool, slotToolkit: f.Toolkit, slotUser: f.User, slotAccount: f.Account,
		slotID: f.ID, slotRequest: f.RequestID, slotError: f.Error,
		slotGroup: f.Group, slotStatus: f.Status, slotOutcome: f.Outcome, slotKind: f.Kind, slotSession: f.Session, slotTrace: f.Trace,
	}
}

func slotCap(slot int) int {
	switch slot {
	case slotError:
		return maxErrorLen
	case slotStatus, slotOutcome, slotKind:
		return maxEnumLen
	}
	return maxFieldLen
}

// clip cuts s to at most n bytes without splitting a rune.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for k := 0; k < utf8.UTFMax-1 && n > 0 && !utf8.RuneStart(s[n]); k++ {
		n--
	}
	return s[:n]
}

// Haystack is the text free-text terms are matched against: tool slug, toolkit, user,
// account, log id, request id and error text, each capped, joined by single spaces, with
// control characters (NUL included) replaced by spaces. Free-text matching is exactly
// sahilm/fuzzy's on this string.
func Haystack(f Fields) string {
	s := f.slots()
	var b strings.Builder
	for i := range nHaySlots {
		if i > 0 {
			b.WriteByte(' ')
		}
		for _, c := range []byte(clip(s[i], slotCap(i))) {
			if c < 0x20 || c == 0x7f {
				c = ' '
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}
