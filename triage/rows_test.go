package triage

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/exectriage/exectriage/model"
)

// Rows appended are content: out of the identity (where they go is), into the text, one line a
// row; the same rows written with other number and date formats carry the same facts, other
// rows other facts.
func TestRowsAreContentComparedByTheirFacts(t *testing.T) {
	skip := skipSet(model.DefaultVolatileKeys())
	split := func(args string) effectArgs {
		t.Helper()
		q, ok := splitArgsQuick(json.RawMessage(args), skip, nil)
		s, _ := splitArgsSlow(json.RawMessage(args), model.DefaultVolatileKeys(), skip, nil)
		if !ok || string(q.identity) != string(s.identity) || q.rawText != s.rawText {
			t.Fatalf("%s: quick %q %q, slow %q %q", args, q.identity, q.rawText, s.identity, s.rawText)
		}
		return q
	}
	a := split(`{"spreadsheetId":"1Bx","range":"Orders!A:D","values":[["2026-03-14","Dana","A-78274","1,234.50"],["2026-03-14","Tom","A-78275","80.00"]]}`)
	b := split(`{"spreadsheetId":"1Bx","range":"Orders!A:D","values":[["03/14/2026","Dana","A-78274",1234.5],["03/14/2026","Tom","A-78275",80]]}`)
	c := split(`{"spreadsheetId":"1Bx","range":"Orders!A:D","values":[["2026-03-15","Omar","A-78290","99.00"]]}`)
	if string(a.identity) != string(b.identity) || string(a.identity) != string(c.identity) || !slices.Equal(a.textKeys, []string{"values"}) {
		t.Fatalf("the rows are in the identity: %q / %q, text keys %v", a.identity, b.identity, a.textKeys)
	}
	if a.rawText != "2026-03-14 | Dana | A-78274 | 1,234.50\n2026-03-14 | Tom | A-78275 | 80.00\n\n" {
		t.Errorf("rows as text: %q", a.rawText)
	}
	sa, sb, sc := signatureOf(a), signatureOf(b), signatureOf(c)
	if !sameEntities(&sa, &sb) {
		t.Errorf("one set of rows reformatted carries other facts: %v / %v", sa.factsOf(), sb.factsOf())
	}
	if sameEntities(&sa, &sc) {
		t.Errorf("other rows carry the same facts: %v / %v", sa.factsOf(), sc.factsOf())
	}
	if _, ok := rowsOf(model.ArgMember{Key: "values", Raw: json.RawMessage(`"not a list"`), IsStr: true, Str: "not a list"}); ok {
		t.Error("a string under a rows name was taken for rows")
	}
}
