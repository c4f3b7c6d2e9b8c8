package triage

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Notation: one fact a model may write in several notations. A program writes its arguments the
// same way each time; a model writes them anew, and a tool takes many of them in more than one
// notation (a time as an RFC 3339 string or as seconds since 1970, an amount as a number or a
// string). identityFact reads a value as the fact it states, so that two writes that state the
// same facts in other notations have one identity. Each reader below accepts only a notation
// that cannot state another fact: what is ambiguous ("03/04/2026", which is March or April;
// "1.250", which is 1.25 or 1250) stays as written, so two values are one only when they state
// one fact whichever way each is read.

// timeKey reports whether an argument's name says that it holds a time, by its words (keyWords):
// a date, a time, a timestamp, a due or a start, an end, a deadline, the moment something is
// sent or posted at ("post_at", "send_at": "at" as its last word), or a word that ends in one
// ("closedate", "starttime", as HubSpot writes them).
func timeKey(k string) bool {
	ws := keyWords(k)
	for i, w := range ws {
		if strings.HasSuffix(w, "date") || strings.HasSuffix(w, "time") || strings.HasSuffix(w, "timestamp") {
			return true
		}
		switch w {
		case "date", "time", "datetime", "timestamp", "ts", "due", "deadline", "start", "end", "until", "since",
			"expires", "expiry", "expiration", "scheduled", "when", "dtstart", "dtend":
			return true
		case "at":
			if i > 0 && i == len(ws)-1 {
				return true
			}
		}
	}
	return false
}

// phoneKey reports whether an argument's name holds a phone number: its words name a phone
// (phone, mobile, cell, tel, msisdn, WhatsApp, SMS, fax), or it addresses a text message's
// recipient (to, to_number, recipient). Digits alone under such a name are a number dialed
// (dialedDigits).
func phoneKey(k string) bool {
	ws := keyWords(k)
	if slices.ContainsFunc(ws, func(w string) bool { return w == "id" || w == "ids" || w == "uuid" }) {
		return false // an id of a recipient or a phone (recipient_id, phone_number_id) is no number dialed
	}
	for i, w := range ws {
		switch w {
		case "phone", "phones", "mobile", "cell", "tel", "telephone", "msisdn", "whatsapp", "sms", "fax", "recipient":
			return true
		case "to":
			if i == 0 {
				return true
			}
		}
	}
	return false
}

// dialedDigits is a number dialed, written as digits alone (10 to 15, keyedDigits: a national
// number, with its trunk 0, or with its country code) under a name that holds a phone: its last
// ten digits, as a phone written with a phone's punctuation is (phoneDigits).
func dialedDigits(key, s string) (string, bool) {
	if !phoneKey(key) {
		return "", false
	}
	return "tel:" + s[len(s)-10:], true
}

// Epochs read as instants: 2001-09-09 (ten digits of seconds) to 2100, and the same span in
// milliseconds (thirteen digits). Fewer or more digits are some other count.
const (
	epochFirst = 1_000_000_000
	epochLast  = 4_102_444_800 // 2100-01-01
)

// epochInstant is an integer of seconds or milliseconds since 1970 (its digits, as written) as
// the instant it names (instantFact). Only an argument whose name holds a time (timeKey) is read
// so: anywhere else ten digits are an id, a phone or an amount.
func epochInstant(digits string) (string, bool) {
	t, ok := epochTime(digits)
	if !ok {
		return "", false
	}
	return instantFact(t), true
}

// epochTime is the instant ten digits of seconds or thirteen of milliseconds since 1970 name,
// between epochFirst and epochLast.
func epochTime(digits string) (time.Time, bool) {
	if len(digits) != 10 && len(digits) != 13 || digits[0] == '0' || !allDigits(digits) {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	var t time.Time
	if len(digits) == 10 {
		t = time.Unix(n, 0)
	} else {
		t = time.UnixMilli(n)
	}
	if s := t.Unix(); s < epochFirst || s >= epochLast {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// instantFact is an instant in its normal form: RFC 3339 in UTC, its fraction only when it has
// one, and the midnight that starts a day in UTC as that day (a date sent as a datetime, as
// midnightDay reads one).
func instantFact(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(time.DateOnly)
	}
	return t.Format("2006-01-02T15:04:05.999999999Z07:00")
}

// offsetInstant is an RFC 3339 date-time that carries its offset ("Z", "+02:00", "-0500"), with
// a 'T' or a space and with or without seconds, as instantFact: one instant written in two
// offsets is one. A date-time without an offset is a local time whose zone the value does not
// say, and is not read.
func offsetInstant(s string) (string, bool) {
	if len(s) < 17 || s[4] != '-' || s[7] != '-' || s[10] != 'T' && s[10] != ' ' || !isDate(s[:10]) {
		return "", false
	}
	if last := s[len(s)-1]; last != 'Z' && last != 'z' && !strings.ContainsAny(s[16:], "+-") {
		return "", false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05Z07:00", "2006-01-02T15:04:05Z0700", "2006-01-02 15:04:05Z0700",
		"2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, strings.ToUpper(s)); err == nil {
			return instantFact(t), true
		}
	}
	return "", false
}

// groupedNumber is a number written with its thousands grouped, as plain decimal notation: by
// commas, with an optional decimal point ("1,250.00", "12,500"), or by points with a decimal
// comma ("1.250,00") or more than one group ("1.250.000"). A single point group without a
// comma ("1.250") is plain notation's 1.25 and is not read here.
func groupedNumber(s string) (string, bool) {
	if !strings.ContainsAny(s, ",.") {
		return "", false
	}
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	for _, conv := range []struct{ group, point byte }{{',', '.'}, {'.', ','}} {
		whole, frac, hasFrac := strings.Cut(s, string(conv.point))
		groups := strings.Split(whole, string(conv.group))
		if len(groups) < 2 || conv.group == '.' && !hasFrac && len(groups) < 3 {
			continue
		}
		ok := len(groups[0]) >= 1 && len(groups[0]) <= 3 && groups[0][0] != '0' && allDigits(groups[0])
		for _, g := range groups[1:] {
			ok = ok && len(g) == 3 && allDigits(g)
		}
		if !ok || hasFrac && (frac == "" || !allDigits(frac)) {
			continue
		}
		n := sign + strings.Join(groups, "")
		if hasFrac {
			n += "." + frac
		}
		if plainNumber(n) {
			return n, true
		}
	}
	return "", false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigitByte(s[i]) {
			return false
		}
	}
	return s != ""
}

// flagFact is a boolean written as a string ("true", Python's "True", "FALSE") as the JSON
// literal it states.
func flagFact(s string) (string, bool) {
	switch {
	case len(s) == 4 && strings.EqualFold(s, "true"):
		return "true", true
	case len(s) == 5 && strings.EqualFold(s, "false"):
		return "false", true
	}
	return "", false
}

// writtenDay is a value that is one day and nothing else, its year included, written in words
// or in figures ("Dec 18, 2026", "Friday, 18 December 2026", "18.12.2026", "2026/12/18",
// "12/18/2026"), as that day ("2026-12-18"). Figures are read in the order they must have:
// year first is year, month, day; points put the day first (as the languages that write them
// do); slashes with the year last put first whichever of the two cannot be a month, and are not
// read when both can.
func writtenDay(s string) (string, bool) {
	if len(s) < 8 || len(s) > 40 || !hasYear(s) {
		return "", false
	}
	var rest []string
	for _, t := range entityTokens(s) {
		if !dateFiller(t) && weekdayOf(t) == 0 {
			rest = append(rest, t)
		}
	}
	var y, m, d int
	switch len(rest) {
	case 1:
		t := rest[0]
		sep := strings.IndexAny(t, "/-.")
		if sep < 0 {
			return "", false
		}
		parts := strings.Split(t, t[sep:sep+1])
		if len(parts) != 3 || !allDigits(parts[0]) || !allDigits(parts[1]) || !allDigits(parts[2]) {
			return "", false
		}
		a, _ := strconv.Atoi(parts[0])
		b, _ := strconv.Atoi(parts[1])
		c, _ := strconv.Atoi(parts[2])
		switch {
		case yearOf(parts[0]):
			y, m, d = a, b, c
		case !yearOf(parts[2]) || len(parts[0]) > 2 || len(parts[1]) > 2:
			return "", false
		case t[sep] == '.':
			y, m, d = c, b, a
		case a > 12 && b <= 12:
			y, m, d = c, b, a
		case b > 12 && a <= 12:
			y, m, d = c, a, b
		default:
			return "", false
		}
	case 3:
		for _, t := range rest {
			switch day, isDay := dayOf(t); {
			case monthOf(t) > 0 && m == 0:
				m = monthOf(t)
			case isDay && d == 0:
				d = day
			case yearOf(t) && y == 0:
				y, _ = strconv.Atoi(t)
			default:
				return "", false
			}
		}
		if m == 0 || d == 0 || y == 0 {
			return "", false
		}
	default:
		return "", false
	}
	day := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if day.Year() != y || int(day.Month()) != m || day.Day() != d {
		return "", false // the 31st of a month of 30 days
	}
	return day.Format(time.DateOnly), true
}

// hasYear reports whether s holds four digits alone that may be a year (1900 to 2199): the cheap
// test before writtenDay reads a value's words.
func hasYear(s string) bool {
	for i := 0; i+4 <= len(s); i++ {
		if (i == 0 || !isDigitByte(s[i-1])) && allDigits(s[i:i+4]) && (i+4 == len(s) || !isDigitByte(s[i+4])) {
			if s[i] == '1' && s[i+1] == '9' || s[i] == '2' && s[i+1] <= '1' {
				return true
			}
		}
	}
	return false
}
