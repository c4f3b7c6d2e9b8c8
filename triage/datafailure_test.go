package triage

import (
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// What a tool's data says at its top level: the provider's failure (a flag of success false;
// an error member not empty or a status of 400 or more, no flag saying success), in part when
// results come beside it; and the near-misses: members empty or saying success, failures
// nested below the top level, statuses that are no error.
func TestReadDataFailure(t *testing.T) {
	for _, tc := range []struct {
		data         string
		failed, part bool
		text, marker string
		code         int
	}{
		{`{"ok":false,"error":"channel_not_found","warning":"missing_charset"}`, true, false, "channel_not_found", "ok: false", 0},
		{`{"Success":false,"Message":"Invalid API key"}`, true, false, "Invalid API key", "Success: false", 0},
		{`{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND"}}`, true, false,
			"Requested entity was not found.; NOT_FOUND", "an error member", 404},
		{`{"errors":[{"message":"Could not resolve","type":"NOT_FOUND"}],"data":null}`, true, false, "Could not resolve; NOT_FOUND",
			"an error member", 0},
		{`{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}`, true, false, "Not Found", "status 404", 404},
		{`{"error_message":"Recipient rejected","numErrors":1}`, true, false, "Recipient rejected", "an error member", 0},
		{`{"error":"Insufficient funds"}`, true, false, "Insufficient funds", "an error member", 0},
		// a title is the envelope's (RFC 7807's) or a result's: no words of the error either way
		{`{"title":"Fix invalid login","error":"upstream hiccup"}`, true, false, "upstream hiccup", "an error member", 0},
		{`{"type":"about:blank","title":"Not Found","status":404,"detail":"No such channel"}`, true, false, "No such channel",
			"status 404", 404},
		// a result's description beside an error: in part, and its words no account of the error
		{`{"description":"Discuss invalid entries","error":"sync failed"}`, true, true, "sync failed", "an error member", 0},
		// errors beside results, or beside a flag of success: in part
		{`{"status":"COMPLETE","results":[{"id":"1"}],"errors":[{"message":"Property values were not valid"}]}`, true, true,
			"Property values were not valid", "an error member", 0},
		{`{"id":"m1","error":"attachment skipped"}`, true, true, "attachment skipped", "an error member", 0},
		{`{"success":true,"errors":["row 4"]}`, true, true, "row 4", "errors beside a success flag", 0},
		// near-misses: nothing failed at the top level
		{`{"ok":true,"channel":"C1"}`, false, false, "", "", 0},
		{`{"id":"m1","error":null,"errors":[],"error_message":"","fault":{}}`, false, false, "", "", 0},
		{`{"success":true,"error":""}`, false, false, "", "", 0},
		{`{"draft":false,"locked":false}`, false, false, "", "", 0},
		{`{"messages":[{"ok":false,"error":"x"}]}`, false, false, "", "", 0},
		{`{"status":200,"message":"Created"}`, false, false, "", "", 0},
		{`{"status":"failed_payment_method","id":"in_1"}`, false, false, "", "", 0},
		{`{"code":"ABC123","count":0}`, false, false, "", "", 0},
		{`[{"ok":false}]`, false, false, "", "", 0},
		{`null`, false, false, "", "", 0},
	} {
		f, ok := ReadDataFailure([]byte(tc.data))
		if ok != tc.failed || f.Partial != tc.part || f.Text != tc.text || f.Marker != tc.marker || f.Code != tc.code {
			t.Errorf("%s: %+v %v, want failed %v, part %v, text %q, marker %q, code %d", tc.data, f, ok, tc.failed, tc.part, tc.text,
				tc.marker, tc.code)
		}
	}
}

// A result's words beside the provider's error are no account of it: an issue titled "Fix
// invalid login" whose data carries an error code no rule knows stays unclear, never "not
// created" (its title's "invalid" read as the refusal).
func TestAResultsWordsAreNoAccountOfItsError(t *testing.T) {
	e := execWith("GITHUB_CREATE_AN_ISSUE", "success", time.Second, nil)
	e.Response = []byte(`{"successful":true,"data":{"title":"Fix invalid login","error":"E_SYNC_4471"}}`)
	if o, why := Classify(e, model.KindWrite, Options{}); o != model.OutcomeAmbiguous {
		t.Fatalf("%s (%s), want ambiguous", o, why)
	}
}

// What a relayed body says of its failure: its error's words, else its describing members', else
// the body itself when it is a string (a proxy relays "Bad Request" or a gateway's page as is).
func TestBodyText(t *testing.T) {
	for body, want := range map[string]string{
		`{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`: "Not Found",
		`{"error":{"code":403,"message":"Insufficient Permission"},"message":"x"}`:   "Insufficient Permission",
		`"Bad Request"`: "Bad Request",
		`null`:          "",
		`[1,2]`:         "",
	} {
		if got := bodyText([]byte(body)); got != want {
			t.Errorf("bodyText(%s) = %q, want %q", body, got, want)
		}
	}
	e := execWith("GITHUB_CREATE_AN_ISSUE", "success", time.Second, nil)
	e.Response = []byte(`{"status":400,"data":"Bad Request","headers":{}}`)
	if o, why := Classify(e, model.KindWrite, Options{}); o != model.OutcomeFailed || !strings.Contains(why, `"Bad Request"`) {
		t.Fatalf("%s (%s): a relayed 400 is a refusal, in its body's words", o, why)
	}
}
