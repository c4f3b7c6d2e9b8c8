package triage_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// The corpus's family of rewrites into scripts other than Latin (written before any rule read
// them): an agent that saw an error writes the shipping notice again in Russian, Greek, Arabic,
// Hebrew, Hindi, Japanese, Chinese, Korean, Thai or English, keeping the order number and the
// day of delivery. Its near-miss: after a failure, a notice of the same order for another day.

// scriptNotices are shipping notices by language: {n} the order number, {day} the day of
// delivery in the form the sentence takes, {name} the customer.
var scriptNotices = map[string][]string{
	"en": {"Hi {name}, your order {n} has shipped and should arrive on {day}.", "{name}, good news: order {n} is on its way. Expected delivery: {day}."},
	"ru": {"{name}, ваш заказ {n} отправлен. Доставка ожидается в {day}.", "Добрый день! Заказ {n} уже в пути и прибудет в {day}."},
	"el": {"{name}, η παραγγελία σας {n} στάλθηκε. Παράδοση: {day}.", "Καλά νέα: η παραγγελία {n} είναι καθ' οδόν και φτάνει {day}."},
	"ar": {"تم شحن طلبك رقم {n}. التسليم المتوقع يوم {day}.", "أخبار سارة: طلبك {n} في الطريق وسيصل يوم {day}."},
	"he": {"ההזמנה שלך {n} נשלחה. המשלוח צפוי ביום {day}.", "חדשות טובות: הזמנה {n} בדרך ותגיע ביום {day}."},
	"hi": {"आपका ऑर्डर {n} भेज दिया गया है। डिलीवरी {day} तक होगी।", "खुशखबरी: ऑर्डर {n} रास्ते में है और {day} तक पहुंच जाएगा।"},
	"ja": {"ご注文{n}は発送されました。{day}にお届け予定です。", "注文番号{n}を発送いたしました。到着は{day}の予定です。"},
	"zh": {"您的订单{n}已发货，预计{day}送达。", "好消息：订单{n}已在路上，将于{day}到达。"},
	"ko": {"주문 {n}이 발송되었습니다. {day}에 도착 예정입니다.", "좋은 소식입니다: 주문 {n}이 배송 중이며 {day}에 도착합니다."},
	"th": {"คำสั่งซื้อ {n} จัดส่งแล้ว จะถึง{day}", "ข่าวดี คำสั่งซื้อ {n} กำลังเดินทางและจะถึงใน{day}"},
}

// scriptDays are the days of the week, Monday first, in the form the notices put them.
var scriptDays = map[string][7]string{
	"en": {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"},
	"ru": {"понедельник", "вторник", "среду", "четверг", "пятницу", "субботу", "воскресенье"},
	"el": {"Δευτέρα", "Τρίτη", "Τετάρτη", "Πέμπτη", "Παρασκευή", "Σάββατο", "Κυριακή"},
	"ar": {"الاثنين", "الثلاثاء", "الأربعاء", "الخميس", "الجمعة", "السبت", "الأحد"},
	"he": {"שני", "שלישי", "רביעי", "חמישי", "שישי", "שבת", "ראשון"},
	"hi": {"सोमवार", "मंगलवार", "बुधवार", "गुरुवार", "शुक्रवार", "शनिवार", "रविवार"},
	"ja": {"月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日", "日曜日"},
	"zh": {"周一", "周二", "周三", "周四", "周五", "周六", "周日"},
	"ko": {"월요일", "화요일", "수요일", "목요일", "금요일", "토요일", "일요일"},
	"th": {"วันจันทร์", "วันอังคาร", "วันพุธ", "วันพฤหัสบดี", "วันศุกร์", "วันเสาร์", "วันอาทิตย์"},
}

// scriptNotice writes the notice of order n for day (0 Monday) in a language drawn, other than
// those in used.
func (g *corpusGen) scriptNotice(name string, n, day int, used map[string]bool) string {
	var langs []string
	for _, l := range slices.Sorted(maps.Keys(scriptNotices)) {
		if !used[l] {
			langs = append(langs, l)
		}
	}
	l := pickOne(g.r, langs)
	used[l] = true
	return strings.NewReplacer("{name}", name, "{n}", fmt.Sprint(n), "{day}", scriptDays[l][day]).Replace(pickOne(g.r, scriptNotices[l]))
}

// agentRewritesScripts: the send fails (or times out) and the agent writes the notice again in
// another language, 5 to 60 s later; the subject is the order number. agent_retry.
func (g *corpusGen) agentRewritesScripts() {
	c, name, n, day, addr, tg := g.scriptOrder()
	key := g.newGroup(model.PatternAgentRetry)
	used := map[string]bool{}
	t := g.start()
	for i := range 2 {
		end := endOK
		if i == 0 {
			end = g.failure()
		}
		w := writing{subject: fmt.Sprintf("#%d", n), body: g.scriptNotice(name, n, day, used)}
		stopped := g.add(c, tg, gmailSend(addr, w), t, end, g.fast(), -1, key)
		t = stopped.Add(time.Duration(5000+g.r.IntN(55000)) * time.Millisecond)
	}
}

// otherDayInAScript: after a failed notice, a notice of the same order for another day, in
// the same or another language: two messages.
func (g *corpusGen) otherDayInAScript() {
	c, name, n, day, addr, tg := g.scriptOrder()
	t := g.start()
	first := g.scriptNotice(name, n, day, map[string]bool{})
	stopped := g.add(c, tg, gmailSend(addr, writing{subject: fmt.Sprintf("#%d", n), body: first}), t, g.failure(), g.fast(), -1, "")
	other := g.scriptNotice(name, n, (day+1+g.r.IntN(6))%7, map[string]bool{})
	g.add(c, tg, gmailSend(addr, writing{subject: fmt.Sprintf("#%d", n), body: other}), stopped.Add(time.Duration(5+g.r.IntN(50))*time.Second),
		endOK, g.fast(), -1, "")
}

// scriptOrder draws the caller, the customer, an order number and its day of delivery, the
// customer's address and the Gmail send they are told through.
func (g *corpusGen) scriptOrder() (c caller, name string, n, day int, addr string, tg target) {
	c, name = g.current(), pickOne(g.r, corpusNames)
	n, day = 10000+g.r.IntN(89999), g.r.IntN(7)
	addr = fmt.Sprintf("%s.%d@example.org", strings.ToLower(name), g.r.IntN(10000))
	return c, name, n, day, addr, target{"GMAIL_SEND_EMAIL", "gmail", nil}
}
