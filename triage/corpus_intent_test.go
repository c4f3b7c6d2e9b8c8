package triage_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// The corpus's families for intent identity: an agent that saw an error writes the
// message again from scratch, in another language, as HTML, with the recipient spelled another
// way, or through a sibling tool (a Gmail draft, the user's Outlook). Written for this test:
// phrasings in English, Portuguese, Spanish, German and French, each carrying the message's
// facts in its own language's conventions (dates, amounts, times), none of them used to choose
// a threshold (those came from entities_test.go's table and similar_test.go's phrase pairs).

// worldFacts are one message's facts, written per language.
type worldFacts struct {
	name, code, inv, track, url string
	month, day, hour, minute    int
	cents                       int
}

func (g *corpusGen) worldFacts() worldFacts {
	n := 10000 + g.r.IntN(89999)
	return worldFacts{
		name: pickOne(g.r, corpusNames), code: fmt.Sprintf("A-%d", n), inv: fmt.Sprintf("INV-%d", 1000+g.r.IntN(9000)),
		track: fmt.Sprintf("1Z%03dAA%010d", g.r.IntN(1000), g.r.Int64N(1e10)), url: fmt.Sprintf("https://meet.example.com/r/%x", g.r.Uint32()),
		month: 1 + g.r.IntN(12), day: 1 + g.r.IntN(28), hour: 8 + g.r.IntN(10), minute: 5 * g.r.IntN(12), cents: 2000 + g.r.IntN(500000),
	}
}

var monthNames = map[string][12]string{
	"en": {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	"pt": {"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"},
	"es": {"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
	"de": {"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
	"fr": {"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
}

func (f worldFacts) date(lang string, r int) string {
	m := monthNames[lang][f.month-1]
	switch lang {
	case "en":
		if r%2 == 0 {
			return fmt.Sprintf("%s %d", m, f.day)
		}
		return fmt.Sprintf("%02d/%02d/2026", f.month, f.day)
	case "de":
		return fmt.Sprintf("%d. %s", f.day, m)
	case "fr":
		return fmt.Sprintf("%d %s", f.day, m)
	}
	if r%2 == 0 {
		return fmt.Sprintf("%d de %s", f.day, m)
	}
	return fmt.Sprintf("%02d/%02d/2026", f.day, f.month)
}

func (f worldFacts) amount(lang string) string {
	whole, cents := f.cents/100, f.cents%100
	group := func(sep string) string {
		s := fmt.Sprint(whole)
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + sep + s[i:]
		}
		return s
	}
	switch lang {
	case "en":
		return fmt.Sprintf("$%s.%02d", group(","), cents)
	case "pt":
		return fmt.Sprintf("R$ %s,%02d", group("."), cents)
	}
	return fmt.Sprintf("%s,%02d €", group("."), cents)
}

func (f worldFacts) time(lang string) string {
	switch lang {
	case "en":
		h := f.hour % 12
		if h == 0 {
			h = 12
		}
		ampm := "AM"
		if f.hour >= 12 {
			ampm = "PM"
		}
		return fmt.Sprintf("%d:%02d %s", h, f.minute, ampm)
	case "pt", "fr":
		return fmt.Sprintf("%dh%02d", f.hour, f.minute)
	}
	return fmt.Sprintf("%d:%02d", f.hour, f.minute)
}

// worldIntent is one message in several languages: subject and body per language, and other
// English writings of it from scratch.
type worldIntent struct {
	subject map[string]string
	body    map[string][]string
}

func worldIntents() []worldIntent {
	return []worldIntent{
		{ // shipped
			subject: map[string]string{"en": "Your order {code} has shipped", "pt": "Seu pedido {code} foi enviado", "es": "Tu pedido {code} ha sido enviado",
				"de": "Ihre Bestellung {code} wurde versandt", "fr": "Votre commande {code} a été expédiée"},
			body: map[string][]string{
				"en": {"Hi {name}, your order {code} shipped on {date}. Tracking number: {track}.",
					"{name} — good news! {code} is on its way. It left our warehouse {date}; you can follow it with {track}.",
					"Dear {name},\n\nWe are pleased to let you know that order {code} was dispatched {date}.\nTrack it here: {track}\n\nBest regards,\nThe Shop"},
				"pt": {"Olá {name}, seu pedido {code} foi enviado em {date}. Código de rastreamento: {track}."},
				"es": {"Hola {name}, tu pedido {code} se envió el {date}. Número de seguimiento: {track}."},
				"de": {"Hallo {name}, Ihre Bestellung {code} wurde am {date} versandt. Sendungsnummer: {track}."},
				"fr": {"Bonjour {name}, votre commande {code} a été expédiée le {date}. Numéro de suivi : {track}."},
			},
		},
		{ // invoice
			subject: map[string]string{"en": "Invoice {inv}", "pt": "Fatura {inv}", "es": "Factura {inv}", "de": "Rechnung {inv}"},
			body: map[string][]string{
				"en": {"Invoice {inv} for {amt} is attached; payment is due on {date}.",
					"Hello {name}. Attached you'll find {inv}, amounting to {amt}. Kindly settle it by {date}. Thanks!"},
				"pt": {"Segue em anexo a fatura {inv} no valor de {amt}, com vencimento em {date}."},
				"es": {"Adjuntamos la factura {inv} por {amt}; el pago vence el {date}."},
				"de": {"Anbei die Rechnung {inv} über {amt}, fällig am {date}."},
			},
		},
		{ // a call
			subject: map[string]string{"en": "Our call on {date}", "pt": "Nossa chamada em {date}", "es": "Nuestra llamada del {date}", "de": "Unser Termin am {date}", "fr": "Notre appel du {date}"},
			body: map[string][]string{
				"en": {"Confirming our call with {name} on {date} at {time}. Dial-in: {url}",
					"Looking forward to speaking on {date}, {time} sharp — the link is {url}."},
				"pt": {"Confirmando nossa chamada com {name} em {date} às {time}. Link: {url}"},
				"es": {"Confirmo nuestra llamada con {name} el {date} a las {time}. Enlace: {url}"},
				"de": {"Ich bestätige unseren Termin mit {name} am {date} um {time}. Link: {url}"},
				"fr": {"Je confirme notre appel avec {name} le {date} à {time}. Lien : {url}"},
			},
		},
	}
}

func (f worldFacts) fill(s, lang string, r int) string {
	return strings.NewReplacer("{name}", f.name, "{code}", f.code, "{inv}", f.inv, "{track}", f.track, "{url}", f.url,
		"{date}", f.date(lang, r), "{amt}", f.amount(lang), "{time}", f.time(lang)).Replace(s)
}

// writing is one way of sending an intent: a language, a body, and how it goes out.
type writing struct {
	lang          string
	subject, body string
	html          bool
}

// writings draws n different writings of an intent: other languages, other English texts,
// HTML.
func (g *corpusGen) writings(it worldIntent, f worldFacts, n int) []writing {
	langs := slices.Sorted(maps.Keys(it.body)) // in one order: a seed draws one corpus
	var out []writing
	seen := map[string]bool{}
	for len(out) < n {
		l := pickOne(g.r, langs)
		k := g.r.IntN(len(it.body[l]))
		r := g.r.IntN(2)
		body := f.fill(it.body[l][k], l, r)
		if seen[body] {
			continue
		}
		seen[body] = true
		w := writing{lang: l, subject: f.fill(it.subject[l], l, r), body: body}
		if g.r.Float64() < 0.3 {
			w.html, w.body = true, "<p>"+strings.ReplaceAll(strings.ReplaceAll(body, "\n\n", "</p><p>"), "\n", "<br>")+"</p>"
		}
		out = append(out, w)
	}
	return out
}

// spellings of one address: with the display name, in capitals, as is.
func (g *corpusGen) spelling(f worldFacts, addr string) string {
	switch g.r.IntN(3) {
	case 0:
		return fmt.Sprintf("%s Ruiz <%s>", f.name, addr)
	case 1:
		return strings.ToUpper(addr)
	}
	return addr
}

func gmailSend(to string, w writing) map[string]any {
	a := map[string]any{"recipient_email": to, "subject": w.subject, "body": w.body}
	if w.html {
		a["is_html"] = true
	}
	return a
}

// agentRewrites: the agent's send fails and it writes the message again: another language, its
// own words, HTML, the recipient spelled another way. agent_retry.
func (g *corpusGen) agentRewrites() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", ""})
	f := g.worldFacts()
	it := pickOne(g.r, worldIntents())
	addr := fmt.Sprintf("%s.%d@example.org", strings.ToLower(f.name), g.r.IntN(10000))
	tg := target{"GMAIL_SEND_EMAIL", "gmail", nil}
	key := g.newGroup(model.PatternAgentRetry)
	n := 2
	if g.r.Float64() < 0.2 {
		n = 3
	}
	t := g.start()
	for i, w := range g.writings(it, f, n) {
		end := endOK
		if i < n-1 {
			end = g.failure()
		}
		stopped := g.add(c, tg, gmailSend(g.spelling(f, addr), w), t, end, g.fast(), -1, key)
		t = stopped.Add(time.Duration(3000+g.r.IntN(57000)) * time.Millisecond)
	}
}

// agentSibling: the agent's Gmail send fails and it sends the message through a sibling tool:
// a Gmail draft of it (most often sent right after, GMAIL_SEND_DRAFT), or the user's Outlook
// mailbox. agent_retry.
func (g *corpusGen) agentSibling() {
	c := g.current()
	f := g.facts()
	wf := g.worldFacts()
	wf.name = f["{name}"]
	it := pickOne(g.r, worldIntents())
	addr := fmt.Sprintf("%s.%d@example.org", strings.ToLower(wf.name), g.r.IntN(10000))
	ws := g.writings(it, wf, 2)
	if g.r.Float64() < 0.4 {
		ws[1] = ws[0] // the same text, through the other tool
	}
	key := g.newGroup(model.PatternAgentRetry)
	t := g.start()
	stopped := g.add(c, target{"GMAIL_SEND_EMAIL", "gmail", nil}, gmailSend(addr, ws[0]), t, g.failure(), g.fast(), -1, key)
	t = stopped.Add(time.Duration(3000+g.r.IntN(57000)) * time.Millisecond)
	if g.r.Float64() < 0.5 {
		stopped := g.add(c, target{"GMAIL_CREATE_EMAIL_DRAFT", "gmail", nil}, gmailSend(g.spelling(wf, addr), ws[1]), t, endOK, g.fast(), -1, key)
		if g.r.Float64() < 0.7 { // and sends the draft
			g.add(c, target{"GMAIL_SEND_DRAFT", "gmail", nil}, map[string]any{"draft_id": fmt.Sprintf("r-%d", g.r.Int64()), "user_id": "me"},
				stopped.Add(time.Duration(500+g.r.IntN(4000))*time.Millisecond), endOK, g.fast(), -1, key)
		}
		return
	}
	o := c
	o.account = "ca_outlook_" + strings.TrimPrefix(c.user, "user_")
	g.add(o, target{"OUTLOOK_SEND_EMAIL", "outlook", nil},
		map[string]any{"to_email": strings.ToUpper(addr), "subject": ws[1].subject, "body": ws[1].body, "is_html": ws[1].html, "save_to_sent_items": true},
		t, endOK, g.fast(), -1, key)
}

// Near-misses of intent identity.

// otherOrderAfterFailure: a send about one order fails and is never sent again; half a minute
// later the agent writes to the same person about another order, in another language.
func (g *corpusGen) otherOrderAfterFailure() {
	c := g.current()
	it := worldIntents()[0]
	a, b := g.worldFacts(), g.worldFacts()
	b.name = a.name
	addr := fmt.Sprintf("%s.%d@example.org", strings.ToLower(a.name), g.r.IntN(10000))
	tg := target{"GMAIL_SEND_EMAIL", "gmail", nil}
	t := g.start()
	stopped := g.add(c, tg, gmailSend(addr, g.writings(it, a, 1)[0]), t, g.failure(), g.fast(), -1, "")
	g.add(c, tg, gmailSend(addr, g.writings(it, b, 1)[0]), stopped.Add(time.Duration(5+g.r.IntN(50))*time.Second), endOK, g.fast(), -1, "")
}

// twoMailboxes: two agents of one user, each with its own Gmail account, answer one customer
// with the same canned reply within seconds: two messages the customer got, from two senders.
func (g *corpusGen) twoMailboxes() {
	c := g.current()
	f := g.worldFacts()
	w := g.writings(worldIntents()[0], f, 1)[0]
	addr := fmt.Sprintf("%s.%d@example.org", strings.ToLower(f.name), g.r.IntN(10000))
	tg := target{"GMAIL_SEND_EMAIL", "gmail", nil}
	t := g.start()
	g.add(c, tg, gmailSend(addr, w), t, endOK, g.fast(), -1, "")
	c2 := c
	c2.account += "_support"
	g.add(c2, tg, gmailSend(addr, w), t.Add(time.Duration(500+g.r.IntN(5000))*time.Millisecond), endOK, g.fast(), -1, "")
}

// draftThenSend: the agent drafts a message for review, and it is sent a few minutes later:
// the workflow, not a duplicate (the draft succeeded).
func (g *corpusGen) draftThenSend() {
	c := g.current()
	f := g.worldFacts()
	w := g.writings(pickOne(g.r, worldIntents()), f, 1)[0]
	addr := fmt.Sprintf("%s.%d@example.org", strings.ToLower(f.name), g.r.IntN(10000))
	t := g.start()
	stopped := g.add(c, target{"GMAIL_CREATE_EMAIL_DRAFT", "gmail", nil}, gmailSend(addr, w), t, endOK, g.fast(), -1, "")
	g.add(c, target{"GMAIL_SEND_EMAIL", "gmail", nil}, gmailSend(addr, w), stopped.Add(time.Duration(30+g.r.IntN(300))*time.Second), endOK, g.fast(), -1, "")
}

// bilingualNotice: one notice sent on purpose in two languages to one recipient, seconds
// apart, both delivered.
func (g *corpusGen) bilingualNotice() {
	c := g.current()
	f := g.worldFacts()
	addr := fmt.Sprintf("%s.%d@example.org", strings.ToLower(f.name), g.r.IntN(10000))
	tg := target{"GMAIL_SEND_EMAIL", "gmail", nil}
	t := g.start()
	for _, w := range g.writings(pickOne(g.r, worldIntents()), f, 2) {
		stopped := g.add(c, tg, gmailSend(addr, w), t, endOK, g.fast(), -1, "")
		t = stopped.Add(time.Duration(1+g.r.IntN(20)) * time.Second)
	}
}

// appRebuilds: the application's retry loop builds the payload again for each attempt
// (appLoop). app_retry.
func (g *corpusGen) appRebuilds() { g.appLoop(true) }
