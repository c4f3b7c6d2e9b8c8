package triage

import (
	"slices"
	"strings"
	"testing"
)

// TestEntities: the facts of a message in their normal form, the same in every writing of
// them (languages, conventions, markup).
func TestEntities(t *testing.T) {
	for _, c := range []struct {
		text string
		want string
	}{
		{"Your order A-78274 shipped on March 14, 2026; tracking 1Z999AA10123456784.", "C:1Z999AA10123456784 C:A78274 D:03-14"},
		{"Seu pedido A-78274 foi enviado em 14 de março de 2026. Rastreamento: 1Z999AA10123456784.", "C:1Z999AA10123456784 C:A78274 D:03-14"},
		{"Tu pedido A-78274 se envió el 14/03/2026 (seguimiento 1Z999AA10123456784)", "C:1Z999AA10123456784 C:A78274 D:03-14"},
		{"Ihre Bestellung A-78274 wurde am 14. März 2026 versandt", "C:A78274 D:03-14"},
		{"due 03/14/2026", "D:03-14"},
		{"fällig am 14.03.2026", "D:03-14"},
		{"on March 14th", "D:03-14"},
		{"on the 14th of March", "D:03-14"},
		{"le 14 mars à 14h30", "D:03-14 T:14:30"},
		{"Sent 21:26:46 · order A-78274", "C:A78274"}, // maskVolatile runs first in signature; here the time is no H:MM fact either
		{"due 2026-03-14", "D:03-14"},
		{"Invoice 2041 for $1,250.00", "N:1250 N:2041"},
		{"Fatura 2041 de R$ 1.250,00", "N:1250 N:2041"},
		{"refund of $12.50", "N:12.5"},
		{"reembolso de 12,50 €", "N:12.5"},
		{"the call at 2:30 PM", "T:14:30"},
		{"a chamada às 14h30", "T:14:30"},
		{"o encontro às 14:30", "T:14:30"},
		{"see you at 4pm", "T:16:00"},
		{"3 items in 5 days, 2nd try, 60s timeout", ""},
		{"<p>Details: <a href=\"https://status.example.com/incidents/42/\">here</a></p>", "U:https://status.example.com/incidents/42"},
		{"Details: <https://Status.Example.com/incidents/42|here>", "U:https://status.example.com/incidents/42"},
		{"Details: [here](https://status.example.com/incidents/42).", "U:https://status.example.com/incidents/42"},
		// a campaign's tags and click ids say where a click came from, not what the link is
		{"report: https://acme.com/blog/q4?utm_source=linkedin&utm_medium=social", "U:https://acme.com/blog/q4"},
		{"report: https://acme.com/blog/q4?id=7&fbclid=IwAR3x#charts", "U:https://acme.com/blog/q4?id=7#charts"},
		{"report: https://acme.com/blog/q4?id=7", "U:https://acme.com/blog/q4?id=7"},
		{"home: https://Acme.com?utm_source=x.", "U:https://acme.com"},
		{"write to Ana Ruiz <Ana.Ruiz@Example.com> today", "E:ana.ruiz@example.com"},
		{"call +1 415-555-0134", "N:4155550134"},
		{"May I ask", ""},
		{"<p style=\"color:#FF0000\" width=\"600\">Order&nbsp;A-78274 &amp; invoice 2041</p>", "C:A78274 N:2041"},
		// a number against a word of a script that is not Latin is a number, not a code
		{"ご注文42609は本日発送されました。火曜日にお届け予定です。", "N:42609 W:2"},
		{"您的订单42609今天已发货，预计周二送达。", "N:42609 W:2"},
		{"주문 42609이 오늘 발송되었습니다. 화요일에 도착 예정입니다.", "N:42609 W:2"},
		{"Заказ 42609 прибудет во вторник", "N:42609 W:2"},
		{"Η παραγγελία 42609 φτάνει την Τρίτη", "N:42609 W:2"},
		{"طلبك 42609 في الطريق وسيصل يوم الثلاثاء", "N:42609 W:2"},
		{"הזמנה 42609 בדרך ותגיע ביום שלישי", "N:42609 W:2"},
		{"ऑर्डर 42609 मंगलवार तक पहुंच जाएगा", "N:42609 W:2"},
		{"คำสั่งซื้อ 42609 จะถึงในวันอังคาร", "N:42609 W:2"},
		{"Zamówienie 42609 dotrze w środę; la commande arrive mercredi", "N:42609 W:3"},
		{"Ticket A-78274 closes Friday", "C:A78274 W:5"},
		{"segunda tentativa, a quinta vez", ""}, // ordinals, not Monday and Thursday
	} {
		got := strings.Join(entities(c.text), " ")
		if got != c.want {
			t.Errorf("entities(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	en := entities("Your order A-78274 shipped on March 14, 2026; tracking 1Z999AA10123456784.")
	pt := entities("Seu pedido A-78274 foi enviado em 14 de março de 2026. Rastreamento: 1Z999AA10123456784.")
	if !slices.Equal(en, pt) {
		t.Fatalf("%v vs %v", en, pt)
	}
}

// FuzzEntities: any text gives sorted, unique entities, the same each time, and never a panic
// (a scan reads every failed write's text).
func FuzzEntities(f *testing.F) {
	for _, s := range []string{"Your order A-78274 shipped on March 14, 2026; tracking 1Z999AA10123456784.", "a chamada às 14h30",
		"<a href=\"https://x.io/a\">x</a> ana@x.com", "1.250,00 € 12,50 4pm 2:30 PM 03/14/2026 14. März", "@@..::--//", "12h", "am pm 1am 13pm", "3rd of"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, b := entities(s), entities(s)
		if !slices.Equal(a, b) {
			t.Fatalf("%q: %v then %v", s, a, b)
		}
		for i := 1; i < len(a); i++ {
			if a[i-1] >= a[i] {
				t.Fatalf("%q: %v not sorted and unique", s, a)
			}
		}
	})
}
