package triage

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// Rewordings an LLM agent produces when it calls the tool again, and different messages sent
// to the same place. Every reworded pair must reach NearDuplicateSimilarity, every different
// pair must stay below it; the scores are logged so the threshold's margin is visible.
var rewordedTexts = [][2]string{
	{"Hi Dana,\n\nAttached is invoice INV-1042 for $1,250.00, due on March 3. Let me know if you have any questions.\n\nBest,\nSam",
		"Hello Dana,\n\nPlease find attached invoice INV-1042 for $1250, which is due March 3. Feel free to reach out with any questions.\n\nRegards,\nSam"},
	{"Deploy of billing-api v2.3 finished, all checks green.",
		"Finished deploying billing-api v2.3 - all checks are green."},
	{"Reminder: the quarterly review with Acme is tomorrow at 10:00. Please bring the Q3 numbers.",
		"Quick reminder that our quarterly review with Acme is tomorrow at 10:00 - please have the Q3 numbers ready."},
	{"The export job fails with a timeout after 30 seconds when the report has more than 5000 rows.",
		"Export job times out after 30 seconds for reports with more than 5000 rows; the job fails."},
	{"Thanks for your patience, Priya. Your refund of $89.99 has been processed and should arrive in 5-7 business days.",
		"Hi Priya, thank you for your patience! We processed your refund of $89.99; it should arrive within 5-7 business days."},
	{"<p>Hi Tom,</p><p>Your order 55812 has shipped and will arrive Friday.</p><p>Cheers,<br>Ana</p>",
		"Hi Tom, good news: order 55812 has shipped and should arrive on Friday. Cheers, Ana"},
	{"Can we move our call to Thursday afternoon? Something came up on Wednesday.",
		"Would it be possible to move our call to Thursday afternoon? Something came up Wednesday."},
	{"Incident resolved: login errors on the mobile app were caused by an expired certificate, which has been renewed.",
		"Resolved the incident - the mobile app login errors came from an expired certificate; the certificate has now been renewed."},
}

var differentTexts = [][2]string{
	{"Deploy of billing-api v2.3 finished, all checks green.", "Deploy of billing-api v2.3 started."},
	{"Order 1041 has shipped.", "Order 1042 has shipped."},
	{"Looping in Carlos who owns this now.", "Looping in Mateo who owns this now."},
	{"Standup moved to 10:30 today.", "Lunch order is in, grab yours in the kitchen."},
	{"Your invoice for March is attached.", "Your invoice for April is attached."},
	{"Thanks, merged!", "Could you rebase this on main first?"},
	{"Heads up: the staging database will be down for maintenance tonight.",
		"Heads up: the new onboarding flow is live for all customers tonight."},
	{"Hi Dana, the contract is signed. Best, Sam", "Hi Dana, the contract needs one more change. Best, Sam"},
}

func TestSimilarityThresholdSeparatesRewordedFromDifferent(t *testing.T) {
	lowReworded, highDifferent := 1.0, 0.0
	for _, p := range rewordedTexts {
		s := similarity(signature(p[0]), signature(p[1]))
		t.Logf("reworded  %.2f  %.40q", s, p[0])
		if s < NearDuplicateSimilarity {
			t.Errorf("reworded texts scored %.2f < %.2f:\n  %q\n  %q", s, NearDuplicateSimilarity, p[0], p[1])
		}
		lowReworded = min(lowReworded, s)
	}
	for _, p := range differentTexts {
		s := similarity(signature(p[0]), signature(p[1]))
		t.Logf("different %.2f  %.40q", s, p[0])
		if s >= NearDuplicateSimilarity {
			t.Errorf("different texts scored %.2f >= %.2f:\n  %q\n  %q", s, NearDuplicateSimilarity, p[0], p[1])
		}
		highDifferent = max(highDifferent, s)
	}
	t.Logf("threshold %.2f: lowest reworded %.2f, highest different %.2f", NearDuplicateSimilarity, lowReworded, highDifferent)
}

func TestSignature(t *testing.T) {
	s := signature("<p>Hi Dana,</p> Invoice INV-1042 for $1,250.00 (due 2026-03-03). Regards, Sam")
	if want := []string{"1042", "1250", "2026", "3"}; !slices.Equal(s.nums, want) { // a number's leading zeros are no digits
		t.Errorf("nums = %q, want %q", s.nums, want)
	}
	if want := []string{"due", "invoic"}; !slices.Equal(s.words, want) {
		t.Errorf("words = %q, want %q", s.words, want)
	}
	// Dana follows "Hi" (not a sentence start), INV follows "Invoice", Sam follows "Regards,";
	// Invoice starts a sentence (after the tag), so it is no name.
	if want := []string{"dana", "inv", "sam"}; !slices.Equal(s.names, want) {
		t.Errorf("names = %q, want %q", s.names, want)
	}
	if s.norm != "hi dana, invoice inv-1042 for $1,250.00 (due 2026-03-03). regards, sam" {
		t.Errorf("norm = %q", s.norm)
	}
	if similarity(signature("Same  TEXT"), signature("same text")) != 1 {
		t.Error("case and spacing changed the similarity of equal texts")
	}
}

func TestSplitArgs(t *testing.T) {
	cases := []struct {
		name, args   string
		keys, texts  []string
		headings     []string // the headings kept beside the text (headingKey)
		sameIdentity string   // arguments whose identity must equal these'
		otherIdent   string   // arguments whose identity must differ
	}{
		{"gmail send", `{"recipient_email":"a@x.io","subject":"Invoice","body":"Hi"}`, []string{"recipient_email"}, []string{"body"}, []string{"subject"},
			`{"subject":"Your invoice","body":"Hello there","recipient_email":"a@x.io"}`, `{"recipient_email":"b@x.io","subject":"Invoice","body":"Hi"}`},
		{"slack text or markdown", `{"channel":"C1","text":"deploy done"}`, []string{"channel"}, []string{"text"}, nil,
			`{"channel":"C1","markdown_text":"*deploy* done"}`, `{"channel":"C2","text":"deploy done"}`},
		// the repository is the target; the title is what the issue is about
		{"github issue", `{"owner":"o","repo":"r","title":"Crash on login","body":"Steps..."}`, []string{"owner", "repo"}, []string{"body"},
			[]string{"title"}, `{"owner":"o","repo":"r","title":"Login crashes","body":"Other words"}`, `{"owner":"o","repo":"r2","title":"Crash on login","body":"Steps..."}`},
		{"long unknown string is text", `{"ticket":"T-1","summary_text":"` + strings.Repeat("word ", 30) + `"}`, []string{"ticket"}, []string{"summary_text"}, nil,
			`{"ticket":"T-1","summary_text":"` + strings.Repeat("other ", 30) + `"}`, `{"ticket":"T-2","summary_text":"x"}`},
		{"a long subject is a heading", `{"subject":"` + strings.Repeat("s", 200) + `"}`, nil, nil, []string{"subject"},
			`{"subject":"` + strings.Repeat("t", 200) + `"}`, `{"subject":"` + strings.Repeat("s", 200) + `","ticket":"T-2"}`},
		{"lists and objects are identity", `{"to":["a@x.io"],"meta":{"k":1},"body":"x"}`, []string{"meta", "to"}, []string{"body"}, nil,
			`{"meta":{"k":1},"to":["a@x.io"]}`, `{"to":["b@x.io"],"meta":{"k":1},"body":"x"}`},
		{"volatile keys ignored", `{"channel":"C1","text":"x","client_msg_id":"1"}`, []string{"channel"}, []string{"text"}, nil,
			`{"channel":"C1","text":"y","client_msg_id":"2"}`, `{"channel":"C3","text":"x"}`},
		{"empty values are absent", `{"channel":"C1","text":"x","blocks":[ ],"thread_ts":"","meta":{}}`, []string{"channel"}, []string{"text"}, nil,
			`{"channel":"C1","text":"y"}`, `{"channel":"C1","text":"x","blocks":[{"type":"divider"}]}`},
		{"not an object", `[1,2]`, nil, nil, nil, `[1, 2]`, `[2,1]`},
	}
	vol := []string{"client_msg_id"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ea, ok := splitArgs(json.RawMessage(c.args), vol)
			if !ok {
				t.Fatal("not split")
			}
			if !slices.Equal(ea.keys, c.keys) || !slices.Equal(ea.textKeys, c.texts) || ea.headingKeys != strings.Join(c.headings, "/") {
				t.Errorf("keys %q texts %q headings %q, want %q %q %q", ea.keys, ea.textKeys, ea.headingKeys, c.keys, c.texts, c.headings)
			}
			same, _ := splitArgs(json.RawMessage(c.sameIdentity), vol)
			if string(same.identity) != string(ea.identity) {
				t.Errorf("identity %s != %s", same.identity, ea.identity)
			}
			other, _ := splitArgs(json.RawMessage(c.otherIdent), vol)
			if string(other.identity) == string(ea.identity) {
				t.Errorf("identity of %s equals %s", c.otherIdent, c.args)
			}
		})
	}
	if _, ok := splitArgs(json.RawMessage(`{"a":`), nil); ok {
		t.Error("invalid JSON was split")
	}
}

// TestTextFieldsOfRealToolSchemas reads Composio's own write tool definitions (testdata, from
// composio-tools): every string property documented as the message's content is free text,
// and no other is (a recipient, a thread, a repository or an issue identifies the effect; a
// subject or a title is a heading, kept beside the text: TestSplitArgs).
func TestTextFieldsOfRealToolSchemas(t *testing.T) {
	b, err := os.ReadFile("testdata/write_tool_schemas.json")
	if err != nil {
		t.Fatal(err)
	}
	var tools map[string]struct {
		InputParameters struct {
			Properties map[string]struct {
				Type        string `json:"type"`
				Description string `json:"description"`
			} `json:"properties"`
		} `json:"input_parameters"`
	}
	if err := json.Unmarshal(b, &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools) < 4 {
		t.Fatalf("only %d tools in testdata", len(tools))
	}
	texts := 0
	for slug, tool := range tools {
		for name, p := range tool.InputParameters.Properties {
			if p.Type != "string" {
				continue
			}
			d := strings.ToLower(p.Description)
			content := strings.Contains(d, "body") && !strings.Contains(d, "`body`") || strings.Contains(d, "content") || strings.Contains(d, "textual")
			raw, _ := json.Marshal(map[string]string{name: "x"})
			ea, _ := splitArgs(raw, nil)
			isText := len(ea.textKeys) == 1
			if content != isText {
				t.Errorf("%s.%s (%q): free text %v, its description says %v", slug, name, p.Description, isText, content)
			}
			if isText {
				texts++
			}
		}
	}
	if texts < 4 {
		t.Errorf("only %d free-text properties found", texts)
	}
}

// TestTextKeyByItsLastWord: an argument whose name's last word names a message body is free
// text, whatever qualifies it (the names are real Composio ones: GITHUB_MERGE_A_BRANCH
// commit_message, GOOGLEDRIVE_CREATE_FILE_FROM_TEXT text_content, GITHUB_UPDATE_A_CODE_SCANNING_ALERT
// dismissed_comment, GITHUB_CREATE_A_CHECK_RUN output__text); an identifier of a message is not.
func TestTextKeyByItsLastWord(t *testing.T) {
	for k, want := range map[string]bool{
		"commit_message": true, "text_content": true, "dismissed_comment": true, "output__text": true,
		"messageBody": true, "HTMLBody": true, "bodyHTML": true, "hs_note_body": true, "body": true,
		"message_id": false, "commentId": false, "reply_id": false, "noteType": false, "text_color": false, "subject": false,
	} {
		if got := textKey(k) && !identityKey(k); got != want {
			t.Errorf("%s: free text %v, want %v", k, got, want)
		}
	}
}

// A compound name is its head before a preposition (note_to_payer is a note, a text); a name that
// is itself a phrase of a preposition (in_reply_to: the message it answers) has no such head.
func TestACompoundNameIsItsHead(t *testing.T) {
	for k, want := range map[string]bool{"note_to_payer": true, "messageForUser": true, "body_of_email": true, "hs_note_body": true,
		"in_reply_to": false, "message_id": false, "reply_to": false, "email_to_notify": false, "id_of_thread": false} {
		if got := textKey(k); got != want {
			t.Errorf("textKey(%q) = %v, want %v", k, got, want)
		}
	}
}
