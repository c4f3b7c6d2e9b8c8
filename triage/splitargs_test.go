package triage

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/exectriage/exectriage/model"
)

// jsonValue draws a JSON text: objects and arrays nested a few levels, strings with escapes,
// HTML characters, non-ASCII and invalid UTF-8, numbers in every form, literals, random
// whitespace, and now and then a key written twice.
func jsonValue(t *rapid.T, depth int, label string) string {
	ws := func() string {
		return rapid.SampledFrom([]string{"", "", " ", "\n", "\t ", "\r\n"}).Draw(t, label+"ws")
	}
	kind := rapid.IntRange(0, 9).Draw(t, label+"kind")
	if depth >= 3 && kind >= 7 {
		kind = 0
	}
	if depth == 0 && kind != 9 {
		kind = 7 // mostly objects at the top, as arguments are
	}
	switch kind {
	case 0, 1:
		return jsonString(t, label+"s")
	case 2:
		return rapid.SampledFrom([]string{"0", "-0", "1", "42", "-7", "1.0", "1.5", "1e3", "1E-2", "2.50", "12345678901234567890", "9007199254740993", "1e400", "-0.0", "3.14159e+2"}).Draw(t, label+"n")
	case 3:
		return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, label+"lit")
	case 4, 5, 6:
		return jsonString(t, label+"s2")
	case 7, 8:
		n := rapid.IntRange(0, 4).Draw(t, label+"len")
		keys := []string{"to", "subject", "body", "Body", "text", "channel", "id", "n", "nonce", "Timestamp", "x<y", "é", "a\"b", "deep",
			"email", "phone", "start_datetime", "attendees", "title", "firstname", "values", "rows"} // what pins a target, rows (pinned.go, rows.go)
		var parts []string
		for i := range n {
			k := rapid.SampledFrom(keys).Draw(t, fmt.Sprintf("%sk%d", label, i))
			kj, _ := json.Marshal(k)
			if rapid.IntRange(0, 9).Draw(t, fmt.Sprintf("%sesc%d", label, i)) == 0 {
				kj = []byte(`"` + strings.ReplaceAll(k, "o", `\u006f`) + `"`)
			}
			parts = append(parts, ws()+string(kj)+ws()+":"+ws()+jsonValue(t, depth+1, fmt.Sprintf("%sv%d", label, i))+ws())
		}
		return "{" + strings.Join(parts, ",") + "}"
	default:
		n := rapid.IntRange(0, 3).Draw(t, label+"alen")
		var parts []string
		for i := range n {
			parts = append(parts, ws()+jsonValue(t, depth+1, fmt.Sprintf("%sa%d", label, i))+ws())
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
}

func jsonString(t *rapid.T, label string) string {
	return rapid.SampledFrom([]string{
		`""`, `"hello"`, `"u1@example.com"`, `"Hi <b>there</b> & you"`, `"line\nbreak"`, `"tab\tx"`, `"quote \" in"`,
		`"\u00e9t\u00e9"`, `"été"`, `"emoji 🎉"`, "\"bad \xff utf8\"", `"\ud800 lone"`, `"\u2028 sep"`, `"back\\slash"`,
		`"` + strings.Repeat("long text words ", 10) + `"`, `"C:\/path"`,
		`"2026-03-14T15:00:00Z"`, `"2026-03-14T11:00:00-04:00"`, `"+1 (415) 555-0134"`, `"U1@Example.com"`,
	}).Draw(t, label)
}

// The quick path gives exactly what encoding/json's does, whenever it answers at all.
func TestSplitArgsQuickMatchesSlow(t *testing.T) {
	volatile := model.DefaultVolatileKeys()
	skip := skipSet(volatile)
	quick := 0
	rapid.Check(t, func(rt *rapid.T) {
		args := jsonValue(rt, 0, "")
		switch rapid.IntRange(0, 19).Draw(rt, "mutate") {
		case 0:
			args += " x"
		case 1:
			args += "}"
		case 2:
			args = strings.Replace(args, ":", "::", 1)
		case 3:
			args = strings.Replace(args, "}", ",}", 1)
		}
		compareSplit(rt, args, volatile, skip, &quick)
	})
	if quick == 0 {
		t.Fatal("the quick path never answered")
	}
	t.Logf("the quick path answered %d times", quick)
}

func compareSplit(rt *rapid.T, args string, volatile []string, skip map[string]bool, quick *int) {
	q, qok := splitArgsQuick(json.RawMessage(args), skip, nil)
	if !qok {
		return
	}
	*quick++
	s, sok := splitArgsSlow(json.RawMessage(args), volatile, skip, nil)
	if !sok {
		rt.Fatalf("%s: the quick path accepted what encoding/json refuses", args)
	}
	if string(q.identity) != string(s.identity) || !reflect.DeepEqual(q.keys, s.keys) || !reflect.DeepEqual(q.textKeys, s.textKeys) || q.rawText != s.rawText || q.pinned != s.pinned {
		rt.Fatalf("%s:\nquick %q %q %q %q %v\nslow  %q %q %q %q %v", args, q.identity, q.keys, q.textKeys, q.rawText, q.pinned, s.identity, s.keys, s.textKeys, s.rawText, s.pinned)
	}
}

// Realistic arguments (what the bench data and Composio's tools send) take the quick path,
// and agree with the slow one.
func TestSplitArgsQuickTakesRealArguments(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	volatile := model.DefaultVolatileKeys()
	skip := skipSet(volatile)
	for i := range 2000 {
		args := fmt.Sprintf(`{"recipient_email":"user%d@example.com","subject":"Invoice %d","body":"Hello,\n\nplease find the invoice for order %d attached. Thanks!","cc":["a@example.com","b@example.com"],"is_html":%v,"attachment":{"name":"inv-%d.pdf","size":%d.0},"nonce":"%x"}`,
			r.IntN(100), i, r.IntN(1e6), r.IntN(2) == 0, i, r.IntN(1e5), r.Uint64())
		q, ok := splitArgsQuick(json.RawMessage(args), skip, nil)
		if !ok {
			t.Fatalf("%s: the quick path gave up", args)
		}
		s, _ := splitArgsSlow(json.RawMessage(args), volatile, skip, nil)
		if string(q.identity) != string(s.identity) || q.rawText != s.rawText || !reflect.DeepEqual(q.keys, s.keys) {
			t.Fatalf("%s:\nquick %q %q\nslow  %q %q", args, q.identity, q.rawText, s.identity, s.rawText)
		}
	}
}

func FuzzSplitArgsQuick(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"to":"x","body":"long\ntext","n":1.0}`, `{"a":{"b":[1,2,{"nonce":3}]}}`, `{"a":1,"a":2}`, `{"a":"\u00e9"}`, "{\"a\":\"\xff\"}", `[1]`, `{"a":1e400}`,
		`{"p":{"b":"\u0041bc"}}`, `{"p":{"b":"Étienne","n":"1250.00"}}`, `{"p":["#General","2026-03-04T00:00:00Z"]}`,
		`{"spreadsheetId":"1","SheetName":"a"}`, `{"user_id":"1","userId":"2"}`, `{"to":4155550123,"to_number":"07700900123"}`,
		`{"embeds":[{"title":"T","description":"a notice of some length","color":5}],"channel_id":"9"}`,
		`{"head":"fix/a","base":"main","title":"Fix a","body":"Fixes a."}`, `{"source_branch":"x","targetRefName":"y","title":"T"}`} {
		f.Add(s)
	}
	volatile := model.DefaultVolatileKeys()
	skip := skipSet(volatile)
	f.Fuzz(func(t *testing.T, args string) {
		q, qok := splitArgsQuick(json.RawMessage(args), skip, nil)
		if !qok {
			return
		}
		s, sok := splitArgsSlow(json.RawMessage(args), volatile, skip, nil)
		if !sok || string(q.identity) != string(s.identity) || !reflect.DeepEqual(q.keys, s.keys) || !reflect.DeepEqual(q.textKeys, s.textKeys) || q.rawText != s.rawText {
			t.Fatalf("%q:\nquick %v %q %q %q %q\nslow  %v %q %q %q %q", args, qok, q.identity, q.keys, q.textKeys, q.rawText, sok, s.identity, s.keys, s.textKeys, s.rawText)
		}
	})
}

// A text sent as a JSON document (Slack's blocks) is read by its text leaves, on both paths,
// however short; a JSON string with no text leaves (a filter) is no text and stays identity.
func TestADocumentIsReadByItsText(t *testing.T) {
	skip := skipSet(model.DefaultVolatileKeys())
	for _, tt := range []struct {
		args     string
		text     string // in rawText
		identity string // in identity
	}{
		{`{"channel":"C1","blocks":"[{\"type\":\"section\",\"text\":{\"type\":\"mrkdwn\",\"text\":\"Order 33526 shipped.\"}}]"}`,
			"Order 33526 shipped.", `"channel":"c1"`},
		{`{"channel":"C1","filter":"{\"status\":\"open\",\"team\":\"ops\"}"}`, "", `"filter"`},
	} {
		q, ok := splitArgsQuick(json.RawMessage(tt.args), skip, nil)
		s, _ := splitArgsSlow(json.RawMessage(tt.args), model.DefaultVolatileKeys(), skip, nil)
		if !ok || q.rawText != s.rawText || string(q.identity) != string(s.identity) {
			t.Fatalf("%s: quick %q %s, slow %q %s", tt.args, q.rawText, q.identity, s.rawText, s.identity)
		}
		if !strings.Contains(q.rawText, tt.text) || strings.Contains(q.rawText, "mrkdwn") || !strings.Contains(string(q.identity), tt.identity) {
			t.Errorf("%s: text %q, identity %s", tt.args, q.rawText, q.identity)
		}
	}
}

// What tags, assigns or ranks a thing made of words (an issue's labels and assignees) is no part
// of where it goes; on an action on a thing named by ids (a label added to a message) it is the
// action. Both paths.
func TestAttributesOfAThingMadeOfWords(t *testing.T) {
	id := func(args string) string { return identityBothPaths(t, args) }
	if a, b := id(`{"owner":"acme","repo":"api","title":"Checkout fails","body":"Order 42609 fails."}`),
		id(`{"owner":"acme","repo":"api","title":"Checkout broken","body":"Order 42609 cannot check out.","labels":["bug","p1"],"assignees":["dana"],"milestone":4}`); a != b {
		t.Errorf("an issue filed again with labels: two identities %s, %s", a, b)
	}
	if a, b := id(`{"message_id":"m1","label_ids":["STARRED"]}`), id(`{"message_id":"m1","label_ids":["IMPORTANT"]}`); a == b {
		t.Errorf("two labels added to one message: one identity %s", a)
	}
	if a, b := id(`{"owner":"acme","repo":"api","title":"Checkout fails"}`), id(`{"owner":"acme","repo":"web","title":"Checkout fails"}`); a == b {
		t.Errorf("two repositories: one identity %s", a)
	}
	// how it is shown or announced: link previews, markup, an icon; reminders, visibility, whether
	// the guests are told; a parse mode and silent delivery
	for _, p := range [][2]string{
		{`{"channel":"C1","text":"Order 42609 shipped today."}`,
			`{"channel":"C1","text":"Order 42609 shipped today.","unfurl_links":false,"mrkdwn":true,"icon_emoji":":package:"}`},
		{`{"calendar_id":"primary","summary":"Q3 sync","start_datetime":"2026-03-14T15:00:00Z","attendees":["a@x.org"]}`,
			`{"calendar_id":"primary","summary":"Q3 sync","start_datetime":"2026-03-14T15:00:00Z","attendees":["a@x.org"],` +
				`"reminders":{"useDefault":false},"visibility":"private","send_updates":"all"}`},
		{`{"chat_id":"42","text":"Order 42609 shipped today."}`,
			`{"chat_id":"42","text":"Order 42609 shipped today.","parse_mode":"HTML","disable_notification":true}`},
	} {
		if a, b := id(p[0]), id(p[1]); a != b {
			t.Errorf("a thing shown otherwise: two identities %s, %s", a, b)
		}
	}
	// an action on a thing named by ids: what it sets is the action
	if a, b := id(`{"event_id":"e1","visibility":"private"}`), id(`{"event_id":"e1","visibility":"public"}`); a == b {
		t.Errorf("two visibilities set on one event: one identity %s", a)
	}
}

// A name in a write's identity is compared as names are: #general, General and general are one
// channel; two ids stay two. Both paths.
func TestANameIsComparedAsANameIs(t *testing.T) {
	id := func(args string) string { return identityBothPaths(t, args) }
	if a, b := id(`{"channel":"#General","text":"hi"}`), id(`{"channel":"general","text":"hello"}`); a != b {
		t.Errorf("one channel, two identities: %s, %s", a, b)
	}
	if a, b := id(`{"channel":"C0123ABC","text":"hi"}`), id(`{"channel":"C0456DEF","text":"hi"}`); a == b {
		t.Errorf("two channels, one identity: %s", a)
	}
}

// identityBothPaths is a write's identity under the default volatile keys, read by the quick
// and the slow path, which must agree.
func identityBothPaths(t *testing.T, args string) string {
	t.Helper()
	skip := skipSet(model.DefaultVolatileKeys())
	q, ok := splitArgsQuick(json.RawMessage(args), skip, nil)
	s, _ := splitArgsSlow(json.RawMessage(args), model.DefaultVolatileKeys(), skip, nil)
	if !ok || string(q.identity) != string(s.identity) {
		t.Fatalf("%s: quick %s, slow %s", args, q.identity, s.identity)
	}
	return string(q.identity)
}

// TestNamesAText: a value is decoded as a document only when one of its members is named for a
// text; the value "text" is no such name, an escaped name is left to the decoder.
func TestNamesAText(t *testing.T) {
	for raw, want := range map[string]bool{
		`[{"title":"T","description":"x","color":5}]`: true, `{"a":{"Body" : "x"}}`: true, `{"type":"text","n":1}`: false,
		`[{"amount":1250,"currency":"USD"}]`: false, `{"t\u0065xt":"x"}`: true, `[]`: false, `{"a":"unterminated`: false,
	} {
		if got := namesAText([]byte(raw)); got != want {
			t.Errorf("namesAText(%s) = %v, want %v", raw, got, want)
		}
	}
}
