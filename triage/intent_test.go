package triage

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/model"
)

// TestIntentAcrossWritings: an agent that saw an error sends the message again written another
// way, in another language, or through a sibling tool: one group, agent_retry, explained by
// the facts the two share. What is not one intent stays apart.
func TestIntentAcrossWritings(t *testing.T) {
	email := func(to, subject, body string) string {
		b, _ := json.Marshal(map[string]any{"recipient_email": to, "subject": subject, "body": body})
		return string(b)
	}
	const (
		ptBody = "Olá Ana, seu pedido A-78274 foi enviado em 14 de março. Código de rastreamento: 1Z999AA10123456784."
		enBody = "Hi Ana, your order A-78274 shipped on March 14. Tracking number: 1Z999AA10123456784."
	)
	pt := email("Ana Ruiz <ana@x.com>", "Seu pedido A-78274 foi enviado", ptBody)
	en := email("ANA@X.COM", "Your order A-78274 has shipped", enBody)
	outlook := `{"to_email":"ana@x.com","subject":"Your order A-78274 has shipped","body":` + mustJSON(enBody) + `,"is_html":false}`
	type send struct {
		tool, account, args string
		failed              bool
	}
	tests := []struct {
		name   string
		a, b   send
		group  bool
		match  string // in the group's Match
		reason string // in its Reason
	}{
		{"translated after a timeout", send{"GMAIL_SEND_EMAIL", "ca_1", pt, true}, send{"GMAIL_SEND_EMAIL", "ca_1", en, false}, true,
			"same recipients and 1Z999AA10123…, A78274, date 03-14; body/subject written in other words or another language", "agent called the tool again"},
		{"HTML after plain text", send{"GMAIL_SEND_EMAIL", "ca_1", en, true},
			send{"GMAIL_SEND_EMAIL", "ca_1", `{"recipient_email":"ana@x.com","subject":"Your order A-78274 has shipped","is_html":true,"body":"<p>Hi Ana,<br>your order <b>A-78274</b> shipped on March 14.</p><p>Tracking number: 1Z999AA10123456784.</p>"}`, false}, true,
			"", "agent called the tool again"},
		{"Outlook after Gmail failed", send{"GMAIL_SEND_EMAIL", "ca_1", pt, true}, send{"OUTLOOK_SEND_EMAIL", "ca_outlook", outlook, false}, true,
			"", "through another tool (GMAIL_SEND_EMAIL, then OUTLOOK_SEND_EMAIL)"},
		{"a draft after the send failed", send{"GMAIL_SEND_EMAIL", "ca_1", en, true}, send{"GMAIL_CREATE_EMAIL_DRAFT", "ca_1", en, false}, true,
			"", "through another tool"},
		{"Slack mrkdwn after Markdown", send{"SLACK_SEND_MESSAGE", "ca_1", `{"channel":"C1","markdown_text":"**Deploy** of ` + "`billing-api`" + ` 4512 finished: [details](https://ci.example.com/runs/4512)"}`, true},
			send{"SLACK_SEND_MESSAGE", "ca_1", `{"channel":"C1","text":"*Deploy* of ` + "`billing-api`" + ` 4512 finished: <https://ci.example.com/runs/4512|details>"}`, false}, true,
			"", "agent called the tool again"},
		{"near miss: a draft that succeeded, then its send", send{"GMAIL_CREATE_EMAIL_DRAFT", "ca_1", en, false}, send{"GMAIL_SEND_EMAIL", "ca_1", en, false}, false, "", ""},
		{"near miss: Gmail succeeded, then Outlook", send{"GMAIL_SEND_EMAIL", "ca_1", en, false}, send{"OUTLOOK_SEND_EMAIL", "ca_outlook", outlook, false}, false, "", ""},
		{"near miss: one reply from two Gmail accounts", send{"GMAIL_SEND_EMAIL", "ca_1", en, true}, send{"GMAIL_SEND_EMAIL", "ca_2", en, false}, false, "", ""},
		{"near miss: another order after a failure", send{"GMAIL_SEND_EMAIL", "ca_1", pt, true},
			send{"GMAIL_SEND_EMAIL", "ca_1", strings.ReplaceAll(en, "78274", "78275"), false}, false, "", ""},
		{"near miss: one fact only (the order), another message", send{"GMAIL_SEND_EMAIL", "ca_1", email("ana@x.com", "Pedido A-78274", "Seu pedido A-78274 foi entregue. Obrigado!"), true},
			send{"GMAIL_SEND_EMAIL", "ca_1", email("ana@x.com", "Order A-78274", "We received your return of A-78274; the refund is on its way."), false}, false, "", ""},
		{"near miss: another recipient", send{"GMAIL_SEND_EMAIL", "ca_1", pt, true}, send{"GMAIL_SEND_EMAIL", "ca_1", strings.ReplaceAll(en, "ANA@X.COM", "bea@x.com"), false}, false, "", ""},
		{"near miss: a thread reply is not a new email", send{"GMAIL_SEND_EMAIL", "ca_1", en, true},
			send{"GMAIL_REPLY_TO_THREAD", "ca_1", `{"recipient_email":"ana@x.com","thread_id":"t1","message_body":` + mustJSON(enBody) + `}`, false}, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mk := func(id string, s send, at float64) model.Execution {
				a := attempt{id: id, at: sec(at), dur: sec(1), retry: -1, args: s.args, account: s.account}
				if s.failed {
					a.err = gatewayErr
				}
				e := a.exec()
				e.ToolSlug = s.tool
				e.ToolkitSlug = strings.ToLower(strings.SplitN(s.tool, "_", 2)[0])
				return e
			}
			execs := []model.Execution{mk("b", tt.b, 40), mk("a", tt.a, 0)}
			for _, res := range []*Result{Analyze(execs, NewKinds(), Options{}), analyzeReference(execs, NewKinds(), Options{})} {
				if got := len(res.Groups) == 1; got != tt.group {
					t.Fatalf("grouped = %v, want %v (%+v)", got, tt.group, res.Groups)
				}
				if !tt.group {
					continue
				}
				g := res.Groups[0]
				if g.Pattern != model.PatternAgentRetry || !strings.Contains(g.Match, tt.match) || !strings.Contains(g.Reason, tt.reason) {
					t.Fatalf("group %s\nmatch  %q (want %q in it)\nreason %q (want %q in it)", g.Pattern, g.Match, tt.match, g.Reason, tt.reason)
				}
			}
		})
	}
}

func mustJSON(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestASentDraftJoinsItsDraft: after the send failed, the agent drafted the message and sent
// the draft (GMAIL_SEND_DRAFT names only the draft): the send of the draft is one more attempt
// of the group on every path, whatever the draft's response says (a scan does not keep it);
// one sent after the window, or by another account, is not.
func TestASentDraftJoinsItsDraft(t *testing.T) {
	const body = "Hi Ana, your order A-78274 shipped on March 14. Tracking number: 1Z999AA10123456784."
	email := `{"recipient_email":"ana@x.com","subject":"Your order A-78274","body":` + mustJSON(body) + `}`
	for _, tt := range []struct {
		name     string
		response string
		sentAt   float64
		members  int
	}{
		{"the draft's response not recorded", ``, 45, 3},
		{"the draft's response recorded", `{"data":{"id":"r-2","message":{"id":"m1"}},"successful":true}`, 45, 3},
		{"near miss: the draft sent after the window", ``, 45 + 11*60, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			send := attempt{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1, args: email}.exec()
			draft := attempt{id: "b", at: sec(40), dur: sec(1), retry: -1, args: email}.exec()
			draft.ToolSlug, draft.Response = "GMAIL_CREATE_EMAIL_DRAFT", json.RawMessage(tt.response)
			sent := attempt{id: "c", at: sec(tt.sentAt), dur: sec(1), retry: -1, args: `{"draft_id":"r-1","user_id":"me"}`}.exec()
			sent.ToolSlug = "GMAIL_SEND_DRAFT"
			other := attempt{id: "d", at: sec(50), dur: sec(1), retry: -1, args: `{"draft_id":"r-9"}`, account: "ca_9"}.exec()
			other.ToolSlug = "GMAIL_SEND_DRAFT" // another account's
			execs := []model.Execution{other, sent, draft, send}
			for name, res := range map[string]*Result{"Analyze": Analyze(execs, NewKinds(), Options{}), "reference": analyzeReference(execs, NewKinds(), Options{}),
				"candidates": candidateResult(t, execs, Options{}, 1), "incremental": incrementalResult(t, execs, Options{})} {
				if len(res.Groups) != 1 || len(res.Groups[0].ExecutionIDs) != tt.members {
					t.Fatalf("%s: %+v, want one group of %d", name, res.Groups, tt.members)
				}
				g := res.Groups[0]
				if g.Pattern != model.PatternAgentRetry || tt.members == 3 && !strings.Contains(g.Reason, "GMAIL_SEND_EMAIL, then GMAIL_CREATE_EMAIL_DRAFT, then GMAIL_SEND_DRAFT") {
					t.Fatalf("%s: %s: %s", name, g.Pattern, g.Reason)
				}
			}
		})
	}
}

// TestSplitFamilyQuickMatchesSlow: an email family's arguments split read once
// (model.SplitObject) and through encoding/json give one identity and one text.
func TestSplitFamilyQuickMatchesSlow(t *testing.T) {
	vol := model.DefaultVolatileKeys()
	skip := skipSet(vol)
	for _, args := range []string{
		`{"recipient_email":"Ana Ruiz <ana@x.com>","subject":"Hi","body":"Order A-1","is_html":true}`,
		`{"to_email":["ANA@X.COM","bob@y.org"],"cc_emails":[{"address":"c@z.io","name":"C"}],"subject":"S","body":"b","save_to_sent_items":true}`,
		`{"recipient_email":"ana@x.com","thread_id":"t1","options":{"track":true,"subject":"kept nested","nonce":"1"},"labels":["b","a"],"body":"x"}`,
		`{"recipient_email":"ana@x.com","cc":null,"n":1.0,"body":"long\nbody","request_id":"r-1"}`,
		`{"to":"a@x","subject":"hi"}`,
		`{"cc":[ "a" , "B" ],"subject":"hi"}`,
		`{}`,
	} {
		quick, ok1 := splitFamilyWith("EMAIL", json.RawMessage(args), vol, skip, true)
		slow, ok2 := splitFamilyWith("EMAIL", json.RawMessage(args), vol, skip, false)
		if ok1 != ok2 || string(quick.identity) != string(slow.identity) || quick.rawText != slow.rawText || quick.subject != slow.subject || strings.Join(quick.textKeys, ",") != strings.Join(slow.textKeys, ",") {
			t.Errorf("%s:\nquick %v %s %q %v\nslow  %v %s %q %v", args, ok1, quick.identity, quick.rawText, quick.textKeys, ok2, slow.identity, slow.rawText, slow.textKeys)
		}
	}
}

// TestBareAddressesReadAsTheScannerReadsThem: the quick path for a recipient that is one bare
// address gives what reading addresses out of any text gives.
func TestBareAddressesReadAsTheScannerReadsThem(t *testing.T) {
	for _, s := range []string{"ana@x.com", "Ana.Ruiz+tag@Example.CO.uk", "a@b", "a@b.", "@x.com", "a@@x.com", "a b@x.com", "ana@x.com.", "a_b%c@x-y.org", "ana@x..com"} {
		m := model.ArgMember{Key: "to", Str: s, IsStr: true, Raw: []byte(mustJSON(s))}
		got := appendRecipients(nil, m)
		var want []string
		_, found := linksAndAddresses(s, nil)
		for _, a := range found {
			want = append(want, strings.TrimPrefix(a, "E:"))
		}
		if len(want) == 0 {
			want = []string{strings.ToLower(mustJSON(s))}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%q: %v, the scanner reads %v", s, got, want)
		}
	}
}

// FuzzSplitFamily: an email family's arguments, whatever JSON they are, split alike read once
// and through encoding/json, and never panic.
func FuzzSplitFamily(f *testing.F) {
	for _, s := range []string{`{"recipient_email":"Ana <ana@x.com>","subject":"S","body":"b"}`, `{"to":["a@x.io",{"address":"B@Y.io"}],"n":1.0}`,
		`{"cc":null,"bcc":[],"thread_id":"t","x":{"subject":"s"}}`, `[]`, `"s"`, `{"to":"\u003cana@x.com\u003e"}`} {
		f.Add(s)
	}
	vol := model.DefaultVolatileKeys()
	skip := skipSet(vol)
	f.Fuzz(func(t *testing.T, args string) {
		q, ok1 := splitFamilyWith("EMAIL", json.RawMessage(args), vol, skip, true)
		s, ok2 := splitFamilyWith("EMAIL", json.RawMessage(args), vol, skip, false)
		if !ok1 || !ok2 {
			return // not an object, or not JSON: effectKey hashes the bytes
		}
		if string(q.identity) != string(s.identity) || q.rawText != s.rawText || q.subject != s.subject {
			t.Fatalf("%s:\nquick %q %q %q\nslow  %q %q %q", args, q.identity, q.rawText, q.subject, s.identity, s.rawText, s.subject)
		}
	})
}

// TestAnotherRouteIsTheAgents: a write called directly and, after it failed, the same call as a
// tool of the agent's meta tool (COMPOSIO_MULTI_EXECUTE_TOOL) are one intent whose second route a
// model chose (an SDK, a framework or a loop re-sends the call it made, by its route):
// agent_retry, however alike the bytes. The same call sent again directly stays an app's loop.
func TestAnotherRouteIsTheAgents(t *testing.T) {
	const args = `{"recipient_email":"ana@x.com","subject":"Order 78274","body":"Your order 78274 shipped."}`
	mk := func(id string, at float64, failed bool) model.Execution {
		a := attempt{id: id, at: sec(at), dur: sec(1), retry: -1, args: args, account: "ca_1"}
		if failed {
			a.err = gatewayErr
		}
		return a.exec()
	}
	for _, tt := range []struct {
		name    string
		viaMeta bool
		want    model.RetryPattern
		reason  string
	}{
		{"directly, then through the meta tool", true, model.PatternAgentRetry,
			"by another route (directly, then through COMPOSIO_MULTI_EXECUTE_TOOL)"},
		{"directly twice", false, model.PatternAppRetry, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			first, second := mk("a", 0, true), mk("b", 20, false)
			execs := []model.Execution{second, first}
			if tt.viaMeta {
				run := model.Execution{ID: "run", ToolSlug: "COMPOSIO_MULTI_EXECUTE_TOOL", ToolkitSlug: "composio", UserID: first.UserID,
					ConnectedAccountID: "ca_1", Status: "success", StartTime: second.StartTime.Add(-sec(0.4)), RetryCount: -1,
					Arguments: []byte(`{"tools":[{"tool_slug":"GMAIL_SEND_EMAIL"}]}`)}
				run.Timestamp = run.StartTime
				execs[0].Parent = &model.Parent{LogID: run.ID, ToolSlug: run.ToolSlug}
				execs = append(execs, run)
			}
			oneGroupOnBothPaths(t, execs, tt.want, tt.reason)
		})
	}
}

// TestShorterAndAnotherState: after a failure, a text that says nothing the first did not (its
// numbers, names and words all among the first's) is the message written shorter: one intent;
// one that adds a word, or reports another state of the same thing (shipped then delivered,
// reviewed then rejected, opened then resolved), is another message, however many facts and
// words it shares with the first. Analyze and the reference compared.
func TestShorterAndAnotherState(t *testing.T) {
	slack := func(text string) string { return `{"channel":"C1","text":` + mustJSON(text) + `}` }
	for _, tt := range []struct {
		name        string
		first, then string
		group       bool
	}{
		{"shorter, nothing new", "Hi Lucas, your order 15115 has shipped and should arrive by Wednesday. The total was $988.52.",
			"Lucas: order 15115 shipped.", true},
		{"shorter, a word more", "Hi Lucas, your order 15115 has shipped and should arrive by Wednesday. The total was $988.52.",
			"Lucas: order 15115 delivered.", false},
		{"the same state, reworded", "Incident 4512 resolved: billing-api login errors came from an expired certificate.",
			"Resolved incident 4512: the billing-api login errors were caused by an expired certificate.", true},
		{"another state, the same facts", "Dana, your refund of $4275.71 for order 5276 is being reviewed.",
			"Dana, your refund of $4275.71 for order 5276 was rejected.", false},
		{"another state, nearly every word shared", "Incident 4512 opened: billing-api login errors for EU customers since Tuesday.",
			"Incident 4512 resolved: billing-api login errors for EU customers since Tuesday.", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := attempt{id: "a", at: 0, dur: sec(1), retry: -1, args: slack(tt.first), account: "ca_1", err: gatewayErr}
			b := attempt{id: "b", at: sec(40), dur: sec(1), retry: -1, args: slack(tt.then), account: "ca_1"}
			execs := []model.Execution{b.exec(), a.exec()}
			for i := range execs {
				execs[i].ToolSlug, execs[i].ToolkitSlug = "SLACK_SEND_MESSAGE", "slack"
			}
			for _, res := range []*Result{Analyze(execs, NewKinds(), Options{}), analyzeReference(execs, NewKinds(), Options{})} {
				if got := len(res.Groups) == 1; got != tt.group {
					t.Fatalf("grouped = %v, want %v (%+v)", got, tt.group, res.Groups)
				}
				if tt.group && res.Groups[0].Pattern != model.PatternAgentRetry {
					t.Fatalf("%s: %s", res.Groups[0].Pattern, res.Groups[0].Reason)
				}
			}
		})
	}
}

// oneGroupOnBothPaths: Analyze and the reference path each find execs one group, of the cause
// want, its reason holding reason.
func oneGroupOnBothPaths(t *testing.T, execs []model.Execution, want model.RetryPattern, reason string) {
	t.Helper()
	for _, res := range []*Result{Analyze(execs, NewKinds(), Options{}), analyzeReference(execs, NewKinds(), Options{})} {
		if len(res.Groups) != 1 {
			t.Fatalf("%d groups, want 1: %+v", len(res.Groups), res.Groups)
		}
		if g := res.Groups[0]; g.Pattern != want || !strings.Contains(g.Reason, reason) {
			t.Fatalf("%s: %s, want %s with %q in its reason", g.Pattern, g.Reason, want, reason)
		}
	}
}
