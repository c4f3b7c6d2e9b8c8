package triage

import (
	"encoding/json"
	"testing"

	"github.com/exectriage/exectriage/model"
)

func TestLiftNested(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a message object and its body", `{"message":{"subject":"Order 42","body":{"contentType":"Text","content":"It shipped."},` +
			`"toRecipients":[{"emailAddress":{"address":"a@x.org"}}]},"saveToSentItems":true}`,
			`{"subject":"Order 42","contentType":"Text","content":"It shipped.","toRecipients":[{"emailAddress":{"address":"a@x.org"}}],` +
				`"saveToSentItems":true}`},
		{"a row as named values", `{"database_id":"d1","properties":[{"name":"Name","type":"title","value":"Call Ana"},` +
			`{"name":"Status","type":"select","value":"To do"}]}`,
			`{"database_id":"d1","Name":"Call Ana","Status":"To do"}`},
		{"a row as an object", `{"database_id":"d1","row_data":{"Name":"Call Ana","Status":"To do"}}`,
			`{"database_id":"d1","Name":"Call Ana","Status":"To do"}`},
		{"a name taken twice keeps its path", `{"subject":"A","message":{"subject":"B","body":"text"}}`,
			`{"subject":"A","message.subject":"B","body":"text"}`},
		{"objects without words stay values", `{"to":"a@x.org","attendees":[{"email":"b@x.org"}],"start":{"dateTime":"2026-03-14T09:00:00Z"}}`,
			`{"to":"a@x.org","attendees":[{"email":"b@x.org"}],"start":{"dateTime":"2026-03-14T09:00:00Z"}}`},
		{"a list of named values without words stays", `{"filters":[{"name":"status","value":"open"}]}`, `{"filters":[{"name":"status","value":"open"}]}`},
		{"not an object", `[1,2]`, `[1,2]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(liftNested(json.RawMessage(tt.in))); got != tt.want {
				t.Errorf("liftNested(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

// TestAWrapperIsReadAsItsArguments: a write whose arguments sit in a wrapper (a mail API's
// message object, a row's columns as an object or as named values) is grouped as the flat
// write is: the subject and the text inside it are a heading and a text, reworded after a
// failure; its recipients still identify it. Both paths.
func TestAWrapperIsReadAsItsArguments(t *testing.T) {
	msg := func(to, subject, text string) string {
		return `{"message":{"subject":"` + subject + `","body":{"contentType":"Text","content":"` + text + `"},` +
			`"toRecipients":[{"emailAddress":{"address":"` + to + `"}}]}}`
	}
	for _, tt := range []struct {
		name, tool, first, second string
		groups                    int
	}{
		{"the message reworded", "OUTLOOK_SEND_MAIL", msg("ana@x.org", "Order 78274", "Hi Ana, your order 78274 shipped and arrives Tuesday."),
			msg("ana@x.org", "Your order 78274", "Ana, we shipped order 78274 today. It arrives by Tuesday."), 1},
		{"the message to someone else", "OUTLOOK_SEND_MAIL", msg("ana@x.org", "Order 78274", "Hi Ana, your order 78274 shipped and arrives Tuesday."),
			msg("bob@x.org", "Your order 78274", "Ana, we shipped order 78274 today. It arrives by Tuesday."), 0},
		{"a row in the other shape, reworded", "NOTION_INSERT_ROW_DATABASE",
			`{"database_id":"d1","properties":[{"name":"Name","type":"title","value":"Call Ana about order 78274"},` +
				`{"name":"Notes","type":"rich_text","value":"Ana asked about order 78274; call back before Friday."}]}`,
			`{"database_id":"d1","row_data":{"Name":"Follow up with Ana: order 78274","Notes":"Phone Ana about order 78274 before Friday."}}`, 1},
		{"a row in another database", "NOTION_INSERT_ROW_DATABASE",
			`{"database_id":"d1","row_data":{"Name":"Call Ana about order 78274","Notes":"Ana asked about order 78274; call back before Friday."}}`,
			`{"database_id":"d2","row_data":{"Name":"Follow up with Ana: order 78274","Notes":"Phone Ana about order 78274 before Friday."}}`, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := attempt{id: "a", at: sec(0), dur: sec(1), retry: -1, args: tt.first, account: "ca_1", err: gatewayErr}
			b := attempt{id: "b", at: sec(20), dur: sec(1), retry: -1, args: tt.second, account: "ca_1"}
			execs := []model.Execution{b.exec(), a.exec()}
			for i := range execs {
				execs[i].ToolSlug = tt.tool
			}
			for _, res := range []*Result{Analyze(execs, NewKinds(), Options{}), analyzeReference(execs, NewKinds(), Options{})} {
				if len(res.Groups) != tt.groups {
					t.Fatalf("%d groups, want %d: %+v", len(res.Groups), tt.groups, res.Groups)
				}
				if tt.groups == 1 && res.Groups[0].Pattern != model.PatternAgentRetry {
					t.Fatalf("%s: %s, want agent_retry", res.Groups[0].Pattern, res.Groups[0].Reason)
				}
			}
		})
	}
}

// FuzzLiftNested: lifting never panics, and arguments that are JSON stay JSON.
func FuzzLiftNested(f *testing.F) {
	for _, s := range []string{`{"message":{"subject":"a","body":{"content":"b"}}}`, `{"p":[{"name":"Name","value":"x"}]}`,
		`{"a":{"title":"x","a":{"title":"y"}}}`, `{"a":[{"key":"Name","value":{"text":"x"}}]}`, `{"\u0061":{"name":"x"}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := liftNested(json.RawMessage(in))
		if json.Valid([]byte(in)) && !json.Valid(out) {
			t.Fatalf("liftNested(%s) = %s: not JSON", in, out)
		}
	})
}
