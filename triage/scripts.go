package triage

import (
	"strings"
	"unicode"
)

// Scripts. A word is what its script makes a word: a run of letters and the marks written on
// them (Devanagari's vowel signs, Thai's tone marks: without them "मंगलवार" falls apart into
// pieces), ended by a space or punctuation. Chinese, Japanese, Thai, Lao, Khmer and Burmese are
// written without spaces between words, so a run of them is compared by its overlapping pairs
// of characters (the usual unit for such text when no dictionary says where words end), and a
// number written against such a run, or against any letter that is not Latin ("ご注文42609は",
// "42609이"), is a number, not part of an identifier: identifiers mix Latin letters and digits.

// unspaced reports whether r belongs to a script written without spaces between words.
func unspaced(r rune) bool {
	return r >= 0x0E00 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Thai, r) || unicode.Is(unicode.Lao, r) || unicode.Is(unicode.Khmer, r) || unicode.Is(unicode.Myanmar, r)) ||
		r == 'ー' // the Katakana long vowel mark is Common
}

// pairs appends the overlapping pairs of characters of an unspaced run (the run itself when
// it is one character: too short to compare, like any one-letter word, it is dropped later).
func pairs(run []rune, out []string) []string {
	for i := 0; i+1 < len(run); i++ {
		out = append(out, string(run[i:i+2]))
	}
	return out
}

// scriptBreak reports whether a token ends between a and b although both are letters or
// digits: a digit against a letter that is not Latin, or an unspaced letter against anything
// else.
func scriptBreak(a, b rune) bool {
	if !unicode.IsLetter(a) && !unicode.IsDigit(a) || !unicode.IsLetter(b) && !unicode.IsDigit(b) {
		return false // a connector inside a code (A-78274) or a mark on its letter
	}
	da, db := unicode.IsDigit(a), unicode.IsDigit(b)
	switch {
	case da && !db:
		return !unicode.Is(unicode.Latin, b)
	case db && !da:
		return !unicode.Is(unicode.Latin, a)
	}
	return unspaced(a) != unspaced(b)
}

// weekdayOf is the day of the week (1 Monday .. 7 Sunday) a whole word names, 0 for none: in
// English, Portuguese, Spanish, French, German, Italian, Dutch, Polish, Turkish, Russian, Greek,
// Arabic and Hindi, in the forms a sentence puts them in ("во вторник", "w środę"). Portuguese
// days two to six count with "-feira" only ("segunda" is also "second"); abbreviations do not
// count ("sun", "sat", "wed" are words). Hebrew names days by ordinals after "יום"
// (hebrewWeekday); the unspaced scripts and Korean, which write a particle against the word,
// are found inside the text (weekdaysIn).
func weekdayOf(w string) int {
	switch strings.ToLower(w) {
	case "monday", "segunda-feira", "lunes", "lundi", "montag", "lunedì", "lunedi", "maandag", "poniedziałek", "pazartesi",
		"понедельник", "δευτέρα", "δευτερα", "الاثنين", "الإثنين", "सोमवार":
		return 1
	case "tuesday", "terça", "terca", "terça-feira", "terca-feira", "martes", "mardi", "dienstag", "martedì", "martedi", "dinsdag",
		"wtorek", "salı", "вторник", "τρίτη", "τριτη", "الثلاثاء", "मंगलवार":
		return 2
	case "wednesday", "quarta-feira", "miércoles", "miercoles", "mercredi", "mittwoch", "mercoledì", "mercoledi", "woensdag",
		"środa", "środę", "sroda", "çarşamba", "среда", "среду", "τετάρτη", "τεταρτη", "الأربعاء", "الاربعاء", "बुधवार":
		return 3
	case "thursday", "quinta-feira", "jueves", "jeudi", "donnerstag", "giovedì", "giovedi", "donderdag", "czwartek", "perşembe",
		"четверг", "πέμπτη", "πεμπτη", "الخميس", "गुरुवार", "बृहस्पतिवार":
		return 4
	case "friday", "sexta-feira", "viernes", "vendredi", "freitag", "venerdì", "venerdi", "vrijdag", "piątek", "cuma",
		"пятница", "пятницу", "παρασκευή", "παρασκευη", "الجمعة", "शुक्रवार":
		return 5
	case "saturday", "sábado", "sabado", "samedi", "samstag", "sonnabend", "zaterdag", "sobota", "sobotę", "cumartesi",
		"суббота", "субботу", "σάββατο", "σαββατο", "السبت", "शनिवार":
		return 6
	case "sunday", "domingo", "dimanche", "sonntag", "domenica", "zondag", "niedziela", "niedzielę", "pazar",
		"воскресенье", "κυριακή", "κυριακη", "الأحد", "الاحد", "रविवार":
		return 7
	}
	return 0
}

// hebrewWeekday is the day "יום שלישי" (or "ביום שלישי") names from its two words, 0 for none.
func hebrewWeekday(day, ordinal string) int {
	switch day {
	case "יום", "ביום", "ליום", "מיום":
	default:
		return 0
	}
	for i, o := range []string{"שני", "שלישי", "רביעי", "חמישי", "שישי", "שבת", "ראשון"} {
		if ordinal == o {
			return i + 1
		}
	}
	return 0
}

// weekdaysIn appends a W: entity for each day of the week written in Japanese, Chinese,
// Korean or Thai anywhere in s (no space sets them apart: "火曜日にお届け", "预计周二送达", "화요일에").
func weekdaysIn(s string, out []string) []string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x0E00 }) {
		return out
	}
	days := [7][]string{
		{"月曜", "星期一", "周一", "週一", "礼拜一", "禮拜一", "월요일", "วันจันทร์"},
		{"火曜", "星期二", "周二", "週二", "礼拜二", "禮拜二", "화요일", "วันอังคาร"},
		{"水曜", "星期三", "周三", "週三", "礼拜三", "禮拜三", "수요일", "วันพุธ"},
		{"木曜", "星期四", "周四", "週四", "礼拜四", "禮拜四", "목요일", "วันพฤหัส"},
		{"金曜", "星期五", "周五", "週五", "礼拜五", "禮拜五", "금요일", "วันศุกร์"},
		{"土曜", "星期六", "周六", "週六", "礼拜六", "禮拜六", "토요일", "วันเสาร์"},
		{"日曜", "星期日", "星期天", "周日", "周天", "週日", "礼拜天", "禮拜天", "일요일", "วันอาทิตย์"},
	}
	for d, names := range days {
		for _, n := range names {
			if strings.Contains(s, n) {
				out = append(out, weekdayKey(d+1))
				break
			}
		}
	}
	return out
}

// weekdayKey is a day of the week's entity.
func weekdayKey(d int) string { return "W:" + string(rune('0'+d)) }
