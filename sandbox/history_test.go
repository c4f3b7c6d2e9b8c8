package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/exectriage/exectriage/model"
)

func TestSameSeedGivesTheSameHistory(t *testing.T) {
	cfg := Config{Seed: 42, Size: 800, Now: testNow}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := New(cfg)
	ja, _ := json.Marshal(a.Executions())
	jb, _ := json.Marshal(b.Executions())
	if string(ja) != string(jb) {
		t.Fatal("same seed, different logs")
	}
	if !reflect.DeepEqual(a.Truth(), b.Truth()) || !reflect.DeepEqual(a.Effects(), b.Effects()) {
		t.Fatal("same seed, different truth or effects")
	}
	cfg.Seed = 43
	c, _ := New(cfg)
	jc, _ := json.Marshal(c.Executions())
	if string(ja) == string(jc) {
		t.Fatal("different seeds, same logs")
	}
	if len(a.Executions()) != 800 || len(a.Truth()) != 800 {
		t.Fatalf("size %d", len(a.Executions()))
	}
	last := a.Executions()[0]
	if last.EndTime.After(testNow) || a.Executions()[799].Timestamp.Before(testNow.Add(-DefaultSpan)) {
		t.Fatalf("history outside [Now-Span, Now]: %v .. %v", a.Executions()[799].Timestamp, last.EndTime)
	}
}

// readTool runs a read tool in process (no network) and returns its answer.
func readTool(t *testing.T, s *Server, slug, acct string, args map[string]any) toolAnswer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"connected_account_id": acct, "arguments": args})
	req := httptest.NewRequest("POST", "/api/v3.1/tools/execute/"+slug, strings.NewReader(string(body)))
	req.Header.Set("x-api-key", "k")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	var ans toolAnswer
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &ans) != nil {
		t.Fatalf("%s: %d %s", slug, rec.Code, rec.Body.String())
	}
	return ans
}

func items(data map[string]any, key string) []map[string]any {
	xs, _ := data[key].([]any)
	out := make([]map[string]any, 0, len(xs))
	for _, x := range xs {
		out = append(out, x.(map[string]any))
	}
	return out
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// verifier is the documented read for one write tool: the key a write's arguments produce and
// how many objects with that key the read finds (objects older than since are ignored, as a
// verifier's time window would).
type verifier struct {
	key   func(s *Server, acct *account, args map[string]any) string
	count func(t *testing.T, s *Server, acct *account, args map[string]any, since time.Time) int
}

func verifiers() map[string]verifier {
	after := func(ts string, since time.Time) bool {
		tm, ok := model.ParseTime(ts)
		return ok && !tm.Before(since)
	}
	return map[string]verifier{
		"GMAIL_SEND_EMAIL": {
			key: func(_ *Server, a *account, m map[string]any) string {
				return a.id + "|" + str(m["recipient_email"]) + "|" + str(m["subject"]) + "|" + str(m["body"])
			},
			count: func(t *testing.T, s *Server, a *account, m map[string]any, since time.Time) int {
				q := fmt.Sprintf(`in:sent to:%s subject:"%s" after:%d`, m["recipient_email"], m["subject"], since.Unix())
				n := 0
				for _, x := range items(readTool(t, s, "GMAIL_FETCH_EMAILS", a.id, map[string]any{"query": q, "max_results": 500}).Data, "messages") {
					if x["to"] == m["recipient_email"] && x["subject"] == m["subject"] && x["messageText"] == m["body"] {
						n++
					}
				}
				return n
			}},
		"GMAIL_REPLY_TO_THREAD": {
			key: func(_ *Server, a *account, m map[string]any) string {
				return a.id + "|" + str(m["thread_id"]) + "|" + str(m["message_body"])
			},
			count: func(t *testing.T, s *Server, a *account, m map[string]any, since time.Time) int {
				n := 0
				for _, x := range items(readTool(t, s, "GMAIL_FETCH_MESSAGE_BY_THREAD_ID", a.id, map[string]any{"thread_id": m["thread_id"]}).Data, "messages") {
					if slices.Contains(x["labelIds"].([]any), any("SENT")) && x["messageText"] == m["message_body"] && after(str(x["messageTimestamp"]), since) {
						n++
					}
				}
				return n
			}},
		"GMAIL_CREATE_EMAIL_DRAFT": {
			key: func(_ *Server, a *account, m map[string]any) string {
				return a.id + "|" + str(m["recipient_email"]) + "|" + str(m["subject"]) + "|" + str(m["body"])
			},
			count: func(t *testing.T, s *Server, a *account, m map[string]any, since time.Time) int {
				n := 0
				for _, d := range items(readTool(t, s, "GMAIL_LIST_DRAFTS", a.id, map[string]any{"max_results": 500}).Data, "drafts") {
					x := d["message"].(map[string]any)
					if x["to"] == m["recipient_email"] && x["subject"] == m["subject"] && x["body"] == m["body"] {
						n++
					}
				}
				return n
			}},
		"GMAIL_ADD_LABEL_TO_EMAIL": {
			key: func(_ *Server, a *account, m map[string]any) string { return a.id + "|" + str(m["message_id"]) },
			count: func(t *testing.T, s *Server, a *account, m map[string]any, _ time.Time) int {
				ans := readTool(t, s, "GMAIL_FETCH_MESSAGE_BY_MESSAGE_ID", a.id, map[string]any{"message_id": m["message_id"]})
				labels, _ := ans.Data["labelIds"].([]any)
				for _, l := range stringsArgOf(m, "add_label_ids") {
					if !slices.Contains(labels, any(l)) {
						return 0
					}
				}
				return 1
			}},
		"GMAIL_DELETE_MESSAGE": {
			key: func(_ *Server, a *account, m map[string]any) string { return a.id + "|" + str(m["message_id"]) },
			count: func(t *testing.T, s *Server, a *account, m map[string]any, _ time.Time) int {
				ans := readTool(t, s, "GMAIL_FETCH_MESSAGE_BY_MESSAGE_ID", a.id, map[string]any{"message_id": m["message_id"]})
				if !ans.Successful && ans.Error != nil && strings.Contains(*ans.Error, "not found") {
					return 1 // gone: the delete took effect
				}
				return 0
			}},
		"SLACK_SEND_MESSAGE": {
			key: func(s *Server, a *account, m map[string]any) string {
				ch := str(m["channel"])
				if c := a.company.slack.find(ch); c != nil {
					ch = c.id
				}
				text := str(m["markdown_text"]) + str(m["text"])
				return a.company.slack.teamID + "|" + ch + "|" + text
			},
			count: func(t *testing.T, s *Server, a *account, m map[string]any, since time.Time) int {
				text := str(m["markdown_text"]) + str(m["text"])
				n := 0
				ans := readTool(t, s, "SLACK_FETCH_CONVERSATION_HISTORY", a.id, map[string]any{"channel": m["channel"], "oldest": fmt.Sprint(since.Unix()), "limit": 1000})
				for _, x := range items(ans.Data, "messages") {
					if x["text"] == text {
						n++
					}
				}
				return n
			}},
		"GITHUB_CREATE_AN_ISSUE": {
			key: func(_ *Server, a *account, m map[string]any) string {
				return strings.ToLower(str(m["owner"])+"/"+str(m["repo"])) + "|" + str(m["title"]) + "|" + str(m["body"])
			},
			count: func(t *testing.T, s *Server, a *account, m map[string]any, since time.Time) int {
				n := 0
				for page := 1; ; page++ {
					ans := readTool(t, s, "GITHUB_LIST_REPOSITORY_ISSUES", a.id, map[string]any{"owner": m["owner"], "repo": m["repo"],
						"state": "all", "since": since.Format(time.RFC3339), "per_page": 100, "page": page})
					if !ans.Successful { // the repository does not exist
						return 0
					}
					is := items(ans.Data, "issues")
					for _, x := range is {
						if x["title"] == m["title"] && x["body"] == m["body"] && after(str(x["created_at"]), since) {
							n++
						}
					}
					if len(is) < 100 {
						return n
					}
				}
			}},
		"GITHUB_CREATE_AN_ISSUE_COMMENT": {
			key: func(_ *Server, a *account, m map[string]any) string {
				return strings.ToLower(str(m["owner"])+"/"+str(m["repo"])) + "#" + str(m["issue_number"]) + "|" + str(m["body"])
			},
			count: func(t *testing.T, s *Server, a *account, m map[string]any, since time.Time) int {
				ans := readTool(t, s, "GITHUB_LIST_ISSUE_COMMENTS", a.id, map[string]any{"owner": m["owner"], "repo": m["repo"],
					"issue_number": m["issue_number"], "since": since.Format(time.RFC3339), "per_page": 100})
				n := 0
				for _, x := range items(ans.Data, "comments") {
					if x["body"] == m["body"] {
						n++
					}
				}
				return n
			}},
		"HUBSPOT_CREATE_CONTACT": {
			key: func(_ *Server, a *account, m map[string]any) string {
				return a.company.hubspot.id + "|" + strings.ToLower(str(m["email"]))
			},
			count: func(t *testing.T, s *Server, a *account, m map[string]any, since time.Time) int {
				n := 0
				for _, x := range items(readTool(t, s, "HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA", a.id, map[string]any{"filterGroups": []any{map[string]any{"filters": []any{map[string]any{"propertyName": "email", "operator": "EQ", "value": m["email"]}}}}, "limit": 100}).Data, "results") {
					if after(str(x["createdAt"]), since) {
						n++
					}
				}
				return n
			}},
	}
}

func TestHistoryTruthMatchesEffectsAndProviderState(t *testing.T) {
	cfg := Config{Seed: 11, Size: 1500, Now: testNow}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	since := testNow.Add(-DefaultSpan)
	s.mu.Lock()
	for _, a := range s.w.accounts { // the users reconnect, so every account can be read
		a.status = "ACTIVE"
	}
	s.mu.Unlock()
	truth := map[string]TruthRecord{}
	for _, tr := range s.Truth() {
		truth[tr.ID] = tr
	}
	effects := map[string]Effect{}
	for _, e := range s.Effects() {
		if _, dup := effects[e.LogID]; dup {
			t.Fatalf("two effects for %s", e.LogID)
		}
		effects[e.LogID] = e
	}
	vs := verifiers()
	type group struct {
		acct      *account
		args      map[string]any
		committed int
		tool      string
	}
	groups := map[string]*group{}
	perTool := map[string][2]int{} // committed, not committed
	for _, e := range s.Executions() {
		tr, ok := truth[e.ID]
		if !ok {
			t.Fatalf("no truth for %s", e.ID)
		}
		eff, hasEffect := effects[e.ID]
		if tr.Committed != hasEffect {
			t.Fatalf("%s %s: committed=%v but effect=%v", e.ID, e.ToolSlug, tr.Committed, hasEffect)
		}
		if hasEffect && (eff.Time.Before(e.StartTime) || eff.Time.After(e.EndTime) || eff.RequestID != e.RequestID ||
			eff.ConnectedAccountID != e.ConnectedAccountID || eff.ArgumentHash != model.ArgumentHash(e.Arguments, model.DefaultVolatileKeys())) {
			t.Fatalf("effect %+v does not fit its log %+v", eff, e)
		}
		v, isWrite := vs[e.ToolSlug]
		if !isWrite {
			if tr.Committed {
				t.Fatalf("read %s committed", e.ID)
			}
			continue
		}
		c := perTool[e.ToolSlug]
		if tr.Committed {
			c[0]++
		} else {
			c[1]++
		}
		perTool[e.ToolSlug] = c
		acct := s.w.accountByID[e.ConnectedAccountID]
		var args map[string]any
		if err := json.Unmarshal(e.Arguments, &args); err != nil {
			t.Fatal(err)
		}
		if tool, _ := s.cat.get(e.ToolSlug); tool.validate(args) != nil {
			if tr.Committed || tr.Case != CaseValidation {
				t.Fatalf("%s: invalid arguments, committed=%v case %s", e.ID, tr.Committed, tr.Case)
			}
			continue // nothing a verifier could look up
		}
		k := e.ToolSlug + "|" + v.key(s, acct, args)
		g := groups[k]
		if g == nil {
			g = &group{acct: acct, args: args, tool: e.ToolSlug}
			groups[k] = g
		}
		if tr.Committed {
			g.committed++
		}
	}
	for tool := range vs {
		if perTool[tool][0] == 0 {
			t.Errorf("%s: no committed execution in the history", tool)
		}
	}
	notCommitted := 0
	for k, g := range groups {
		got := vs[g.tool].count(t, s, g.acct, g.args, since)
		want := g.committed
		if g.tool == "GMAIL_ADD_LABEL_TO_EMAIL" || g.tool == "GMAIL_DELETE_MESSAGE" {
			want = min(want, 1)
		}
		if got != want {
			t.Errorf("%s: the provider shows %d, the truth says %d committed", k, got, g.committed)
		}
		if g.committed == 0 {
			notCommitted++
		}
	}
	if notCommitted < 20 {
		t.Errorf("only %d writes without effect were checked for absence", notCommitted)
	}
}

func TestHistoryScenariosHaveTheirSignatures(t *testing.T) {
	s, err := New(Config{Seed: 3, Size: 3000, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	execs := s.Executions()
	byID := map[string]*model.Execution{}
	for i := range execs {
		byID[execs[i].ID] = &execs[i]
	}
	writes, ambiguous := 0, 0
	groups := map[string][]*model.Execution{}
	pattern := map[string]model.RetryPattern{}
	cases := map[string]int{}
	for _, tr := range s.Truth() {
		e := byID[tr.ID]
		cases[tr.Case]++
		tool, _ := s.cat.get(tr.ToolSlug)
		if tool.write {
			writes++
			if tr.Ambiguous {
				ambiguous++
			}
		}
		looksAmbiguous := (e.Status == "success" && e.Duration > clientTimeout) ||
			(e.Error != nil && (e.Error.Kind == model.ErrTimeout || e.Error.Kind == model.ErrUpstream5xx))
		if tr.Ambiguous != looksAmbiguous {
			t.Errorf("%s (%s): truth ambiguous=%v, log %s %+v %v", tr.ID, tr.Case, tr.Ambiguous, e.Status, e.Error, e.Duration)
		}
		if tr.GroupKey != "" {
			groups[tr.GroupKey] = append(groups[tr.GroupKey], e)
			pattern[tr.GroupKey] = tr.Pattern
		}
	}
	// (SDK, session and framework retries each add a few ambiguous attempts)
	if rate := float64(ambiguous) / float64(writes); rate < 0.02 || rate > 0.055 {
		t.Errorf("%.1f%% of writes ambiguous, want 2-5%%", 100*rate)
	}
	for _, c := range []string{CaseSDKAutoRetry, CaseAppRetry, CaseDoubleSubmit, CaseCommittedTimeout, CaseUncommittedTimeout,
		Case5xxAfterCommit, Case5xxBeforeCommit, CaseRateLimitBurst, CaseValidation, CaseAuth, CaseExpiredAccount,
		CaseSessionAutoRetry, CaseFrameworkRetry, CaseAgentRetry, CaseNewsletter, CaseChannelChatter, CaseScheduledRepeat} {
		if cases[c] == 0 {
			t.Errorf("no %s in 3000 executions", c)
		}
	}
	counts := map[model.RetryPattern]int{}
	for key, members := range groups {
		counts[pattern[key]]++
		sort.Slice(members, func(i, j int) bool { return members[i].Start().Before(members[j].Start()) })
		first := members[0]
		for _, m := range members[1:] {
			if m.ToolSlug != first.ToolSlug || m.ConnectedAccountID != first.ConnectedAccountID {
				t.Fatalf("%s: members differ", key)
			}
			// an agent rewrites its text; every other cause sends the same bytes
			if same := string(m.Arguments) == string(first.Arguments); same == (pattern[key] == model.PatternAgentRetry) {
				t.Fatalf("%s (%s): arguments equal %v", key, pattern[key], same)
			}
		}
		if end, _ := members[len(members)-1].End(); end.Sub(first.Start()) > 10*time.Minute {
			t.Errorf("%s spans %v, over the 10 min window", key, end.Sub(first.Start()))
		}
		if len(members) < 2 || len(members) > 3 {
			t.Errorf("%s has %d members", key, len(members))
		}
		switch pattern[key] {
		case model.PatternFrameworkRetry:
			for i, m := range members[1:] {
				prevEnd, _ := members[i].End()
				lo, hi := time.Duration(float64(time.Second<<i)*0.75), time.Duration(float64(time.Second<<i)*1.25)
				if gap := m.Start().Sub(prevEnd); gap < lo || gap > hi || m.Source.Framework != "langchain" || m.TraceID != first.TraceID {
					t.Errorf("%s member %d: gap %v (want %v-%v) framework %q", key, i+1, gap, lo, hi, m.Source.Framework)
				}
			}
		case model.PatternSDKAutoRetry, model.PatternSessionAutoRetry:
			for i, m := range members {
				prevEnd, _ := members[max(i-1, 0)].End()
				gap := m.Start().Sub(prevEnd)
				lo, hi := 400*time.Millisecond, 500*time.Millisecond
				if i == 2 {
					lo, hi = 750*time.Millisecond, time.Second
				}
				session := strings.HasPrefix(first.SessionID, "trs_")
				switch {
				case session: // a current SDK retrying a session write: no retry count, one session
					if m.RetryCount != -1 || m.SessionID != first.SessionID || m.TraceID != first.TraceID || m.Source.Host != "sdk" ||
						!(strings.HasPrefix(m.SDKVersion, "0.2")) {
						t.Errorf("%s member %d (session): retry %d session %s trace %s source %+v sdk %s", key, i, m.RetryCount, m.SessionID, m.TraceID, m.Source, m.SDKVersion)
					}
				case m.RetryCount != i || m.TraceID != first.TraceID || m.SessionID != "" || m.Source.Host != "sdk" ||
					!(strings.HasPrefix(m.SDKVersion, "0.15.") || strings.HasPrefix(m.SDKVersion, "0.13.")):
					t.Errorf("%s member %d: retry %d trace %s source %+v sdk %s", key, i, m.RetryCount, m.TraceID, m.Source, m.SDKVersion)
				}
				if i > 0 && (gap < lo || gap > hi) {
					t.Errorf("%s member %d starts %v after the previous ended, want %v-%v", key, i, gap, lo, hi)
				}
				if i < len(members)-1 && m.Status != "failed" {
					t.Errorf("%s member %d did not fail", key, i)
				}
			}
			if first.Error != nil && first.Error.Kind == model.ErrTimeout && first.Duration < clientTimeout {
				t.Errorf("%s: timed out after %v", key, first.Duration)
			}
		case model.PatternAgentRetry:
			for i, m := range members[1:] {
				prevEnd, _ := members[i].End()
				if gap := m.Start().Sub(prevEnd); gap < 3*time.Second || gap > time.Minute || m.TraceID != first.TraceID || members[i].Status == "success" {
					t.Errorf("%s: gap %v trace %s, previous %s", key, gap, m.TraceID, members[i].Status)
				}
			}
		case model.PatternAppRetry:
			for i, m := range members[1:] {
				prevEnd, _ := members[i].End()
				if gap := m.Start().Sub(prevEnd); gap < 4*time.Second || m.TraceID != first.TraceID || m.RetryCount > 0 {
					t.Errorf("%s: gap %v trace %s retry %d", key, gap, m.TraceID, m.RetryCount)
				}
			}
		case model.PatternDoubleSubmit:
			// Two callers: two traces (the history's caller sessions are traces; context.session_id
			// is only a tool-router session's).
			sessions := map[string]bool{}
			for _, m := range members {
				sessions[m.TraceID] = true
				if m.Status != "success" && !strings.Contains(m.Message, "already exists") {
					t.Errorf("%s: member failed: %s", key, m.Message)
				}
			}
			if len(sessions) < 2 {
				t.Errorf("%s: one session", key)
			}
		default:
			t.Errorf("%s: pattern %q", key, pattern[key])
		}
	}
	for _, p := range []model.RetryPattern{model.PatternSDKAutoRetry, model.PatternAppRetry, model.PatternDoubleSubmit} {
		if counts[p] < 5 {
			t.Errorf("only %d %s groups", counts[p], p)
		}
	}
	if len(groups) < 20 {
		t.Errorf("%d duplicate groups in 3000 executions", len(groups))
	}
}

func TestHistoryHasNoAccidentalDuplicates(t *testing.T) {
	s, _ := New(Config{Seed: 5, Size: 3000, Now: testNow})
	truth := map[string]TruthRecord{}
	for _, tr := range s.Truth() {
		truth[tr.ID] = tr
	}
	last := map[string]*model.Execution{}
	execs := s.Executions()
	for i := len(execs) - 1; i >= 0; i-- { // oldest first
		e := &execs[i]
		tool, _ := s.cat.get(e.ToolSlug)
		if !tool.write {
			continue
		}
		k := e.ToolSlug + "|" + e.ConnectedAccountID + "|" + model.ArgumentHash(e.Arguments, model.DefaultVolatileKeys())
		if p := last[k]; p != nil && e.Start().Sub(p.Start()) < 10*time.Minute {
			if g := truth[e.ID].GroupKey; g == "" || g != truth[p.ID].GroupKey {
				t.Errorf("%s and %s repeat the same write outside a group", p.ID, e.ID)
			}
		}
		last[k] = e
	}
}

func TestWriteThenDocumentedReadFindsTheEffect(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	gm, sl, gh, hs := accountOf(t, s, "gmail"), accountOf(t, s, "slack"), accountOf(t, s, "github"), accountOf(t, s, "hubspot")
	s.mu.Lock()
	msgs := gm.mailbox.messages
	var inbox []*gmailMessage
	for _, m := range msgs {
		if m.hasLabel("INBOX") && !m.deleted {
			inbox = append(inbox, m)
		}
	}
	repo := gh.company.github.repos[0]
	issueNo := repo.issues[0].number
	s.mu.Unlock()
	since := testNow
	cases := []struct {
		tool string
		acct *account
		args map[string]any
	}{
		{"GMAIL_SEND_EMAIL", gm, map[string]any{"recipient_email": "lena@example.org", "subject": "Quarterly numbers", "body": "See attached.", "cc": []string{"ops@example.org"}}},
		{"GMAIL_REPLY_TO_THREAD", gm, map[string]any{"thread_id": inbox[0].threadID, "recipient_email": inbox[0].from, "message_body": "Thanks, on it."}},
		{"GMAIL_CREATE_EMAIL_DRAFT", gm, map[string]any{"recipient_email": "kim@example.org", "subject": "Draft: offer", "body": "Numbers inside"}},
		{"GMAIL_ADD_LABEL_TO_EMAIL", gm, map[string]any{"message_id": inbox[1].id, "add_label_ids": []string{"Label_Tested"}}},
		{"GMAIL_DELETE_MESSAGE", gm, map[string]any{"message_id": inbox[2].id}},
		{"SLACK_SEND_MESSAGE", sl, map[string]any{"channel": "#eng-alerts", "markdown_text": "*deploy* done"}},
		{"GITHUB_CREATE_AN_ISSUE", gh, map[string]any{"owner": repo.owner, "repo": repo.name, "title": "Sandbox issue", "body": "from a test", "labels": []string{"bug"}}},
		{"GITHUB_CREATE_AN_ISSUE_COMMENT", gh, map[string]any{"owner": repo.owner, "repo": repo.name, "issue_number": issueNo, "body": "a test comment"}},
		{"HUBSPOT_CREATE_CONTACT", hs, map[string]any{"email": "new.person@example.org", "firstname": "New", "lastname": "Person"}},
	}
	vs := verifiers()
	if len(cases) != len(vs) {
		t.Fatalf("%d cases for %d write tools", len(cases), len(vs))
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			raw, _ := json.Marshal(c.args)
			var args map[string]any
			_ = json.Unmarshal(raw, &args)
			if got := vs[c.tool].count(t, s, c.acct, args, since); got != 0 {
				t.Fatalf("the effect is there before the write: %d", got)
			}
			rid := "w-" + c.tool
			status, ans := runTool(t, ts.URL, c.tool, c.acct.id, c.args, map[string]string{"x-request-id": rid})
			if status != 200 || !ans.Successful {
				t.Fatalf("%d %+v", status, ans)
			}
			if got := vs[c.tool].count(t, s, c.acct, args, since); got != 1 {
				t.Fatalf("the documented read finds %d, want 1", got)
			}
			eff := effectsFor(s, rid)
			if len(eff) != 1 || eff[0].ObjectID == "" || eff[0].ArgumentHash != model.ArgumentHash(raw, model.DefaultVolatileKeys()) {
				t.Fatalf("effects %+v", eff)
			}
		})
	}
	// A second contact with the same email is refused, as HubSpot does.
	status, ans := runTool(t, ts.URL, "HUBSPOT_CREATE_CONTACT", hs.id, map[string]any{"email": "new.person@example.org"}, map[string]string{"x-request-id": "dup"})
	if status != 200 || ans.Successful || ans.Error == nil || !strings.Contains(*ans.Error, "already exists") || len(effectsFor(s, "dup")) != 0 {
		t.Fatalf("duplicate contact: %d %+v", status, ans)
	}
	e, _ := logByRequestIDNow(s, "dup")
	if e.Status != "failed" || e.Error == nil || e.Error.HTTPStatus != 409 {
		t.Fatalf("log %+v", e)
	}
}

func TestGmailQuerySyntax(t *testing.T) {
	now := testNow
	m := &gmailMessage{from: "Ana <ana@globex.io>", to: "bob@acme.com", subject: "Invoice #123 for May", body: "Please pay", labels: []string{"SENT"}, at: now.Add(-2 * time.Hour)}
	cases := []struct {
		q    string
		want bool
	}{
		{"", true},
		{"to:bob@acme.com", true},
		{`subject:"invoice #123"`, true},
		{"subject:(for May)", true},
		{"from:ana@globex.io in:sent", true},
		{"in:inbox", false},
		{"-in:sent", false},
		{"is:unread", false},
		{"label:SENT pay", true},
		{fmt.Sprintf("after:%d", now.Add(-3*time.Hour).Unix()), true},
		{fmt.Sprintf("after:%d", now.Add(-time.Hour).Unix()), false},
		{"before:" + now.Format("2006/01/02"), false},
		{"newer_than:1d", true},
		{"older_than:1h", true},
		{"older_than:3h", false},
		{"to:carol@acme.com", false},
		{"unpaid", false},
	}
	for _, c := range cases {
		if got := parseGmailQuery(c.q, now).match(m); got != c.want {
			t.Errorf("%q: %v, want %v", c.q, got, c.want)
		}
	}
}

func TestStartServesUntilCloseOrContextEnd(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	s, base, err := Start(ctx, Config{Size: 100, Now: testNow, HoldTimeout: time.Minute}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if base != s.URL() || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("base %q url %q", base, s.URL())
	}
	tr := &http.Transport{}
	c := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	req, _ := http.NewRequest("GET", base+"/api/v3.1/tools/GMAIL_SEND_EMAIL", nil)
	req.Header.Set("x-api-key", "k")
	res, err := c.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("%v %v", err, res)
	}
	res.Body.Close()
	// A held request must not keep Close waiting for the hold.
	s.ArmFault(FaultRule{ToolSlug: AnyTool, Mode: FaultTimeoutBeforeCommit})
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest("POST", base+"/api/v3.1/tools/execute/GMAIL_LIST_DRAFTS", strings.NewReader(`{"user_id":"user_1"}`))
		req.Header.Set("x-api-key", "k")
		res, err := c.Do(req)
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	for s.ExecuteCount() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	cancel() // the context ends the server
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the held request got an answer")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the held request outlived the server")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := c.Get(base + "/api/v3.1/tools"); err == nil {
		t.Fatal("still serving after the context ended")
	}
	tr.CloseIdleConnections()
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{{Size: MaxSize + 1}, {Span: -time.Hour}, {PageLatency: -1}, {WebhookTimeout: -1}, {MaxDeliveryAttempts: -1}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	s, err := New(Config{Size: -1})
	if err != nil || len(s.Executions()) != 0 {
		t.Fatalf("empty sandbox: %v", err)
	}
}

func BenchmarkGenerate3000(b *testing.B) {
	for b.Loop() {
		if _, err := New(Config{Seed: 1, Size: 3000, Now: testNow}); err != nil {
			b.Fatal(err)
		}
	}
}
