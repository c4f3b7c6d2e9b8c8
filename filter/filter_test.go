package filter

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/exectriage/exectriage/model"
	"github.com/sahilm/fuzzy"
	"pgregory.net/rapid"
)

// --- the reference matcher: straightforward, slow, obviously right ---

// refEqualFold is strings.EqualFold for one rune pair (the rule sahilm/fuzzy uses).
func refEqualFold(a, b rune) bool { return strings.EqualFold(string(a), string(b)) }

// refSubsequence walks s rune by rune looking for the pattern's runes in order.
func refSubsequence(s, pat string) bool {
	p := []rune(pat)
	if len(p) == 0 {
		return true
	}
	k := 0
	for _, r := range s {
		if refEqualFold(r, p[k]) {
			k++
			if k == len(p) {
				return true
			}
		}
	}
	return false
}

// refContains is a quadratic case-insensitive substring search over runes.
func refContains(s, sub string) bool {
	h, n := []rune(s), []rune(sub)
	for i := 0; i+len(n) <= len(h); i++ {
		ok := true
		for j := range n {
			if !refEqualFold(h[i+j], n[j]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// refClean is a field as every search sees it: capped, control characters as spaces.
func refClean(s string, slot int) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, clip(s, slotCap(slot)))
}

// refMatch evaluates q on one row's fields without the index. Free text is checked with
// sahilm/fuzzy itself over the haystack, and with refSubsequence, which must agree.
func refMatch(t testing.TB, q Query, f Fields) bool {
	hay := Haystack(f)
	s := f.slots()
	for _, tm := range q.terms {
		var ok bool
		switch tm.field {
		case fieldText:
			ok = len(fuzzy.Find(tm.value, []string{hay})) == 1
			if ref := refSubsequence(hay, tm.value); ref != ok && t != nil {
				t.Fatalf("sahilm/fuzzy says %v, reference subsequence %v, for %q in %q", ok, ref, tm.value, hay)
			}
		case fieldFlagged:
			ok = f.Flagged == (tm.has == presenceYes)
		case fieldSettled:
			ok = f.Settled == (tm.has == presenceYes)
		default:
			v := refClean(s[tm.slot], tm.slot)
			switch {
			case tm.has == presenceYes:
				ok = v != ""
			case tm.has == presenceNo:
				ok = v == ""
			case !identifier(tm.field):
				ok = refContains(v, tm.value)
			default:
				pat := strings.Trim(tm.value, "*")
				lead, trail := strings.HasPrefix(tm.value, "*"), strings.HasSuffix(tm.value, "*")
				vr, pr := []rune(v), []rune(pat)
				switch {
				case lead && trail:
					ok = refContains(v, pat)
				case trail:
					ok = len(vr) >= len(pr) && refContains(string(vr[:len(pr)]), pat)
				case lead:
					ok = len(vr) >= len(pr) && refContains(string(vr[len(vr)-len(pr):]), pat)
				default:
					ok = len(vr) == len(pr) && refContains(v, pat)
				}
			}
		}
		if ok == tm.neg {
			return false
		}
	}
	return true
}

func refFilter(t testing.TB, q Query, rows []Fields) []int {
	out := []int{}
	for i, f := range rows {
		if refMatch(t, q, f) {
			out = append(out, i)
		}
	}
	return out
}

// --- parsing ---

func TestParse(t *testing.T) {
	tests := []struct {
		q       string
		want    []string // field/neg/value of each term
		wantErr string
	}{
		{q: "", want: nil},
		{q: "  gmsend  ", want: []string{"text=gmsend"}},
		{q: "gm send", want: []string{"text=gm", "text=send"}},
		{q: `"timed out"`, want: []string{"text=timed out"}},
		{q: `tool:"two words" user:42`, want: []string{"tool=two words", "user=42"}},
		{q: `"tool:x"`, want: []string{"text=tool:x"}},
		{q: `TOOL:Gmail`, want: []string{"tool=Gmail"}},
		{q: `-status:success -foo`, want: []string{"-status=success", "-text=foo"}},
		{q: `- x`, want: []string{"text=x"}},
		{q: `tool:`, want: nil},
		{q: `flagged:`, want: nil},
		{q: `flagged:yes flagged:n`, want: []string{"flagged=yes", "flagged=n"}},
		{q: `group:yes group:dup`, want: []string{"group=yes", "group=dup"}},
		{q: `"unterminated quote`, want: []string{"text=unterminated quote"}},
		{q: `"say \"hi\""`, want: []string{`text=say "hi"`}},
		{q: `10:30`, want: []string{"text=10:30"}},
		{q: `foo:bar`, wantErr: `unknown field "foo": use tool, toolkit, user, account, id, request, error, status, outcome, kind, group, pattern, flagged`},
		{q: `flagged:maybe`, wantErr: `flagged:maybe: want flagged:yes or flagged:no`},
		// Fixed vocabularies: a value no word contains is a typo, not "0 matches".
		{q: `outcome:amb kind:IDEMP -outcome:fail`, want: []string{"outcome=amb", "kind=IDEMP", "-outcome=fail"}},
		{q: `outcome:ambigous`, wantErr: `outcome:ambigous: did you mean outcome:ambiguous? (outcome is one of succeeded, failed, rejected, ambiguous, waiting)`},
		{q: `-kind:wirte`, wantErr: `did you mean kind:write?`},
		{q: `Outcome:zzzzzzzzzz`, wantErr: `Outcome:zzzzzzzzzz: no such outcome (outcome is one of`},
		{q: `status:Completed error:ambigous`, want: []string{"status=Completed", "error=ambigous"}},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			q, err := Parse(tt.q)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse(%q) error = %v, want %q", tt.q, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.q, err)
			}
			var got []string
			for _, tm := range q.terms {
				name := "text"
				for _, f := range fieldNames {
					if f.f == tm.field {
						name = f.name
					}
				}
				neg := ""
				if tm.neg {
					neg = "-"
				}
				got = append(got, neg+name+"="+tm.value)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%q) terms = %q, want %q", tt.q, got, tt.want)
			}
			if q.String() != tt.q {
				t.Errorf("String() = %q", q.String())
			}
		})
	}
}

// --- matching ---

func sampleRows() []Row {
	mk := func(id, tool, toolkit, user, acct, status string, errMsg string, tr model.Triage) Row {
		e := &model.Execution{ID: id, ToolSlug: tool, ToolkitSlug: toolkit, UserID: user, ConnectedAccountID: acct, Status: status, RequestID: "req-" + id}
		if errMsg != "" {
			e.Error = &model.ExecError{Message: errMsg}
		}
		return Row{Exec: e, Triage: &tr}
	}
	return []Row{
		mk("log_a1", "GMAIL_SEND_EMAIL", "gmail", "user_42", "ca_111", "failed", "Read timed out after 60s", model.Triage{Kind: model.KindWrite, Outcome: model.OutcomeAmbiguous, Flagged: true, GroupID: "dup-1"}),
		mk("log_b2", "GMAIL_FETCH_EMAILS", "gmail", "user_7", "ca_222", "success", "", model.Triage{Kind: model.KindRead, Outcome: model.OutcomeSucceeded}),
		mk("log_c3", "SLACK_SEND_MESSAGE", "slack", "user_420", "ca_333", "failed", "rate limited", model.Triage{Kind: model.KindWrite, Outcome: model.OutcomeRejected, Flagged: true}),
		mk("log_d4", "GITHUB_CREATE_AN_ISSUE", "github", "Zoë", "ca_444", "success", "", model.Triage{Kind: model.KindWrite, Outcome: model.OutcomeSucceeded, GroupID: "dup-2"}),
	}
}

func TestMatch(t *testing.T) {
	rows := sampleRows()
	tests := []struct {
		q    string
		want []int
	}{
		{"", []int{0, 1, 2, 3}},
		{"gmsend", []int{0}},
		{"GMSEND", []int{0}},
		{"send", []int{0, 2}},
		{"timedout", []int{0}},
		{"tool:*send*", []int{0, 2}},
		{"tool:send", nil}, // an identifier term is the whole value
		{"tool:gmsend", nil},
		{"toolkit:gmail -tool:*fetch*", []int{0}},
		{"user:*42*", []int{0, 2}},
		{"user:42", nil},
		{"user:ZOË", []int{3}},
		{"user:zoe", nil},
		{"zoë", []int{3}},
		{"status:fail", []int{0, 2}},
		{"outcome:amb", []int{0}},
		{"kind:read", []int{1}},
		{"kind:write", []int{0, 2, 3}},
		{"flagged:yes", []int{0, 2}},
		{"flagged:no", []int{1, 3}},
		{"-flagged:yes", []int{1, 3}},
		{"group:yes", []int{0, 3}},
		{"group:no", []int{1, 2}},
		{"group:dup-2", []int{3}},
		{"id:*c3", []int{2}},
		{"request:req-log_d*", []int{3}},
		{"error:rate", []int{2}},
		{`"rate limited"`, []int{2}},
		{"account:*ca_2*", []int{1}},
		{"slack flagged:yes", []int{2}},
		{"-send", []int{1, 3}},
	}
	var ix Index
	ix.Append(rows...)
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			q, err := Parse(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			got := ix.Filter(q)
			if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("Filter(%q) = %v, want %v", tt.q, got, tt.want)
			}
			for i := range rows {
				ok, _ := q.Match(&rows[i])
				if ok != slices.Contains(tt.want, i) {
					t.Errorf("Match(%q, row %d) = %v", tt.q, i, ok)
				}
			}
		})
	}
}

func TestMatchHighlight(t *testing.T) {
	rows := sampleRows()
	q, _ := Parse("gmsend tool:gmail*")
	ok, pos := q.Match(&rows[0])
	if !ok {
		t.Fatal("no match")
	}
	hay := Haystack(FieldsOf(&rows[0]))
	var got strings.Builder
	for _, p := range pos {
		got.WriteString(hay[p : p+1])
	}
	if !strings.EqualFold(got.String(), "gmsend") {
		t.Errorf("highlighted %q in %q, want the letters of gmsend", got.String(), hay)
	}
	if h := q.Highlight("GMAIL_SEND_EMAIL"); len(h) != 6 || h[0] != 0 {
		t.Errorf("Highlight = %v", h)
	}
	if h := q.Highlight("nothing here"); len(h) != 0 {
		t.Errorf("Highlight of a non-match = %v", h)
	}
}

func TestRank(t *testing.T) {
	var ix Index
	for _, tool := range []string{"SLACK_SEND_MESSAGE", "GMAIL_SEND_EMAIL", "GMAIL_FETCH_EMAILS", "GMAIL_SEND_DRAFT"} {
		ix.AppendFields(Fields{Tool: tool})
	}
	q, _ := Parse("gmailsend")
	rows := ix.Filter(q)
	if !slices.Equal(rows, []int{1, 3}) {
		t.Fatalf("Filter = %v", rows)
	}
	// Both scatter the term inside the tool; ties keep the input (newest-first) order.
	if got, hidden := ix.Rank(q, rows); !slices.Equal(got, []int{1, 3}) || hidden != 0 {
		t.Errorf("Rank = %v, %d hidden", got, hidden)
	}
	// "SEND" is a word of three tools; one tool scatters s, e, n, d inside its name, another row
	// across its fields: both are the tail, cut while a row holds the word.
	ix.AppendFields(Fields{Tool: "SLACK_SEARCH_EVENTS_AND_MORE"})                           // 4
	ix.AppendFields(Fields{Tool: "HUBSPOT_LIST_CONTACTS", Account: "ca_e", ID: "log_nd"})   // 5
	ix.AppendFields(Fields{Tool: "GITHUB_CREATE_ISSUE", Error: "upstream resends nothing"}) // 6
	q, _ = Parse("send")
	rows = ix.Filter(q)
	if !slices.Equal(rows, []int{0, 1, 3, 4, 5, 6}) {
		t.Fatalf("Filter(send) = %v", rows)
	}
	if got, hidden := ix.Rank(q, rows); !slices.Equal(got, []int{0, 1, 3, 6}) || hidden != 2 {
		t.Errorf("Rank(send) = %v, %d hidden; want [0 1 3 6] (words of a name, then a run in the error), 2", got, hidden)
	}
	// Without a run anywhere, letters inside one field beat letters across fields.
	ix.AppendFields(Fields{Tool: "SLACK_POST", User: "eva", ID: "log_nd"}) // 7
	q, _ = Parse("sevand")
	rows = ix.Filter(q)
	if got, hidden := ix.Rank(q, rows); !slices.Equal(rows, []int{4, 7}) || !slices.Equal(got, []int{4}) || hidden != 1 {
		t.Errorf("Rank(sevand) over %v = %v, %d hidden; want [4]", rows, got, hidden)
	}
	ix = Index{}
	for _, tool := range []string{"SLACK_SEND_MESSAGE", "GMAIL_SEND_EMAIL", "GMAIL_FETCH_EMAILS", "GMAIL_SEND_DRAFT"} {
		ix.AppendFields(Fields{Tool: tool})
	}
	q, _ = Parse("fetch")
	q2, _ := Parse("e")
	all := ix.Filter(q2)
	if got, _ := ix.Rank(q, all); got[0] != 2 {
		t.Errorf("Rank by fetch = %v, want row 2 first", got)
	}
	q3, _ := Parse("tool:gmail")
	if got, _ := ix.Rank(q3, []int{3, 1}); !slices.Equal(got, []int{3, 1}) {
		t.Errorf("Rank without free text reordered: %v", got)
	}
	if ix.Size() <= 0 {
		t.Error("Size")
	}
}

func TestFoldFollowsSimpleFoldOrbits(t *testing.T) {
	// Every rune must fold to the same value as every rune in its SimpleFold orbit, and
	// runes of different orbits must fold apart.
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		f := fold(r)
		for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
			if fold(o) != f {
				t.Fatalf("fold(%U)=%U but fold(%U)=%U", r, f, o, fold(o))
			}
		}
		if !refEqualFold(r, f) {
			t.Fatalf("fold(%U)=%U is not in its orbit", r, f)
		}
	}
}

func TestRefines(t *testing.T) {
	tests := []struct {
		prev, next string
		want       bool
	}{
		{"g", "gm", true},
		{"gm", "gxm", true},
		{"gm", "g", false},
		{"", "anything", true},
		{"user:4*", "user:42*", true},
		{"user:4*", "user:42", true},
		{"user:4", "user:42", false}, // whole values: user 42 is not user 4
		{"user:42", "user:4", false},
		{"user:*2", "user:42", true},
		{"user:*4*", "user:42*", true},
		{"user", "user:", false},
		{"-tool:gmail*", "-tool:gm*", true},
		{"-tool:gm*", "-tool:gmail*", false},
		{"-tool:gmail", "-tool:gm*", true},
		{"error:rat", "error:rate", true},
		{"flagged:y", "flagged:yes", true},
		{"flagged:yes", "flagged:no", false},
		{"gm", "gm tool:x", true},
		{"gm tool:x", "gm", false},
		{"é", "éa", true},
	}
	for _, tt := range tests {
		p, _ := Parse(tt.prev)
		n, _ := Parse(tt.next)
		if got := n.Refines(p); got != tt.want {
			t.Errorf("Parse(%q).Refines(%q) = %v, want %v", tt.next, tt.prev, got, tt.want)
		}
	}
}

// --- properties: the index equals the reference on random rows and queries ---

// alphabet mixes ASCII with runes whose case folding is tricky: the Kelvin sign and long s
// (orbits with ASCII letters), the three sigmas, dotted/dotless i, ß/ẞ, a few non-letters,
// invalid UTF-8, NUL and control characters.
var alphabet = []string{
	"a", "b", "e", "g", "k", "m", "s", "A", "E", "G", "K", "S", "_", "-", " ", "4", "2", ":",
	"\u212a", "\u017f", "Σ", "σ", "ς", "İ", "ı", "i", "I", "ß", "ẞ", "é", "É", "ǅ", "ǆ", "Ǆ",
	"😀", "\xff", "\xe2\x82", "\x00", "\t", "\x1b",
}

func genText(maxLen int) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		parts := rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, maxLen).Draw(t, "parts")
		return strings.Join(parts, "")
	})
}

var genFields = rapid.Custom(func(t *rapid.T) Fields {
	txt := genText(8)
	return Fields{
		Tool: txt.Draw(t, "tool"), Toolkit: txt.Draw(t, "toolkit"), User: txt.Draw(t, "user"),
		Account: txt.Draw(t, "account"), ID: txt.Draw(t, "id"), RequestID: txt.Draw(t, "request"),
		Error: txt.Draw(t, "error"), Status: rapid.SampledFrom([]string{"success", "failed", "", "Ɛrr"}).Draw(t, "status"),
		Outcome: rapid.SampledFrom([]string{"succeeded", "failed", "rejected", "ambiguous"}).Draw(t, "outcome"),
		Kind:    rapid.SampledFrom([]string{"read", "write", "idempotent_write"}).Draw(t, "kind"),
		Group:   rapid.SampledFrom([]string{"", "dup-1", "dup-Σ"}).Draw(t, "group"),
		Flagged: rapid.Bool().Draw(t, "flagged"),
	}
})

// fieldOf is the field a term name stands for.
func fieldOf(name string) field {
	for _, f := range fieldNames {
		if f.name == name {
			return f.f
		}
	}
	return fieldText
}

// quote renders a term value so that Parse gives it back verbatim.
func quote(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// genQuery draws a query string: free-text terms often taken from a row's haystack (so
// they match sometimes), field terms, negations.
func genQuery(t *rapid.T, rows []Fields) string {
	n := rapid.IntRange(1, 3).Draw(t, "terms")
	var parts []string
	for range n {
		neg := ""
		if rapid.IntRange(0, 4).Draw(t, "neg") == 0 {
			neg = "-"
		}
		var v string
		if len(rows) > 0 && rapid.Bool().Draw(t, "fromRow") {
			hay := Haystack(rows[rapid.IntRange(0, len(rows)-1).Draw(t, "row")])
			// a random subsequence of the haystack, possibly case-flipped
			for _, r := range hay {
				if rapid.IntRange(0, 3).Draw(t, "take") == 0 {
					if rapid.Bool().Draw(t, "flip") {
						r = unicode.SimpleFold(r)
					}
					v += string(r)
				}
			}
		} else {
			v = genText(4).Draw(t, "text")
		}
		if v == "" || !utf8.ValidString(v) && rapid.Bool().Draw(t, "dropInvalid") {
			v = "e"
		}
		switch rapid.IntRange(0, 6).Draw(t, "kind") {
		case 0:
			name := rapid.SampledFrom([]string{"tool", "toolkit", "user", "account", "id", "request", "error", "status", "outcome", "kind", "group"}).Draw(t, "field")
			if f := fieldOf(name); vocabulary(f) != nil && checkVocabulary(f, name, v) != nil {
				// a typo in a fixed vocabulary is refused; draw a part of a real value instead
				w := rapid.SampledFrom(vocabulary(f)).Draw(t, "word")
				i := rapid.IntRange(0, len(w)-1).Draw(t, "from")
				v = w[i : i+rapid.IntRange(1, len(w)-i).Draw(t, "len")]
			}
			parts = append(parts, neg+name+":"+quote(v))
		case 1:
			parts = append(parts, neg+"flagged:"+rapid.SampledFrom([]string{"yes", "no"}).Draw(t, "flag"))
		case 2:
			parts = append(parts, neg+"group:"+rapid.SampledFrom([]string{"yes", "no", "dup", "σ"}).Draw(t, "group"))
		default:
			parts = append(parts, neg+quote(v))
		}
	}
	return strings.Join(parts, " ")
}

func TestIndexEqualsReference(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		rows := rapid.SliceOfN(genFields, 0, 30).Draw(rt, "rows")
		var ix Index
		for _, f := range rows {
			ix.AppendFields(f)
		}
		qs := genQuery(rt, rows)
		q, err := Parse(qs)
		if err != nil {
			rt.Fatalf("Parse(%q): %v", qs, err)
		}
		want := refFilter(t, q, rows)
		if got := ix.Filter(q); !slices.Equal(got, want) && len(got)+len(want) > 0 {
			rt.Fatalf("query %q: index %v, reference %v", qs, got, want)
		}
		// Narrowing: a query extended by one more term is evaluated on the previous result.
		more := qs + " " + genQuery(rt, rows)
		q2, err := Parse(more)
		if err != nil {
			rt.Fatalf("Parse(%q): %v", more, err)
		}
		if !q2.Refines(q) {
			rt.Fatalf("%q should refine %q", more, qs)
		}
		want2 := refFilter(t, q2, rows)
		if got := ix.FilterFrom(ix.Filter(q), q2); !slices.Equal(got, want2) && len(got)+len(want2) > 0 {
			rt.Fatalf("query %q from %q: index %v, reference %v", more, qs, got, want2)
		}
	})
}

// TestTypingEqualsReference types a free-text term one character at a time after some other
// terms, narrowing each result from the previous one (the resumable path), and compares every
// step with the reference.
func TestTypingEqualsReference(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		rows := rapid.SliceOfN(genFields, 1, 30).Draw(rt, "rows")
		var ix Index
		for _, f := range rows {
			ix.AppendFields(f)
		}
		lead := ""
		if rapid.Bool().Draw(rt, "lead") {
			lead = genQuery(rt, rows) + " "
		}
		var typed string
		if rapid.Bool().Draw(rt, "fromRow") {
			hay := Haystack(rows[rapid.IntRange(0, len(rows)-1).Draw(rt, "row")])
			for _, r := range hay {
				if rapid.IntRange(0, 2).Draw(rt, "take") == 0 {
					typed += string(r)
				}
			}
		} else {
			typed = genText(6).Draw(rt, "typed")
		}
		var prevQ Query
		var prev []int
		for i := range typed {
			if i == 0 {
				continue
			}
			qs := lead + quote(typed[:i])
			step(rt, &ix, rows, qs, &prevQ, &prev)
		}
		step(rt, &ix, rows, lead+quote(typed), &prevQ, &prev)
	})
}

func step(rt *rapid.T, ix *Index, rows []Fields, qs string, prevQ *Query, prev *[]int) {
	q, err := Parse(qs)
	if err != nil {
		rt.Fatalf("Parse(%q): %v", qs, err)
	}
	var got []int
	if *prev != nil && q.Refines(*prevQ) {
		got = ix.FilterFrom(*prev, q)
	} else {
		got = ix.Filter(q)
	}
	if want := refFilter(nil, q, rows); !slices.Equal(got, want) && len(got)+len(want) > 0 {
		rt.Fatalf("query %q: index %v, reference %v", qs, got, want)
	}
	*prevQ, *prev = q, got
}

// TestSahilmMatchIsFoldedSubsequence pins the claim the index is built on: sahilm/fuzzy
// matches a pattern exactly when its runes are a case-folded subsequence of the string cut
// at its first NUL.
func TestSahilmMatchIsFoldedSubsequence(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := genText(12).Draw(rt, "s")
		p := genText(4).Draw(rt, "p")
		if p == "" {
			return
		}
		cut := s
		if before, _, ok := strings.Cut(s, "\x00"); ok {
			cut = before
		}
		got := len(fuzzy.Find(p, []string{s})) == 1
		if want := refSubsequence(cut, p); got != want {
			rt.Fatalf("fuzzy.Find(%q, %q) matched=%v, reference %v", p, s, got, want)
		}
	})
}

// TestIndexParallelEqualsReference covers the multi-goroutine path (rows > minChunk).
func TestIndexParallelEqualsReference(t *testing.T) {
	rows := benchRows(3*minChunk + 17)
	ix := NewIndex(len(rows))
	for _, f := range rows {
		ix.AppendFields(f)
	}
	var prevQ Query
	var prev []int
	for _, qs := range []string{"g", "gm", "gms", "gmsend", "user:42", "timedout", "-flagged:yes kind:write", "ǅ"} {
		q, err := Parse(qs)
		if err != nil {
			t.Fatal(err)
		}
		want := refFilter(t, q, rows)
		got := ix.Filter(q)
		if !slices.Equal(got, want) {
			t.Fatalf("Filter(%q): %d rows, reference %d", qs, len(got), len(want))
		}
		if prev != nil && q.Refines(prevQ) {
			if got := ix.FilterFrom(prev, q); !slices.Equal(got, want) {
				t.Fatalf("FilterFrom(%q): %d rows, reference %d", qs, len(got), len(want))
			}
		}
		prevQ, prev = q, got
	}
	// Scans that share the index's buffers at once, and ranking and hints cut into parts, give
	// what one scan of every row gives.
	var wg sync.WaitGroup
	for _, qs := range []string{"g", "gmsend", "user:42", "timedout"} {
		q, err := Parse(qs)
		if err != nil {
			t.Fatal(err)
		}
		want := refFilter(t, q, rows)
		for range 3 {
			wg.Go(func() {
				if got := ix.Filter(q); !slices.Equal(got, want) {
					t.Errorf("concurrent Filter(%q): %d rows, reference %d", qs, len(got), len(want))
				}
			})
		}
	}
	wg.Wait()
	all := make([]int, ix.Len())
	for i := range all {
		all[i] = i
	}
	for _, qs := range []string{"send", "gmail send", "timedout", "s"} {
		q, _ := Parse(qs)
		got, hidden := ix.Rank(q, all)
		want, wantHidden := refRank(ix, q, all)
		if !slices.Equal(got, want) || hidden != wantHidden {
			t.Errorf("Rank(%q) over %d rows: %d ranked, %d hidden; one scan %d, %d", qs, len(all), len(got), hidden,
				len(want), wantHidden)
		}
	}
	q, _ := Parse("user:user_1")
	if got, want := ix.Hint(q, 0), refHint(ix, &q.terms[0]); want == "" || !strings.Contains(got, want) {
		t.Errorf("Hint over %d rows = %q, want the values %q", ix.Len(), got, want)
	}
}

// A search whose context ended returns its error and no rows, and leaves the narrowing the
// next key resumes from as the last finished search left it: typing on gives the reference.
func TestAStoppedSearchLeavesNoTrace(t *testing.T) {
	rows := benchRows(3*minChunk + 5)
	ix := NewIndex(len(rows))
	for _, f := range rows {
		ix.AppendFields(f)
	}
	g, _ := Parse("g")
	gm, _ := Parse("gm")
	gms, _ := Parse("gms")
	first := ix.Filter(g)
	last := ix.last
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := ix.FilterContext(stopped, gm, first); err == nil || got != nil {
		t.Fatalf("a stopped search gave %d rows, error %v", len(got), err)
	}
	if got, _, err := ix.RankContext(stopped, gm, first); err == nil || got != nil {
		t.Fatalf("a stopped ranking gave %d rows, error %v", len(got), err)
	}
	if ix.last != last {
		t.Fatal("a stopped search replaced the narrowing the next key resumes from")
	}
	got, err := ix.FilterContext(context.Background(), gm, first)
	if err != nil || !slices.Equal(got, refFilter(t, gm, rows)) {
		t.Fatalf("gm after the stopped search: %d rows, %v", len(got), err)
	}
	if got := ix.FilterFrom(got, gms); !slices.Equal(got, refFilter(t, gms, rows)) {
		t.Fatalf("gms: %d rows, reference %d", len(got), len(refFilter(t, gms, rows)))
	}
}

// refRank is Rank as one loop over rows: each row's score is the sum of its free-text terms'
// qualities, its worst their least; rows whose worst is below the best row's (a run inside a
// field at most) are cut; the rest sorted by score, stable.
func refRank(ix *Index, q Query, rows []int) ([]int, int) {
	score, worst := make([]int32, len(rows)), make([]int8, len(rows))
	best := int8(qualityAcross)
	for r, k := range rows {
		w, sum := int8(qualityWord), int32(0)
		for i := range q.terms {
			if t := &q.terms[i]; t.field == fieldText && !t.neg {
				qv := ix.quality(ix.row(k), t.pat, t.ascii)
				w, sum = min(w, qv), sum+int32(qv)
			}
		}
		score[r], worst[r] = sum, w
		best = max(best, min(w, qualityInField))
	}
	var order []int
	for r := range rows {
		if min(worst[r], qualityInField) >= best {
			order = append(order, r)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(score[b] - score[a]) })
	out := make([]int, len(order))
	for i, o := range order {
		out[i] = rows[o]
	}
	return out, len(rows) - len(order)
}

// refHint is the values a hint offers for t, counted in one loop over every row: the most
// frequent first, then in byte order, joined as the hint joins them.
func refHint(ix *Index, t *term) string {
	counts := map[string]int{}
	for k := range ix.Len() {
		if v := ix.field(k, ix.row(k), t.slot); len(v) > len(t.pat) && bytes.HasPrefix(v, t.pat) {
			counts[string(v)]++
		}
	}
	values := slices.Collect(maps.Keys(counts))
	slices.SortFunc(values, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b)) })
	return strings.Join(values[:min(suggestLimit, len(values))], ", ")
}

// --- benchmarks ---

// benchRows generates n rows deterministically: realistic tools, users, accounts, ids and a
// tenth with errors.
func benchRows(n int) []Fields {
	tools := []struct{ slug, kit, kind string }{
		{"GMAIL_SEND_EMAIL", "gmail", "write"}, {"GMAIL_REPLY_TO_THREAD", "gmail", "write"},
		{"GMAIL_CREATE_EMAIL_DRAFT", "gmail", "write"}, {"GMAIL_FETCH_EMAILS", "gmail", "read"},
		{"GMAIL_ADD_LABEL_TO_EMAIL", "gmail", "idempotent_write"}, {"GMAIL_DELETE_MESSAGE", "gmail", "write"},
		{"SLACK_SEND_MESSAGE", "slack", "write"}, {"SLACK_FETCH_CONVERSATION_HISTORY", "slack", "read"},
		{"GITHUB_CREATE_AN_ISSUE", "github", "write"}, {"GITHUB_CREATE_AN_ISSUE_COMMENT", "github", "write"},
		{"GITHUB_LIST_REPOSITORY_ISSUES", "github", "read"}, {"HUBSPOT_CREATE_CONTACT", "hubspot", "write"},
		{"HUBSPOT_SEARCH_CONTACTS", "hubspot", "read"}, {"NOTION_CREATE_PAGE", "notion", "write"},
		{"LINEAR_CREATE_LINEAR_ISSUE", "linear", "write"}, {"GOOGLECALENDAR_CREATE_EVENT", "googlecalendar", "write"},
	}
	errs := []string{"Read timed out after 60s", "connect ETIMEDOUT 142.250.1.1:443", "502 Bad Gateway from provider",
		"Rate limit exceeded", "invalid_grant: token expired", "503 Service Unavailable", "validation error: 'to' is required"}
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	const hex = "0123456789abcdef"
	rng := rand.New(rand.NewPCG(42, 6))
	rows := make([]Fields, n)
	buf := make([]byte, 0, 64)
	randStr := func(prefix, alpha string, k int) string {
		buf = append(buf[:0], prefix...)
		for range k {
			buf = append(buf, alpha[rng.IntN(len(alpha))])
		}
		return string(buf)
	}
	for i := range rows {
		tl := tools[rng.IntN(len(tools))]
		f := Fields{
			Tool: tl.slug, Toolkit: tl.kit, Kind: tl.kind,
			User:    fmt.Sprintf("user_%d", rng.IntN(5000)),
			Account: randStr("ca_", b64, 12), ID: randStr("log_", b64, 12),
			RequestID: randStr("", hex, 32), Status: "success", Outcome: "succeeded",
		}
		if rng.IntN(10) == 0 {
			f.Error, f.Status = errs[rng.IntN(len(errs))], "failed"
			f.Outcome = []string{"ambiguous", "failed", "rejected"}[rng.IntN(3)]
			f.Flagged = tl.kind != "read" && f.Outcome != "failed"
		}
		if rng.IntN(50) == 0 {
			f.Group = fmt.Sprintf("dup-%d", i)
		}
		rows[i] = f
	}
	return rows
}

// keystrokes expands typed queries into what is filtered after each key.
func keystrokes(typed ...string) []string {
	var out []string
	for _, s := range typed {
		for i := 1; i <= len(s); i++ {
			out = append(out, s[:i])
		}
	}
	return out
}

var benchQueries = []string{"gmsend", "user:42", "timedout"}

// BenchmarkFilter1M types each query one key at a time over 1M rows, narrowing from the
// previous result when the query only grew (as the TUI does). It reports the mean and the
// p95 time per keystroke.
func BenchmarkFilter1M(b *testing.B) {
	rows := benchRows(1_000_000)
	ix := NewIndex(len(rows))
	for _, f := range rows {
		ix.AppendFields(f)
	}
	perRow := float64(ix.Size()) / float64(ix.Len())
	for _, typed := range benchQueries {
		keys := keystrokes(typed)
		b.Run(typed, func(b *testing.B) {
			var times []float64
			for b.Loop() {
				var prevQ Query
				var prev []int
				for _, k := range keys {
					start := time.Now()
					q, err := Parse(k)
					if err != nil {
						b.Fatal(err)
					}
					if prev != nil && q.Refines(prevQ) {
						prev = ix.FilterFrom(prev, q)
					} else {
						prev = ix.Filter(q)
					}
					prevQ = q
					times = append(times, float64(time.Since(start))/1e6)
				}
			}
			reportKeystrokes(b, times)
			b.ReportMetric(perRow, "index-B/row")
		})
	}
}

// BenchmarkSahilmFuzzy1M runs sahilm/fuzzy's Find over the same rows' haystacks for the
// same keystrokes (the query text as typed: sahilm has no field terms).
func BenchmarkSahilmFuzzy1M(b *testing.B) {
	rows := benchRows(1_000_000)
	hay := make([]string, len(rows))
	for i, f := range rows {
		hay[i] = Haystack(f)
	}
	for _, typed := range benchQueries {
		keys := keystrokes(typed)
		b.Run(typed, func(b *testing.B) {
			var times []float64
			for b.Loop() {
				for _, k := range keys {
					start := time.Now()
					_ = fuzzy.Find(k, hay)
					times = append(times, float64(time.Since(start))/1e6)
				}
			}
			reportKeystrokes(b, times)
		})
	}
}

func reportKeystrokes(b *testing.B, ms []float64) {
	if len(ms) == 0 {
		return
	}
	sum := 0.0
	for _, v := range ms {
		sum += v
	}
	s := slices.Clone(ms)
	slices.Sort(s)
	b.ReportMetric(sum/float64(len(ms)), "ms/key")
	b.ReportMetric(s[(len(s)*95+99)/100-1], "p95-ms/key")
}

// TestViewEqualsReference: a view over some of the rows in another order, with the group
// field given beside the rows, filters (and narrows, typing resumed) exactly as the reference
// does over those rows in that order with those groups; rows appended after the view was made
// stay out of it.
func TestViewEqualsReference(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		rows := rapid.SliceOfN(genFields, 0, 30).Draw(rt, "rows")
		var ix Index
		for _, f := range rows {
			f.Group = "" // as a streaming load appends them: the groups come later
			ix.AppendFields(f)
		}
		perm := rapid.Permutation(func() []int32 {
			p := make([]int32, len(rows))
			for i := range p {
				p[i] = int32(i)
			}
			return p
		}()).Draw(rt, "order")
		order := perm[:rapid.IntRange(0, len(perm)).Draw(rt, "keep")]
		groupIDs := []string{"dup-1", "dup-Σ", "DUP-x"}
		groupOf := make([]int32, len(order))
		seen := make([]Fields, len(order)) // the rows as the view sees them
		for k, r := range order {
			groupOf[k] = int32(rapid.IntRange(-1, len(groupIDs)-1).Draw(rt, "group"))
			seen[k] = rows[r]
			seen[k].Group = ""
			if g := groupOf[k]; g >= 0 {
				seen[k].Group = groupIDs[g]
			}
		}
		v := ix.View(order, groupOf, groupIDs, nil)
		ix.AppendFields(Fields{Tool: "appended later", Group: "dup-1"}) // not in v
		if v.Len() != len(order) {
			rt.Fatalf("view of %d positions has Len %d", len(order), v.Len())
		}
		qs := genQuery(rt, seen)
		q, err := Parse(qs)
		if err != nil {
			rt.Fatalf("Parse(%q): %v", qs, err)
		}
		want := refFilter(nil, q, seen)
		got := v.Filter(q)
		if !slices.Equal(got, want) && len(got)+len(want) > 0 {
			rt.Fatalf("query %q: view %v, reference %v", qs, got, want)
		}
		// Typing one more character narrows from the last result (the resumable path).
		more := qs + "e"
		if q2, err := Parse(more); err == nil && q2.Refines(q) {
			want2 := refFilter(nil, q2, seen)
			if got2 := v.FilterFrom(got, q2); !slices.Equal(got2, want2) && len(got2)+len(want2) > 0 {
				rt.Fatalf("query %q from %q: view %v, reference %v", more, qs, got2, want2)
			}
		}
	})
}

// BenchmarkRankMaxRanked ranks up to 150,000 matches (the TUI's cap for a best-match order,
// window.MaxRanked) of a 1-character query (every row a whole pass over its names) and of a
// scattered one (every row down to the per-field subsequence: the costliest case).
func BenchmarkRankMaxRanked(b *testing.B) {
	rows := benchRows(400_000)
	var ix Index
	for _, f := range rows {
		ix.AppendFields(f)
	}
	for _, text := range []string{"s", "gmsend"} {
		b.Run(text, func(b *testing.B) {
			q, err := Parse(text)
			if err != nil {
				b.Fatal(err)
			}
			match := ix.Filter(q)
			if len(match) < 20_000 {
				b.Fatalf("%d matches", len(match))
			}
			match = match[:min(len(match), 150_000)] // above window.MaxRanked: the cap's cost with room
			for b.Loop() {
				if got, hidden := ix.Rank(q, match); len(got)+hidden != len(match) {
					b.Fatalf("%d ranked, %d hidden", len(got), hidden)
				}
			}
			b.ReportMetric(float64(len(match)), "matches")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/rank")
		})
	}
}

// Typing into a negated term widens the result ("-gm" excludes more than "-gmail"): it must
// not count as narrowing, or a filter searched within the last result would lose rows; and
// extending a negated term never takes the resume fast path. The reverse (a negated term made
// shorter) does narrow.
func TestNegationDoesNotNarrow(t *testing.T) {
	mustParse := func(s string) Query {
		q, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	for _, tt := range []struct {
		prev, q string
		refines bool
	}{
		{"-gm", "-gmail", false},
		{"slack -gm", "slack -gmail", false},
		{"-status:fail", "-status:failed", false},
		{"-gmail", "-gm", true},
		{"gm", "gmail", true},
		{"gm", "gm -slack", true},
		{"gm -slack", "gm", false},
	} {
		if got := mustParse(tt.q).Refines(mustParse(tt.prev)); got != tt.refines {
			t.Errorf("%q refines %q = %v, want %v", tt.q, tt.prev, got, tt.refines)
		}
	}
	// End to end, as the TUI does it: search within the last result only when the query
	// refines it; either way the rows are those of a search from scratch.
	rows := []Row{}
	for _, tool := range []string{"GMAIL_SEND_EMAIL", "GMAIL_FETCH_EMAILS", "SLACK_SEND_MESSAGE", "GITHUB_CREATE_AN_ISSUE"} {
		rows = append(rows, Row{Exec: &model.Execution{ID: "log_" + tool, ToolSlug: tool}, Triage: &model.Triage{}})
	}
	ix := NewIndex(len(rows))
	for _, r := range rows {
		ix.Append(r)
	}
	for _, step := range [][2]string{{"-gm", "-gmail"}, {"-gmail", "-gm"}, {"gm", "gmail"}, {"gm -sl", "gm -slack"}} {
		prevQ, q := mustParse(step[0]), mustParse(step[1])
		prev := ix.Filter(prevQ)
		var got []int
		if q.Refines(prevQ) {
			got = ix.FilterFrom(prev, q)
		} else {
			got = ix.Filter(q)
		}
		if want := ix.Filter(q); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q after %q: %v, want %v", step[1], step[0], got, want)
		}
	}
}

// pattern: matches a row by its duplicate group's cause, through a view that knows the
// groups; a typo in the pattern vocabulary is refused with the closest one.
func TestPatternField(t *testing.T) {
	ix := NewIndex(4)
	for _, tool := range []string{"GMAIL_SEND_EMAIL", "SLACK_SEND_MESSAGE", "GMAIL_SEND_EMAIL", "GITHUB_CREATE_AN_ISSUE"} {
		ix.AppendFields(Fields{Tool: tool})
	}
	v := ix.View([]int32{0, 1, 2, 3}, []int32{0, 1, 0, -1}, []string{"dup-a", "dup-b"}, []string{"agent_retry", "sdk_auto_retry"})
	for _, tt := range []struct {
		q    string
		want []int
	}{
		{"pattern:agent_retry", []int{0, 2}},
		{"pattern:sdk", []int{1}},
		{"-pattern:agent gmail", []int{}},
		{"pattern:retry -pattern:agent", []int{1}},
	} {
		q, err := Parse(tt.q)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.q, err)
		}
		if got := v.Filter(q); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.q, got, tt.want)
		}
	}
	if got := ix.Filter(mustParse(t, "pattern:agent_retry")); len(got) != 0 {
		t.Errorf("an index that does not know the groups matched a pattern: %v", got)
	}
	_, err := Parse("pattern:agnet_retry")
	if err == nil || !strings.Contains(err.Error(), "did you mean pattern:agent_retry?") {
		t.Errorf("pattern typo: %v", err)
	}
}

func mustParse(t *testing.T, s string) Query {
	t.Helper()
	q, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// Reserve makes room for rows at once: appending them moves no row metadata, and the index
// filters as one grown row by row does.
func TestReserve(t *testing.T) {
	ix, grown := NewIndex(0), NewIndex(0)
	ix.Reserve(5000)
	rows := unsafe.SliceData(ix.rows)
	for i := range 5000 {
		f := Fields{Tool: fmt.Sprintf("GMAIL_SEND_EMAIL_%d", i), User: fmt.Sprintf("user_%d", i%17)}
		ix.AppendFields(f)
		grown.AppendFields(f)
	}
	if unsafe.SliceData(ix.rows) != rows {
		t.Error("the rows moved while appending the 5000 room was made for")
	}
	q, _ := Parse("send user:user_3")
	if got, want := ix.Filter(q), grown.Filter(q); len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("Filter = %d rows, %d without Reserve", len(got), len(want))
	}
}

// An index whose text arena is full (4 GB: no TUI gets there, but it must not break) indexes
// further rows without their text: they are there, found by no text term, and nothing panics.
func TestAFullArenaIndexesRowsWithoutText(t *testing.T) {
	ix := NewIndex(0)
	ix.AppendFields(Fields{Tool: "GMAIL_SEND_EMAIL", ID: "log_before"})
	ix.blocks = append(ix.blocks, make([][]byte, maxBlocks-len(ix.blocks))...) // as if full: empty blocks to the limit
	ix.fill = 0
	ix.AppendFields(Fields{Tool: "GMAIL_SEND_EMAIL", ID: "log_after"})
	if n := len(ix.rows); n != 2 {
		t.Fatalf("%d rows", n)
	}
	q, err := Parse("gmail")
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.Filter(q); len(got) != 1 || got[0] != 0 {
		t.Errorf("gmail finds %v, want the row indexed before the arena filled", got)
	}
}

// TestKindSelectsRowsOfTheirOwnKind: the README calls trigger deliveries
// rows of their own kind, but no kind: term selected them (triage counts them as reads).
// kind:delivery selects the trigger deliveries, kind:event the account events, and kind:read
// still holds them with the tools' reads.
func TestKindSelectsRowsOfTheirOwnKind(t *testing.T) {
	rows := sampleRows()
	read := model.Triage{Kind: model.KindRead, Outcome: model.OutcomeSucceeded}
	rows = append(rows,
		Row{Exec: &model.Execution{ID: "log_e5", Type: model.TypeTriggerMessage, ToolSlug: "GMAIL_NEW_GMAIL_MESSAGE", Status: "success"}, Triage: &read},
		Row{Exec: &model.Execution{ID: "log_f6", Type: model.TypeAccountCreated, ToolkitSlug: "gmail", Status: "success"}, Triage: &read})
	var ix Index
	ix.Append(rows...)
	for q, want := range map[string][]int{
		"kind:delivery":   {4},
		"kind:event":      {5},
		"kind:read":       {1, 4, 5},
		"-kind:delivery":  {0, 1, 2, 3, 5},
		"kind:write":      {0, 2, 3},
		"kind:deliv gmai": {4},
	} {
		pq, err := Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		if got := ix.Filter(pq); !slices.Equal(got, want) {
			t.Errorf("Filter(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestHintSaysWhatATypedQueryDoesNotShow: the list went empty while an
// identifier term was typed (tool:GMAIL_S, a pasted first block of a request id) and user:
// with no value matched everything, neither with a word. Hint says so, names the values that
// start so (most frequent first, in the case typed), and offers the '*'.
func TestHintSaysWhatATypedQueryDoesNotShow(t *testing.T) {
	ix := NewIndex(0)
	for _, f := range []Fields{
		{Tool: "GMAIL_SEND_EMAIL", RequestID: "381b6746-aaaa"}, {Tool: "GMAIL_SEND_EMAIL"}, {Tool: "GMAIL_SEND_EMAIL"},
		{Tool: "GMAIL_SEARCH_PEOPLE", RequestID: "381b6746-bbbb"}, {Tool: "GMAIL_FETCH_EMAILS"}, {Tool: "SLACK_SEND_MESSAGE", User: "ann"},
	} {
		ix.AppendFields(f)
	}
	for k := range 7 {
		ix.AppendFields(Fields{Tool: fmt.Sprintf("NOTION_TOOL_%d", k)})
	}
	for _, tt := range []struct {
		ix      *Index
		q       string
		matched int
		want    string
	}{
		{ix, "tool:GMAIL_S", 0, "tool:GMAIL_S is a whole value and none is; tool:GMAIL_S* matches those that start so: GMAIL_SEND_EMAIL, GMAIL_SEARCH_PEOPLE"},
		{ix, "tool:gmail_s", 0, "tool:gmail_s* matches those that start so: gmail_send_email, gmail_search_people"},
		{ix, "request:381b6746", 0, "request:381b6746* matches those that start so: 381b6746-aaaa, 381b6746-bbbb"},
		{ix, "tool:NOTION_TOOL_", 0, "NOTION_TOOL_0, NOTION_TOOL_1, NOTION_TOOL_2, NOTION_TOOL_3, NOTION_TOOL_4, …"},
		{ix, "tool:ZOOM", 0, "tool:ZOOM is a whole value and none is, nor starts so"},
		{nil, "tool:GMAIL_S", 0, "tool:GMAIL_S is a whole value and none is, nor starts so"},
		{ix, "slack user:", 12, "user: has no value yet: it matches every row"},
		{ix, "-User:", 3, "user: has no value yet"},
		{ix, "tool:GMAIL_SEND_EMAIL", 4, ""},
		{ix, "tool:GMAIL_S*", 0, ""},
		{ix, "gmsnd", 0, ""},
		{ix, "-tool:X", 0, ""},
		{ix, "status:fail", 0, ""},
	} {
		q, err := Parse(tt.q)
		if err != nil {
			t.Fatal(err)
		}
		got := tt.ix.Hint(q, tt.matched)
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("Hint(%q, %d) = %q, want %q", tt.q, tt.matched, got, tt.want)
		}
	}
}

// The coded fields (status, outcome, kind) hold a byte a row, not their text, and still match
// as text does; past maxCodes values in all, a row keeps its text and matches the same.
func TestCodedFieldsMatchAsText(t *testing.T) {
	var ix Index
	var rows []Fields
	for i := range maxCodes + 40 {
		f := Fields{Tool: "GMAIL_SEND_EMAIL", ID: fmt.Sprintf("log_%d", i), Status: fmt.Sprintf("State%d", i%(maxCodes+20)),
			Outcome: "Succeeded", Kind: "write"}
		if i%7 == 0 {
			f.Outcome, f.Kind = "ambiguous", ""
		}
		rows = append(rows, f)
		ix.AppendFields(f)
	}
	filtersAsTheReference(t, &ix, rows, "status:state1", "status:state27*", "status:*0", "outcome:succeeded", "outcome:ambiguous",
		"kind:write", "-kind:write", "status:state275", "status:state290 outcome:ambiguous", "outcome:failed")
	// A row of the common values takes three bytes for the three, not their text.
	var small, plain Index
	small.AppendFields(Fields{Tool: "T", Status: "success", Outcome: "succeeded", Kind: "write"})
	plain.AppendFields(Fields{Tool: "T"})
	if got, want := small.fill-plain.fill, 3; got != want {
		t.Errorf("the coded fields took %d bytes of the arena, want %d", got, want)
	}
}

// A trace id of lowercase hex (any case, folded) is kept two digits a byte and matches as its
// text does: whole, prefix, suffix, presence; one that is not hex keeps its text.
func TestPackedTraceIDsMatchAsText(t *testing.T) {
	var ix Index
	rows := []Fields{
		{Tool: "T", Trace: "b17a781bf8b49a37202f2d3900cd8ac5"},
		{Tool: "T", Trace: "B17A781BF8B49A37202F2D3900CD8AC5"},
		{Tool: "T", Trace: "tr_abc123"},
		{Tool: "T", Trace: "abc"},
		{Tool: "T"},
		{Tool: "T", Trace: "00ff"},
	}
	for _, f := range rows {
		ix.AppendFields(f)
	}
	filtersAsTheReference(t, &ix, rows, "trace:b17a781bf8b49a37202f2d3900cd8ac5", "trace:b17a*", "trace:*8ac5", "trace:tr_abc123",
		"trace:abc", "trace:00ff", "trace:00*", "trace:*", "-trace:*", "trace:b17a781bf8b49a37202f2d3900cd8ac")
	var packed, text Index
	packed.AppendFields(Fields{Tool: "T", Trace: "b17a781bf8b49a37202f2d3900cd8ac5"})
	text.AppendFields(Fields{Tool: "T", Trace: "tr_b17a781bf8b49a37202f2d3900cd8"})
	if got, want := text.fill-packed.fill, 16; got != want {
		t.Errorf("a 32-digit trace id took %d bytes less than 32 letters, want %d", got, want)
	}
}

// filtersAsTheReference checks that ix, over rows, keeps what the reference filter keeps for
// each query.
func filtersAsTheReference(t *testing.T, ix *Index, rows []Fields, queries ...string) {
	t.Helper()
	for _, qs := range queries {
		q, err := Parse(qs)
		if err != nil {
			t.Fatal(err)
		}
		want := refFilter(t, q, rows)
		if got := ix.Filter(q); !slices.Equal(got, want) {
			t.Errorf("%q: index %v, reference %v", qs, got, want)
		}
	}
}
