package watch

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
)

// The signature is Standard Webhooks': the specification's own example verifies.
func TestTheSignatureIsStandardWebhooks(t *testing.T) {
	s, err := ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"test": 2432232314}`)
	got := s.Sign("msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), body)
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("signature %s, want %s", got, want)
	}
	at := time.Unix(1614265330, 0)
	if err := s.Verify("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", "v1,bad "+got, body, at, 5*time.Minute); err != nil {
		t.Fatalf("one of several signatures: %v", err)
	}
	if err := s.Verify("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", got, []byte(`{"test": 1}`), at, 5*time.Minute); err == nil {
		t.Fatal("a changed body verified")
	}
	if err := s.Verify("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", got, body, at.Add(time.Hour), 5*time.Minute); err == nil {
		t.Fatal("an old timestamp verified")
	}
	for _, bad := range []string{"", "whsec_", "whsec_!!!", "whsec_c2hvcnQ="} {
		if _, err := ParseSecret(bad); err == nil {
			t.Errorf("secret %q accepted", bad)
		}
	}
	if strings.Contains(s.String()+s.GoString(), "MfKQ") {
		t.Fatal("a printed secret shows its key")
	}
}

func row(id string, at int, flagged bool) Row {
	return Row{Exec: model.Execution{ID: id, ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", Timestamp: time.Unix(int64(at), 0)},
		Triage: model.Triage{Flagged: flagged, Reason: "timed out: the email may have been sent"}}
}

// What a window tells: flagged rows; a group whole when it is new, else each member alone (its
// first members were told with it); retries left indeterminate; a filter's choice; oldest first.
func TestFindTellsEachThingOnce(t *testing.T) {
	g := model.DuplicateGroup{ID: "dup-1", Pattern: model.PatternSDKAutoRetry, ExecutionIDs: []string{"a", "b"}, Reason: "re-sent"}
	g3 := g
	g3.ExecutionIDs = []string{"a", "b", "c"}
	rows := []Row{row("c", 3, false), row("b", 2, false), row("a", 1, true), row("x", 0, false)}
	indet := model.RetryAttempt{ID: "att-1", ExecutionID: "x", ToolSlug: "GMAIL_SEND_EMAIL", State: model.AttemptIndeterminate}
	done := model.RetryAttempt{ID: "att-2", ExecutionID: "a", State: model.AttemptSucceeded}
	now := time.Unix(100, 0)
	kinds := func(f Found) []string {
		var out []string
		for _, e := range f.Events {
			out = append(out, string(e.Kind)+":"+strings.Join(e.ExecutionIDs, ","))
		}
		return out
	}
	for _, c := range []struct {
		name  string
		w     Window
		known map[string]bool
		want  []string
	}{
		{"a new group is told whole", Window{Rows: rows[1:], Groups: []model.DuplicateGroup{g}}, nil, []string{"flagged:a", "group:a,b"}},
		{"a known group tells its new member", Window{Rows: rows, Groups: []model.DuplicateGroup{g3}}, map[string]bool{IDFor(KindGroup, "a"): true},
			[]string{"flagged:a", "group_member:a,b", "group_member:a,c"}},
		{"an attempt left indeterminate", Window{Rows: rows[3:], Attempts: []model.RetryAttempt{indet, done}}, nil, []string{"unresolved:x"}},
		{"an attempt outside the window, no filter", Window{Attempts: []model.RetryAttempt{indet}}, nil, []string{"unresolved:x"}},
		{"an attempt the filter left out", Window{Filtered: true, Attempts: []model.RetryAttempt{indet}}, nil, nil},
		{"a group none of whose members the filter kept", Window{Rows: rows[3:], Groups: []model.DuplicateGroup{g}, Filtered: true}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := Find(c.w, c.known, now)
			if got := kinds(f); !slices.Equal(got, c.want) {
				t.Fatalf("events %v, want %v", got, c.want)
			}
			for _, e := range f.Events {
				if e.Version != EventVersion || !e.Found.Equal(now) || e.Command == "" || e.Reason == "" {
					t.Fatalf("event %+v", e)
				}
			}
		})
	}
	// The member events a new group covers are the ids its members would have alone: told once.
	f := Find(Window{Rows: rows, Groups: []model.DuplicateGroup{g}}, nil, now)
	later := Find(Window{Rows: rows, Groups: []model.DuplicateGroup{g3}}, map[string]bool{IDFor(KindGroup, "a"): true}, now)
	for _, e := range later.Events {
		if e.Kind == KindGroupMember && e.ExecutionIDs[1] == "b" && !slices.Contains(f.Covered, e.ID) {
			t.Fatal("a member told with its group is told again alone")
		}
		if e.Kind == KindGroupMember && e.ExecutionIDs[1] == "c" && slices.Contains(f.Covered, e.ID) {
			t.Fatal("a new member is covered by the group's first event")
		}
	}
	if IDFor(KindFlagged, "a") == IDFor(KindUnresolved, "a") || IDFor(KindGroupMember, "a", "bc") == IDFor(KindGroupMember, "ab", "c") {
		t.Fatal("ids collide")
	}
}

// What a message came to, by what the receiver did: only a message that never left is
// certainly not delivered; one whose answer was lost is unclear unless the receiver
// deduplicates. The detail never names the URL (a Slack URL is a secret).
func TestAMessageSaysWhatItCameTo(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/ok":
		case "/refused":
			w.WriteHeader(http.StatusBadRequest)
		case "/limited":
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
		case "/broken":
			w.WriteHeader(http.StatusBadGateway)
		case "/redirect":
			http.Redirect(w, r, "/ok", http.StatusTemporaryRedirect)
		case "/drop":
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}
	}))
	defer srv.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String() + "/secret-path"
	ln.Close()
	for _, c := range []struct {
		path   string
		dedups bool
		want   journal.DeliveryState
	}{
		{"/ok", false, journal.DeliverySent},
		{"/refused", false, journal.DeliveryFailed},
		{"/limited", false, journal.DeliveryFailed},
		{"/redirect", false, journal.DeliveryFailed},
		{"/broken", false, journal.DeliveryUnclear},
		{"/broken", true, journal.DeliveryFailed},
		{"/drop", false, journal.DeliveryUnclear},
		{"/drop", true, journal.DeliveryFailed},
		{"closed", false, journal.DeliveryFailed},
	} {
		target := srv.URL + c.path
		if c.path == "closed" {
			target = closed
		}
		out := post(context.Background(), newHTTPClient(), target, http.Header{}, []byte(`{}`), c.dedups)
		if out.State != c.want {
			t.Errorf("%s (dedups %v): %s %q, want %s", c.path, c.dedups, out.State, out.Detail, c.want)
		}
		if strings.Contains(out.Detail, "127.0.0.1") || strings.Contains(out.Detail, "secret-path") {
			t.Errorf("%s: the detail names the URL: %s", c.path, out.Detail)
		}
		if c.path == "/limited" && out.RetryIn != 7*time.Second {
			t.Errorf("Retry-After not kept: %s", out.RetryIn)
		}
	}
}

// Slack's message is Block Kit: a header, a section per event with its log ids and the
// command, and a warning naming alerts that may not have arrived.
func TestTheSlackMessage(t *testing.T) {
	events := Find(Window{Rows: []Row{row("log_<a>", 1, true), row("log_b", 2, true)}}, nil, time.Unix(5, 0)).Events
	var m struct {
		Text   string
		Blocks []struct {
			Type string
			Text struct{ Type, Text string }
		}
	}
	if err := json.Unmarshal(SlackMessage(events, []string{"evt_lost"}), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Blocks) != 4 || m.Blocks[0].Type != "header" || m.Blocks[0].Text.Type != "plain_text" || m.Text == "" {
		t.Fatalf("blocks %+v", m)
	}
	if s := m.Blocks[1].Text.Text; m.Blocks[1].Text.Type != "mrkdwn" || !strings.Contains(s, "log_&lt;a&gt;") || !strings.Contains(s, "exectriage show log_&lt;a&gt;") {
		t.Fatalf("section %q", s)
	}
	if s := m.Blocks[3].Text.Text; !strings.Contains(s, "evt_lost") || !strings.Contains(s, "may not have arrived") {
		t.Fatalf("lost %q", s)
	}
}
