package triage

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// What an error text says of the write's own effect. A refusal word proves nothing took effect
// only when it refuses the whole write: a text that says the write, or part of it, took effect
// ("1 of 3 recipients rejected", "3 rows inserted, 2 failed validation", "Created issue #42;
// invalid label ignored", "Charge succeeded; receipt email invalid", "1 invalid recipient was
// skipped") says it happened, whatever else it refuses, so it is unclear (what went must not be
// sent again). A text that says in words that none of it took effect ("No rows inserted",
// "nothing was sent", "0 of 3 recipients accepted") is a refusal of the whole.

// effectParticiples are the English past participles that say a write's effect took place: of
// the writes tools make (send, create, post, append, forward, merge, transfer...) and of what a
// payment, an order or a form goes through (charged, captured, paid, refunded, finalized,
// placed, processed, submitted, shipped). A participle that also names a target's refused state
// (rejected, blocked, deleted, archived, revoked, expired, cancelled) is none: "was deleted" is
// a target gone.
var effectParticiples = []string{"sent", "created", "inserted", "posted", "uploaded", "delivered", "saved", "added", "updated",
	"scheduled", "published", "charged", "booked", "shared", "applied", "accepted", "written", "moved", "copied", "imported", "queued",
	"appended", "finalized", "finalised", "captured", "paid", "refunded", "placed", "processed", "submitted", "forwarded",
	"replied", "merged", "transferred", "registered", "confirmed", "invited", "assigned", "commented", "duplicated", "executed",
	"replaced", "modified", "edited", "renamed", "pinned", "starred", "subscribed", "enrolled", "dispatched", "shipped", "deployed",
	"stored", "synced", "synchronized", "tagged", "labeled", "labelled", "emailed", "texted", "messaged", "drafted", "filed", "approved"}

// effectDone is a past participle that says a write's effect took place (effectParticiples), or
// "opened" where a count or a negation goes with it ("3 issues opened"): alone it is said of
// connections and circuit breakers too.
var effectDone = `(` + strings.Join(effectParticiples, "|") + `|opened)`

// partDone finds, in a (lower-case) error text, the words that name a part as done: a part
// named as such (2 of 5, partially, some recipients, the rest) or counted as done ("3 rows
// inserted"), sent to the others or the rest, an id the call returned, a thing that now exists,
// a call answered with a success status ("returned 200, then ... 404": the 404 was another
// call's).
var partDone = regexp.MustCompile(`\b[1-9][0-9]* (of|out of) [0-9]+\b|\bpartial(ly)?\b|` +
	`\b(http|status|code|returned|got|answered|with) 20[0-6]\b|\b20[0-6] (ok|created|accepted|no content)\b|` +
	`\bsome (of the )?(recipients|rows|messages|records|items|files|events|contacts|members|attachments)\b|` +
	`\b[1-9][0-9]* ([a-z]+ ){0,2}` + effectDone + `\b|\b` + effectDone + ` to (the )?(others|rest|remaining)\b|` +
	`\bid [a-z0-9_.:-]+ returned\b|\b(now exists|exists now)\b`)

// noneDone finds the words that say none of the write took effect: a count of zero, "no"
// or "nothing" before the participle ("No rows inserted", "nothing was sent", "0 of 3 recipients
// accepted").
var noneDone = regexp.MustCompile(`\b(no|nothing|none|0) (of [0-9]+ )?([a-z]+ ){0,2}(was |were |has been |have been )?` + effectDone + `\b`)

// doneWords say, as words of their own, that the write or a part of it took effect: the
// participles of an effect in each language the refusal words are read in (words.go), the
// words of a success, and a part left out while the rest went on (skipped, ignored).
var doneWords = []phraseRow{
	{source: "English", phrases: append(slices.Clip(effectParticiples), "success", "succeeded", "successful", "successfully", "ok", "done",
		"completed", "finished", "skipped", "ignored")},
	{source: "German", phrases: []string{"gesendet", "versendet", "erstellt", "gespeichert", "hochgeladen", "zugestellt", "veröffentlicht",
		"erfolgreich"}},
	{source: "French", phrases: []string{"envoyé", "envoyée", "créé", "créée", "enregistré", "enregistrée", "publié", "publiée", "livré",
		"téléversé", "réussi"}},
	{source: "Spanish", phrases: []string{"enviado", "enviada", "creado", "creada", "guardado", "guardada", "publicado", "publicada",
		"entregado", "subido", "exitoso"}},
	{source: "Portuguese", phrases: []string{"enviado", "enviada", "criado", "criada", "salvo", "salva", "publicado", "publicada", "entregue",
		"sucesso"}},
	{source: "Italian", phrases: []string{"inviato", "inviata", "creato", "creata", "salvato", "salvata", "pubblicato", "pubblicata",
		"consegnato", "caricato", "riuscito"}},
	{source: "Russian", phrases: []string{"отправлено", "отправлен", "отправлена", "создано", "создан", "создана", "сохранено",
		"сохранён", "сохранен", "опубликовано", "доставлено", "загружено", "успешно"}},
	{source: "Ukrainian", phrases: []string{"надіслано", "відправлено", "створено", "збережено", "опубліковано", "доставлено", "успішно"}},
	{source: "Polish", phrases: []string{"wysłano", "wysłana", "wysłany", "wysłane", "utworzono", "zapisano", "opublikowano", "dostarczono",
		"pomyślnie"}},
	{source: "Czech", phrases: []string{"odesláno", "odeslána", "odeslán", "vytvořeno", "uloženo", "publikováno", "doručeno", "úspěšně"}},
	{source: "Dutch", phrases: []string{"verzonden", "verstuurd", "aangemaakt", "opgeslagen", "gepubliceerd", "afgeleverd", "geslaagd",
		"succesvol"}},
	{source: "Swedish (the supine, after har; a passive's inte follows it)", phrases: []string{"skickats", "skapats", "sparats",
		"publicerats", "levererats", "lyckades"}},
	{source: "Turkish (a negation is a suffix: gönderilmedi)", phrases: []string{"gönderildi", "oluşturuldu", "kaydedildi", "yayınlandı",
		"yüklendi", "başarılı", "başarıyla", "teslim edildi"}},
	{source: "Vietnamese", phrases: []string{"đã gửi", "đã tạo", "đã lưu", "đã đăng", "thành công"}},
	{source: "Indonesian", phrases: []string{"terkirim", "dikirim", "dibuat", "disimpan", "diterbitkan", "berhasil"}},
	{source: "Arabic", phrases: []string{"تم إرسال", "تم الإرسال", "تم إنشاء", "تم الإنشاء", "تم حفظ", "تم الحفظ", "تم نشر", "بنجاح"}},
	{source: "Hebrew", phrases: []string{"נשלח", "נשלחה", "נוצר", "נוצרה", "נשמר", "נשמרה", "פורסם", "בהצלחה"}},
	{source: "Greek", phrases: []string{"στάλθηκε", "εστάλη", "δημιουργήθηκε", "αποθηκεύτηκε", "δημοσιεύτηκε", "επιτυχώς"}},
	{source: "Hindi", phrases: []string{"भेजा गया", "भेजी गई", "बनाया गया", "सहेजा गया", "सफलतापूर्वक"}},
}

// doneRuns are doneWords in the scripts written without spaces between words (Japanese, Chinese,
// Thai) and in Korean's endings, found inside a run of letters: each a form that says it was done,
// none of them inside its negation (送信されませんでした, 未发送 and 发送失败, ส่งไม่สำเร็จ,
// 전송되지 않았습니다 hold none).
var doneRuns = []phraseRow{
	{source: "Japanese", phrases: []string{"送信されました", "送信しました", "作成されました", "作成しました", "保存されました",
		"保存しました", "投稿されました", "投稿しました", "公開されました", "追加されました", "成功しました"}},
	{source: "Chinese", phrases: []string{"已发送", "已发出", "已创建", "已保存", "已发布", "已送达", "已上传", "发送成功", "创建成功",
		"保存成功", "已發送", "已建立", "已儲存", "已發佈", "發送成功"}},
	{source: "Korean", phrases: []string{"전송되었습니다", "전송했습니다", "생성되었습니다", "저장되었습니다", "게시되었습니다",
		"업로드되었습니다", "성공했습니다", "성공적으로"}},
	{source: "Thai", phrases: []string{"ส่งแล้ว", "สร้างแล้ว", "บันทึกแล้ว", "ส่งสำเร็จ", "สร้างสำเร็จ", "บันทึกสำเร็จ"}},
}

// notDone are the words that, one or two words before a done word, say it was not done ("was
// not sent", "could never be created", "nicht gesendet", "n'a pas été envoyé"), is yet to be
// ("should be sent", "will be created", "to be posted"), was a previous attempt's ("already
// sent"), or was the request's own data, not an effect ("the value sent", "the data you sent").
var notDone = map[string]bool{"not": true, "never": true, "no": true, "cannot": true, "unable": true, "already": true, "un": true,
	"should": true, "must": true, "will": true, "would": true, "can": true, "could": true, "may": true, "might": true, "shall": true,
	"to":    true,
	"nicht": true, "nie": true, "kein": true, "keine": true, "non": true, "pas": true, "jamais": true, "não": true, "nunca": true,
	"mai": true, "не": true, "ні": true, "niet": true, "inte": true, "ej": true, "không": true, "chưa": true, "tidak": true, "belum": true,
	"gagal": true, "לא": true, "δεν": true, "नहीं": true, "nebyl": true, "nebyla": true, "nebylo": true, "nebyly": true}

// sentContent are the words that, one or two words before a participle of sending, say it
// names the request's own content, not an effect ("the value sent", "the data you sent", "the
// payload submitted"); before another participle they are its subject ("Pull request merged").
var sentContent = map[string]bool{"data": true, "value": true, "values": true, "payload": true, "body": true, "request": true,
	"parameter": true, "parameters": true, "field": true, "fields": true, "you": true, "input": true, "argument": true, "arguments": true,
	"json": true}

// sendingParticiples are the participles sentContent can qualify: what a request carries is
// sent, posted, submitted, uploaded or written.
var sendingParticiples = map[string]bool{"sent": true, "posted": true, "submitted": true, "uploaded": true, "written": true}

// determiner are the words after which a participle qualifies the noun that follows it ("Cannot
// comment on a merged pull request", "You can't modify a finalized invoice"): it says what state
// the target is in, not that the call did it.
var determiner = map[string]bool{"a": true, "an": true, "the": true, "this": true, "that": true, "these": true, "those": true}

// notDoneAfter are the words that, right after a done word, say it was not done: Swedish puts
// its negation after the verb ("skickades inte").
var notDoneAfter = map[string]bool{"inte": true, "ej": true}

// partEffect says what in an error text (low: its normalText; raw: the text in lower case)
// says the write or part of it took effect, "" when nothing does or the text says none of it
// did. Words are read in raw, where a name joined by '_' is one word: success_url is a field's
// name, not a success.
func partEffect(low, raw string) string {
	if noneDone.MatchString(low) {
		return ""
	}
	for _, at := range partDone.FindAllStringIndex(low, -1) {
		if !unsaid(low, at[0]) {
			return low[at[0]:at[1]]
		}
	}
	return doneInWords(raw)
}

// doneInWords finds a done word (doneWords) said as a word of its own, not in a clause placed
// before the failure, and not made undone by either of the two words before it (notDone; a
// contraction's "n't" counts as "not").
func doneInWords(low string) string {
	type word struct {
		w  string
		at int
	}
	var words []word
	start := -1
	for i, r := range low + " " {
		// (a mark is part of its word: Devanagari's and Thai's vowel signs are marks, not letters)
		switch inWord := unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) || r == '_' || r == '\'' || r == '’'; {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			// a word quoted in single quotes (a Python dict's 'sent') is the word: the quotes
			// are no part of it, as an elision's or a contraction's apostrophe is
			w, at := strings.TrimRight(low[start:i], "'’"), start
			if t := strings.TrimLeft(w, "'’"); t != w {
				w, at = t, at+len(w)-len(t)
			}
			words = append(words, word{w, at})
			start = -1
		}
	}
	for i, w := range words {
		first, done := i, w.w // a done word, or two that are one (đã gửi, تم إرسال, भेजा गया)
		if !isDoneWord(done) {
			if i == 0 || !isDoneWord(words[i-1].w+" "+w.w) {
				continue
			}
			first, done = i-1, words[i-1].w+" "+w.w
		}
		if unsaid(low, words[first].at) || jsonKey(low, w.at, w.at+len(w.w)) || i+1 < len(words) && notDoneAfter[words[i+1].w] {
			continue
		}
		if first > 0 && i+1 < len(words) && determiner[words[first-1].w] {
			continue // a merged pull request, the finalized invoice: a state the target is in, not what the call did
		}
		undone := false
		for j := max(0, first-2); j < first; j++ {
			prev := words[j].w
			_, elided, _ := strings.Cut(prev, "'") // n'a, l'allegato: the word after the elision
			undone = undone || notDone[prev] || notDone[elided] || strings.HasSuffix(prev, "n't") || strings.HasSuffix(prev, "n’t") ||
				sendingParticiples[done] && sentContent[prev]
		}
		if !undone {
			return done
		}
	}
	for _, row := range doneRuns {
		for _, p := range row.phrases {
			if at := strings.Index(low, p); at >= 0 && !unsaid(low, at) {
				return p
			}
		}
	}
	if loc := thaiDone.FindStringIndex(low); loc != nil && !unsaid(low, loc[0]) {
		return low[loc[0]:loc[1]]
	}
	return ""
}

// thaiDone is a Thai verb of a write and, later in the same run of letters, แล้ว, the word that
// says it is done ("ส่งข้อความแล้ว": the message sent), with no ไม่ (not) between them.
var thaiDone = regexp.MustCompile(`(ส่ง|สร้าง|บันทึก|โพสต์|อัปโหลด|เผยแพร่)[^\sไ]{0,30}แล้ว`)

// effectSaidDone reports whether a status's words (low) say the write's effect took place, whole:
// they end with an effect's participle ("sent", "message sent", "email delivered"), with no word
// that undoes it ("not sent") and none that makes it a part ("partially sent").
func effectSaidDone(low string) bool {
	ws := strings.Fields(low)
	if len(ws) == 0 || !slices.Contains(effectParticiples, ws[len(ws)-1]) || partDone.MatchString(low) {
		return false
	}
	return !slices.ContainsFunc(ws[:len(ws)-1], func(w string) bool { return notDone[w] })
}

// jsonKey reports whether the word at low[from:to] is a JSON object's key ("ok": false in
// Slack's answer; 'ok': False in a Python dict's repr): a field's name, which says nothing was
// done, whatever the word.
func jsonKey(low string, from, to int) bool {
	if from == 0 || to >= len(low) || low[from-1] != low[to] || low[to] != '"' && low[to] != '\'' {
		return false
	}
	rest := strings.TrimLeft(low[to+1:], " \t")
	return rest != "" && rest[0] == ':'
}

func isDoneWord(w string) bool { return doneWordSet[w] }

// doneWordSet is every phrase of doneWords, looked up once a word.
var doneWordSet = func() map[string]bool {
	set := map[string]bool{}
	for _, row := range doneWords {
		for _, p := range row.phrases {
			set[p] = true
		}
	}
	return set
}()

// unsaid reports whether the words at i sit in a clause that is no account of what happened: one
// that places them later than the failure, after "before", "until" or "without" ("closed
// before the request was sent", "failed without being posted"), or one that asks the reader to
// act or states a condition ("Make sure the pages are shared with your integration", "ensure
// the bot has been added", "check that ...", "if it was installed"): not done.
func unsaid(low string, i int) bool {
	start := strings.LastIndexAny(low[:i], ".;:,!?\n") + 1
	clause := low[start:i]
	for _, w := range []string{"before", "until", "without", "ensure", "verify", "please", "if", "unless"} {
		if HasWord(clause, w) {
			return true
		}
	}
	return strings.Contains(clause, "make sure") || strings.Contains(clause, "check that") || strings.Contains(clause, "check if") ||
		strings.Contains(clause, "check whether")
}

// callbackStep finds, in a (lower-case) error text, a failure said of a callback the platform
// makes after the write (a callback, a webhook, a notification: failed, returned, responded,
// refused, timed out; notifying it, posting the result to it): a step after the write, which
// proves nothing of it ("Failed to notify callback URL: connection refused" is the callback's
// connection). A callback's own argument refused ("Invalid callback URL", "Webhook URL must use
// https") is the request's, and does not match.
var callbackStep = regexp.MustCompile(`\b(status )?(callback|webhook|notification)s?\b([^.;]|\.\S){0,60}?\b(failed|returned|responded|` +
	`unreachable|refused|timed out|rejected|errored|could not be (reached|delivered))\b|` +
	`\b(notify|notifying|deliver|delivering|post|posting|send|sending|call|calling)( the result| it)?( to)?( the)? (callback|webhook)`)

// noEffect says what in an error text says none of the write took effect, "" for nothing.
func noEffect(low string) string { return noneDone.FindString(low) }
