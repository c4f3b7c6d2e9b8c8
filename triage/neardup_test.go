package triage

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/model"
)

func mail(to, subject, body string) string {
	return fmt.Sprintf(`{"recipient_email":%q,"subject":%q,"body":%q}`, to, subject, body)
}

func slack(channel, text string) string {
	return fmt.Sprintf(`{"channel":%q,"text":%q}`, channel, text)
}

// TestRewordedInAnyScript: a message the agent wrote again after a timeout, in its own script
// or another, joins its first attempt when both carry the same facts (the order, the day of the
// week); the same message about another day is another message. Words are what their script
// makes words: marks stay on their letters (Devanagari, Thai), text written without spaces
// (Chinese, Japanese, Thai) is compared by pairs of characters, a number against such text is a
// number.
func TestRewordedInAnyScript(t *testing.T) {
	const ja = "アンナ様、注文番号42609を発送いたしました。到着は火曜日の予定です。"
	for _, c := range []struct {
		lang        string
		first, then string
		one         bool
	}{
		{"ru", "Анна, ваш заказ 42609 отправлен сегодня. Доставка ожидается во вторник.", "Добрый день, Анна! Заказ 42609 уже в пути и прибудет во вторник.", true},
		{"el", "Άννα, η παραγγελία σας 42609 στάλθηκε σήμερα. Παράδοση την Τρίτη.", "Καλά νέα Άννα: η παραγγελία 42609 είναι καθ' οδόν και φτάνει την Τρίτη.", true},
		{"ar", "آنا، تم شحن طلبك رقم 42609 اليوم. التسليم المتوقع يوم الثلاثاء.", "أخبار سارة يا آنا: طلبك 42609 في الطريق وسيصل يوم الثلاثاء.", true},
		{"he", "אנה, ההזמנה שלך 42609 נשלחה היום. המשלוח צפוי ביום שלישי.", "חדשות טובות אנה: הזמנה 42609 בדרך ותגיע ביום שלישי.", true},
		{"hi", "अन्ना, आपका ऑर्डर 42609 आज भेज दिया गया है। डिलीवरी मंगलवार तक होगी।", "खुशखबरी अन्ना: ऑर्डर 42609 रास्ते में है और मंगलवार तक पहुंच जाएगा।", true},
		{"ja", "アンナ様、ご注文42609は本日発送されました。火曜日にお届け予定です。", ja, true},
		{"zh", "安娜，您的订单42609今天已发货，预计周二送达。", "好消息安娜：订单42609已在路上，将于周二到达。", true},
		{"ko", "안나님, 주문 42609이 오늘 발송되었습니다. 화요일에 도착 예정입니다.", "좋은 소식입니다 안나님: 주문 42609이 배송 중이며 화요일에 도착합니다.", true},
		{"th", "คุณแอนนา คำสั่งซื้อ 42609 ของคุณจัดส่งแล้ววันนี้ จะถึงวันอังคาร", "ข่าวดีคุณแอนนา คำสั่งซื้อ 42609 กำลังเดินทางและจะถึงในวันอังคาร", true},
		{"en to ja", "Anna, we shipped order 42609 today. Expected delivery: Tuesday.", ja, true},
		// another day is another message, however alike the words
		{"ru, another day", "Заказ 42609 прибудет во вторник.", "Заказ 42609 прибудет в пятницу.", false},
		{"ja, another day", "ご注文42609は火曜日に届きます。", "ご注文42609は金曜日に届きます。", false},
		{"zh, another day", "订单42609将于周二送达。", "订单42609将于周五送达。", false},
		{"hi, another day", "ऑर्डर 42609 मंगलवार को पहुंचेगा।", "ऑर्डर 42609 शुक्रवार को पहुंचेगा।", false},
		{"he, another day", "ההזמנה 42609 תגיע ביום שלישי.", "ההזמנה 42609 תגיע ביום שישי.", false},
		{"en to ja, another day", "Anna, we shipped order 42609 today. Expected delivery: Friday.", ja, false},
		// one order number alone does not make one message: its confirmation and its notice share it
		{"zh, the order alone", "订单42609已确认。", "订单42609已发货，请查收。", false},
	} {
		t.Run(c.lang, func(t *testing.T) {
			execs := []model.Execution{
				attempt{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1, args: mail("anna@x.io", "42609", c.first)}.exec(),
				attempt{id: "b", at: sec(65), dur: sec(1), retry: -1, args: mail("anna@x.io", "42609", c.then)}.exec(),
			}
			res := Analyze(execs, nil, Options{})
			if got := len(res.Groups) == 1; got != c.one {
				t.Fatalf("one group: %v, want %v (%v)", got, c.one, res.Groups)
			}
		})
	}
}

// TestNearDuplicateGrouping: the duplicates a person would count, and the near-misses a person
// would not, through Analyze and through Incremental (the TUI's path), which must agree.
func TestNearDuplicateGrouping(t *testing.T) {
	const (
		bodyA = "Hi Dana,\n\nAttached is invoice INV-1042 for $1,250.00, due on March 3. Let me know if you have any questions.\n\nBest,\nSam"
		bodyB = "Hello Dana,\n\nPlease find attached invoice INV-1042 for $1250, which is due March 3. Feel free to reach out with any questions.\n\nRegards,\nSam"
		bodyC = "Dana, invoice INV-1042 ($1,250.00) is attached; it is due March 3. Any questions, just ask. Sam"
	)
	tests := []struct {
		name     string
		attempts []attempt
		groups   [][]string
		pattern  model.RetryPattern
		match    string // regexp the group's Match must match
		reason   string // regexp the group's Reason must match
	}{
		{
			name: "agent re-sends a reworded email after a timeout",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1, args: mail("dana@x.io", "Invoice INV-1042", bodyA), session: "trs_1"},
				{id: "b", at: sec(60 + 12), dur: sec(1), retry: -1, args: mail("dana@x.io", "Invoice INV-1042", bodyB), session: "trs_1"},
			},
			groups: [][]string{{"a", "b"}}, pattern: model.PatternAgentRetry,
			match:  `^same recipients; body reworded, \d+% similar \(numbers and names equal\)$`,
			reason: `^2 attempts 12\.0 s after a timeout, the text regenerated each time, in one session: the agent called the tool again; fix: the agent retried`,
		},
		{
			name: "three regenerations join one group",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1, args: mail("dana@x.io", "Invoice INV-1042", bodyA)},
				{id: "b", at: sec(20), dur: sec(1), err: gatewayErr, retry: -1, args: mail("dana@x.io", "Invoice INV-1042", bodyB)},
				{id: "c", at: sec(50), dur: sec(1), retry: -1, args: mail("dana@x.io", "Invoice INV-1042", bodyC)},
			},
			groups: [][]string{{"a", "b", "c"}}, pattern: model.PatternAgentRetry,
			reason: `after each 5xx`,
		},
		{
			name: "identical repeats are still exact duplicates",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1, args: slack("C1", "deploy done")},
				{id: "b", at: sec(30), dur: sec(1), err: gatewayErr, retry: -1, args: slack("C1", "deploy done")},
				{id: "c", at: sec(60), dur: sec(1), retry: -1, args: slack("C1", "deploy done")},
			},
			groups: [][]string{{"a", "b", "c"}}, pattern: model.PatternAppRetry, match: `^identical arguments$`,
		},
		{
			name: "a newsletter: the same text to different recipients",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1, args: mail("a@x.io", "November news", bodyA)},
				{id: "b", at: sec(0.2), dur: sec(1), retry: -1, args: mail("b@x.io", "November news", bodyA)},
				{id: "c", at: sec(0.4), dur: sec(1), retry: -1, args: mail("c@x.io", "November news", bodyA)},
			},
		},
		{
			name: "two different messages to one channel",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1, args: slack("C1", "Deploy of billing-api v2.3 finished, all checks green.")},
				{id: "b", at: sec(40), dur: sec(1), retry: -1, args: slack("C1", "Deploy of billing-api v2.3 started.")},
				{id: "c", at: sec(80), dur: sec(1), retry: -1, args: slack("C1", "Order 1041 has shipped.")},
				{id: "d", at: sec(90), dur: sec(1), retry: -1, args: slack("C1", "Order 1042 has shipped.")},
			},
		},
		{
			name: "a follow-up after a success: same facts, new message",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1, args: mail("dana@x.io", "Invoice INV-1042", "Hi Dana, invoice INV-1042 for $1,250.00 is attached. Payment is due March 3.")},
				{id: "b", at: sec(240), dur: sec(1), retry: -1, args: mail("dana@x.io", "Invoice INV-1042", "Hi Dana, a reminder that invoice INV-1042 for $1,250.00 is still open; payment is due March 3.")},
			},
		},
		{
			name: "the same follow-up after a timeout is the agent's re-send",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1, args: mail("dana@x.io", "Invoice INV-1042", "Hi Dana, invoice INV-1042 for $1,250.00 is attached. Payment is due March 3.")},
				{id: "b", at: sec(90), dur: sec(1), retry: -1, args: mail("dana@x.io", "Invoice INV-1042", "Hi Dana, a reminder that invoice INV-1042 for $1,250.00 is still open; payment is due March 3.")},
			},
			groups: [][]string{{"a", "b"}}, pattern: model.PatternAgentRetry,
		},
		{
			// one caller, one target, the same facts (a name, an order, a day) after a timeout:
			// one intent however few words the two texts share
			name: "written anew after a timeout, every fact kept",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1, args: mail("ingrid@x.io", "Your order 42609", "Ingrid, we shipped order 42609 today. Expected delivery: Tuesday.")},
				{id: "b", at: sec(65), dur: sec(1), retry: -1, args: mail("ingrid@x.io", "Your order 42609", "Good news Ingrid: order 42609 is on its way and will be with you by Tuesday.")},
			},
			groups: [][]string{{"a", "b"}}, pattern: model.PatternAgentRetry,
			match: `^same recipients; body reworded, 22% similar \(numbers and names equal\)$`,
		},
		{
			name: "written anew after a success, every fact kept: a new message",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1, args: mail("ingrid@x.io", "Your order 42609", "Ingrid, we shipped order 42609 today. Expected delivery: Tuesday.")},
				{id: "b", at: sec(65), dur: sec(1), retry: -1, args: mail("ingrid@x.io", "Your order 42609", "Good news Ingrid: order 42609 is on its way and will be with you by Tuesday.")},
			},
		},
		{
			name: "written anew after a timeout about another day: two messages",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1, args: mail("ingrid@x.io", "Your order 42609", "Ingrid, we shipped order 42609 today. Expected delivery: Tuesday.")},
				{id: "b", at: sec(65), dur: sec(1), retry: -1, args: mail("ingrid@x.io", "Your order 42609", "Good news Ingrid: order 42609 is on its way and will be with you by Friday.")},
			},
		},
		{
			// a message under a name no list holds: its last word says what it is
			name: "reworded under a compound name (messageBody) after a timeout",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1,
					args: `{"toRecipients":"dana@x.io","messageBody":"Hi Dana, invoice INV-1042 for $1,250.00 is attached. Payment is due March 3."}`},
				{id: "b", at: sec(70), dur: sec(1), retry: -1,
					args: `{"toRecipients":"dana@x.io","messageBody":"Hello Dana, attached is invoice INV-1042 for $1,250.00; payment is due on March 3."}`},
			},
			groups: [][]string{{"a", "b"}}, pattern: model.PatternAgentRetry,
		},
		{
			name: "an identifier under a compound name (message_id) is the target, not text",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1, args: `{"message_id":"Order 1042 for Dana ships March 3","label":"done"}`},
				{id: "b", at: sec(70), dur: sec(1), retry: -1, args: `{"message_id":"Order 1042 for Dana shipped March 3","label":"done"}`},
			},
		},
		{
			// a model filling every field sends empty ones the first call left out
			name: "re-sent after a timeout with empty fields filled in",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1, args: slack("C1", "Deploy of billing-api 2.3.1 finished at 14:30, all checks green.")},
				{id: "b", at: sec(40), dur: sec(1), retry: -1,
					args: `{"channel":"C1","text":"Deploy of billing-api 2.3.1 finished at 14:30, all checks green.","thread_ts":"","blocks":[]}`},
			},
			groups: [][]string{{"a", "b"}}, pattern: model.PatternAppRetry,
		},
		{
			name: "written again without its order number after a timeout",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1, args: mail("ingrid@x.io", "Your order", "Hi Ingrid, your order 42609 has shipped and should arrive by Tuesday.")},
				{id: "b", at: sec(70), dur: sec(1), retry: -1, args: mail("ingrid@x.io", "Your order", "Hi Ingrid, your order has shipped and it should arrive by Tuesday.")},
			},
			groups: [][]string{{"a", "b"}}, pattern: model.PatternAgentRetry,
		},
		{
			name: "another order's notice after a timeout: two messages",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1, args: mail("ingrid@x.io", "Your order", "Hi Ingrid, your order 42609 has shipped and should arrive by Tuesday.")},
				{id: "b", at: sec(70), dur: sec(1), retry: -1, args: mail("ingrid@x.io", "Your order", "Hi Ingrid, your order 42610 has shipped and should arrive by Tuesday.")},
			},
		},
		{
			name: "a scheduled job repeating after the window",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1, args: slack("C1", "Nightly report is ready")},
				{id: "b", at: sec(3600), dur: sec(1), retry: -1, args: slack("C1", "Nightly report is ready")},
			},
		},
		{
			name: "interleaved: two conversations to one channel, each re-sent",
			attempts: []attempt{
				{id: "a1", at: 0, dur: sec(1), err: gatewayErr, retry: -1, args: slack("C1", "The quarterly review with Acme is tomorrow at 10:00")},
				{id: "b1", at: sec(5), dur: sec(1), err: gatewayErr, retry: -1, args: slack("C1", "Lunch order for Friday is in the kitchen")},
				{id: "a2", at: sec(30), dur: sec(1), retry: -1, args: slack("C1", "Reminder: our quarterly review with Acme is tomorrow at 10:00")},
				{id: "b2", at: sec(35), dur: sec(1), retry: -1, args: slack("C1", "Friday's lunch order is in the kitchen")},
			},
			groups: [][]string{{"a1", "a2"}, {"b1", "b2"}}, pattern: model.PatternAgentRetry,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			execs := make([]model.Execution, len(tt.attempts))
			for i, a := range tt.attempts {
				execs[i] = a.exec()
			}
			if strings.HasPrefix(tt.attempts[0].args, `{"channel"`) { // Slack arguments: a Slack tool
				for i := range execs {
					execs[i].ToolSlug, execs[i].ToolkitSlug = "SLACK_SEND_MESSAGE", "slack"
				}
			}
			res := Analyze(execs, nil, Options{})
			var got [][]string
			for _, g := range res.Groups {
				got = append(got, g.ExecutionIDs)
				if tt.pattern != "" && g.Pattern != tt.pattern {
					t.Errorf("group %v: pattern %s, want %s (%s)", g.ExecutionIDs, g.Pattern, tt.pattern, g.Reason)
				}
				if tt.match != "" && !regexp.MustCompile(tt.match).MatchString(g.Match) {
					t.Errorf("group %v: match %q, want /%s/", g.ExecutionIDs, g.Match, tt.match)
				}
				if tt.reason != "" && !regexp.MustCompile(tt.reason).MatchString(g.Reason) {
					t.Errorf("group %v: reason %q, want /%s/", g.ExecutionIDs, g.Reason, tt.reason)
				}
				if (g.Similarity < 1) != strings.Contains(g.Match, "reworded") || g.Similarity <= 0 {
					t.Errorf("group %v: similarity %.2f with match %q", g.ExecutionIDs, g.Similarity, g.Match)
				}
			}
			if !slices.EqualFunc(got, tt.groups, slices.Equal) {
				t.Fatalf("groups %v, want %v", got, tt.groups)
			}
			inc := NewIncremental(nil, Options{})
			for i := range execs {
				inc.Add(&execs[i])
			}
			groups, _, err := inc.Groups(context.Background(), func(_ context.Context, pos int) (model.Execution, error) { return execs[pos], nil })
			if err != nil {
				t.Fatal(err)
			}
			if len(groups) != len(res.Groups) {
				t.Fatalf("incremental found %d groups, Analyze %d", len(groups), len(res.Groups))
			}
			for i := range groups {
				if !slices.Equal(groups[i].ExecutionIDs, res.Groups[i].ExecutionIDs) || groups[i].Pattern != res.Groups[i].Pattern || groups[i].Match != res.Groups[i].Match {
					t.Errorf("incremental group %+v, Analyze %+v", groups[i], res.Groups[i])
				}
			}
		})
	}
}

// TestAHeadingIsNotTheTarget: an issue's title, a page's title, a record's name say what the
// write is about, not where it goes (the repository, the team): an agent that rewrote the title
// with the body after a timeout re-sent one issue; a template's body under two titles after a
// failure is two issues (under another heading only the facts join). Analyze and Incremental
// agree.
func TestAHeadingIsNotTheTarget(t *testing.T) {
	for _, c := range []struct {
		name, slug, a, b string
		one              bool
	}{
		{"an issue's title and body rewritten, the facts kept", "GITHUB_CREATE_AN_ISSUE",
			`{"owner":"acme","repo":"api","title":"Login fails with 500 on /v2/auth","body":"Since release 4.12.1 the /v2/auth endpoint returns 500 for SSO users."}`,
			`{"owner":"acme","repo":"api","title":"500 error on /v2/auth login","body":"After deploying 4.12.1, SSO users get a 500 from /v2/auth."}`, true},
		{"a task's title rewritten, its description reworded", "LINEAR_CREATE_LINEAR_ISSUE",
			`{"team_id":"T1","title":"Refund order 42609 for Ingrid","description":"Customer Ingrid asked for a refund of $129.99 on order 42609."}`,
			`{"team_id":"T1","title":"Ingrid: refund for 42609","description":"Please refund $129.99 to Ingrid (order 42609)."}`, true},
		{"one template body under two titles: two issues", "GITHUB_CREATE_AN_ISSUE",
			`{"owner":"acme","repo":"api","title":"Crash on logout","body":"Steps to reproduce: open the app and tap the button. Expected: no crash."}`,
			`{"owner":"acme","repo":"api","title":"Crash on login","body":"Steps to reproduce: open the app and tap the button. Expected: no crash."}`, false},
		{"one body under two invoices' subjects: two emails", "GMAIL_SEND_EMAIL",
			`{"recipient_email":"dana@x.io","subject":"Invoice 1042","body":"Hi Dana, your invoice for March is attached: $120.00, due on Friday."}`,
			`{"recipient_email":"dana@x.io","subject":"Invoice 1043","body":"Hi Dana, your invoice for March is attached: $120.00, due on Friday."}`, false},
		{"one body under two issues' titles: two issues", "GITHUB_CREATE_AN_ISSUE",
			`{"owner":"acme","repo":"api","title":"Flaky test in build 4412","body":"The SSO suite failed 3 times on Friday in release 4.12.1."}`,
			`{"owner":"acme","repo":"api","title":"Flaky test in build 4413","body":"The SSO suite failed 3 times on Friday in release 4.12.1."}`, false},
		{"the subject rewritten without its number: one email", "GMAIL_SEND_EMAIL",
			`{"recipient_email":"dana@x.io","subject":"Invoice 1042","body":"Hi Dana, invoice 1042 for March is attached: $120.00, due on Friday."}`,
			`{"recipient_email":"dana@x.io","subject":"Your invoice","body":"Dana, attached is invoice 1042 ($120.00, March), payable Friday."}`, true},
		// near-duplicate bodies with the same facts, a number among them (two facts in all: too few
		// for the facts alone), under headings in other words that name no other thing
		{"a task retitled, its text nearly the same, a number and a name", "LINEAR_CREATE_LINEAR_ISSUE",
			`{"team_id":"T1","title":"search: exports time out after 79088 s","description":"Mateo reports search exports timing out at 79088 seconds."}`,
			`{"team_id":"T1","title":"Investigate search export timeouts","description":"Exports from search time out after 79088 seconds (Mateo)."}`, true},
		{"nearly the same text without a number under two titles: two tasks", "LINEAR_CREATE_LINEAR_ISSUE",
			`{"team_id":"T1","title":"Crash on logout","description":"Mateo reports the app crashes when the button is tapped."}`,
			`{"team_id":"T1","title":"Crash on login","description":"The app crashes when the button is tapped, Mateo reports."}`, false},
		{"the same title in another repository: two issues", "GITHUB_CREATE_AN_ISSUE",
			`{"owner":"acme","repo":"api","title":"Bump 4.12.1","body":"Release 4.12.1 for SSO users."}`,
			`{"owner":"acme","repo":"web","title":"Bump 4.12.1","body":"Release 4.12.1 for SSO users."}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			execs := []model.Execution{
				attempt{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1, args: c.a}.exec(),
				attempt{id: "b", at: sec(70), dur: sec(1), retry: -1, args: c.b}.exec(),
			}
			for i := range execs {
				execs[i].ToolSlug, execs[i].ToolkitSlug = c.slug, strings.ToLower(strings.SplitN(c.slug, "_", 2)[0])
			}
			res := Analyze(execs, nil, Options{})
			if got := len(res.Groups) == 1; got != c.one {
				t.Fatalf("one group: %v, want %v (%+v)", got, c.one, res.Groups)
			}
			inc := NewIncremental(nil, Options{})
			for i := range execs {
				inc.Add(&execs[i])
			}
			groups, _, err := inc.Groups(context.Background(), func(_ context.Context, pos int) (model.Execution, error) { return execs[pos], nil })
			if err != nil {
				t.Fatal(err)
			}
			if len(groups) != len(res.Groups) {
				t.Fatalf("incremental found %d groups, Analyze %d", len(groups), len(res.Groups))
			}
		})
	}
}
