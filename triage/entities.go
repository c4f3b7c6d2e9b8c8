package triage

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Entities: the facts a message carries that survive rewording and translation. An agent that
// saw an error writes the message again, sometimes from scratch or in another language ("Seu
// pedido A-78274 foi enviado em 14 de março" then "Your order A-78274 shipped on March 14"),
// but the order number, the tracking code, the amount, the date, the time, the links and the
// addresses stay. entities reads them in a normal form:
//
//   - E:addr   an email address, lower case;
//   - U:url    a link, scheme and host in lower case, without a trailing slash;
//   - C:CODE   an identifier: a word with a digit and a letter (A-78274, 1Z999AA1…, INV-2041;
//     hyphens dropped, upper case);
//   - N:1250   a number of four digits or more (no year of a date) or with a decimal part, in
//     either convention (1,250.00 and 1.250,00 are both N:1250, 12,50 and 12.50 N:12.5);
//   - D:03-14  a date as its month and day, unordered (March 14, 14 de março, 14.03.2026,
//     03/14/2026 and 14/03/2026 are one date: day-first and month-first writings agree);
//   - T:14:30  a time of day on a 24-hour clock (2:30 PM, 14:30, 14h30);
//   - W:2      a day of the week, 1 Monday .. 7 Sunday, in the languages weekdayOf and
//     weekdaysIn read (Tuesday, вторник, الثلاثاء, मंगलवार, 火曜日, 周二, 화요일).
//
// Small numbers ("3 items", "in 5 days") are left out: a translation may spell them as words.

// entities returns the sorted, unique entities of a text (after maskVolatile, so a footer's
// regenerated timestamp is no fact).
func entities(s string) []string {
	var out []string
	s, out = linksAndAddresses(s, out)
	toks := entityTokens(stripMarkup(s))
	for i := 0; i < len(toks); i++ {
		if e, n := dateAt(toks, i); n > 0 {
			out = append(out, e)
			i += n - 1
			continue
		}
		if e, n := timeTokAt(toks, i); n > 0 {
			out = append(out, e)
			i += n - 1
			continue
		}
		if d := weekdayOf(toks[i]); d > 0 {
			out = append(out, weekdayKey(d))
			continue
		}
		if i+1 < len(toks) {
			if d := hebrewWeekday(toks[i], toks[i+1]); d > 0 {
				out = append(out, weekdayKey(d))
				i++
				continue
			}
		}
		if e := codeOrAmount(toks[i]); e != "" {
			out = append(out, e)
		}
	}
	out = weekdaysIn(s, out)
	if len(out) == 0 {
		return nil
	}
	sortUnique(&out)
	return out
}

func sortUnique(xs *[]string) {
	slices.Sort(*xs)
	*xs = slices.Compact(*xs)
}

// stripMarkup blanks HTML tags (after their links were read) and character references, so
// that an HTML body and its plain-text writing carry the same facts (a style's #FF0000 or a
// width="600" are none).
func stripMarkup(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '<' && i+1 < len(b) && (isLetterByte(b[i+1]) || b[i+1] == '/' || b[i+1] == '!'):
			j := i
			for j < len(b) && b[j] != '>' {
				b[j] = ' '
				j++
			}
			if j < len(b) {
				b[j] = ' '
			}
			i = j
		case b[i] == '&':
			j := i + 1
			for j < len(b) && j-i <= 8 && (isLetterByte(b[j]) || b[j] == '#' || isDigitByte(b[j])) {
				j++
			}
			if j < len(b) && b[j] == ';' {
				for k := i; k <= j; k++ {
					b[k] = ' '
				}
				i = j
			}
		}
	}
	return string(b)
}

func isLetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// linksAndAddresses appends the URLs and email addresses of s and returns s with them blanked.
func linksAndAddresses(s string, out []string) (string, []string) {
	if !strings.Contains(s, "://") && !strings.Contains(s, "@") {
		return s, out
	}
	b := []byte(s)
	eachLink(s, func(start, end, hostAt int) {
		head, rest := linkParts(s[start:end], hostAt)
		u := strings.ToLower(head) + strings.TrimSuffix(withoutTracking(rest), "/")
		if len(head) > hostAt {
			out = append(out, "U:"+strings.TrimSuffix(u, "/"))
		}
		for i := start; i < end; i++ {
			b[i] = ' '
		}
	})
	for i := 0; i < len(b); i++ {
		if b[i] != '@' {
			continue
		}
		lo := i
		for lo > 0 && isAddrByte(b[lo-1], true) {
			lo--
		}
		hi := i + 1
		for hi < len(b) && isAddrByte(b[hi], false) {
			hi++
		}
		for hi > i+1 && b[hi-1] == '.' {
			hi--
		}
		domain := string(b[i+1 : hi])
		if lo == i || !strings.Contains(domain, ".") {
			continue
		}
		out = append(out, "E:"+strings.ToLower(string(b[lo:hi])))
		for k := lo; k < hi; k++ {
			b[k] = ' '
		}
		i = hi
	}
	return string(b), out
}

// eachLink calls f with the bounds of each http(s) link in s, in order: [start, end), hostAt
// the offset of its host (past the scheme). A link ends at a space, a quote or a bracket, and
// without the punctuation that ends a sentence after it.
func eachLink(s string, f func(start, end, hostAt int)) {
	var links [][3]int
	for _, scheme := range []string{"https://", "http://"} {
		for from := 0; ; {
			k := indexFold(s[from:], scheme)
			if k < 0 {
				break
			}
			start := from + k
			end := start + len(scheme)
			for end < len(s) && !strings.ContainsRune(" \t\r\n\"'<>|)]}", rune(s[end])) {
				end++
			}
			for end > start+len(scheme) && strings.ContainsRune(".,;:!?", rune(s[end-1])) {
				end--
			}
			links = append(links, [3]int{start, end, len(scheme)})
			from = end
		}
	}
	slices.SortFunc(links, func(a, b [3]int) int { return a[0] - b[0] })
	for _, l := range links {
		f(l[0], l[1], l[2])
	}
}

// withoutTrackingIn is s with every link's tracking parameters dropped (withoutTracking), so a
// text's words are those of the page it links, not of the campaign that shared it.
func withoutTrackingIn(s string) string {
	if !strings.Contains(s, "://") || !strings.Contains(s, "?") {
		return s
	}
	var b strings.Builder
	last := 0
	eachLink(s, func(start, end, hostAt int) {
		head, rest := linkParts(s[start:end], hostAt)
		if !strings.Contains(rest, "?") {
			return
		}
		b.WriteString(s[last:start])
		b.WriteString(head + withoutTracking(rest))
		last = end
	})
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// linkParts splits a link at its host's end: its scheme and host, and what follows them (a path,
// a query or a fragment, from its '/', '?' or '#').
func linkParts(u string, hostAt int) (head, rest string) {
	if i := strings.IndexAny(u[hostAt:], "/?#"); i >= 0 {
		return u[:hostAt+i], u[hostAt+i:]
	}
	return u, ""
}

// withoutTracking is a link's path (from its '/' or '?') without the query parameters that say where a click came from
// (a campaign's utm_ tags, an ad network's click id), not what the link is: one page shared twice
// with other tags is one link. The parameters left keep their order.
func withoutTracking(path string) string {
	p, query, ok := strings.Cut(path, "?")
	if !ok {
		return path
	}
	query, frag, hasFrag := strings.Cut(query, "#")
	var kept []string
	for kv := range strings.SplitSeq(query, "&") {
		k, _, _ := strings.Cut(kv, "=")
		if kv != "" && !trackingParam(strings.ToLower(k)) {
			kept = append(kept, kv)
		}
	}
	if len(kept) > 0 {
		p += "?" + strings.Join(kept, "&")
	}
	if hasFrag {
		p += "#" + frag
	}
	return p
}

// trackingParam: a query parameter (its name in lower case) that tags a click for analytics:
// utm_source and the other utm_ tags, and the click ids ad networks and mail tools append.
func trackingParam(k string) bool {
	if strings.HasPrefix(k, "utm_") {
		return true
	}
	switch k {
	case "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "twclid", "li_fat_id", "igshid", "mc_cid", "mc_eid", "_hsenc", "_hsmi":
		return true
	}
	return false
}

func isAddrByte(c byte, local bool) bool {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' {
		return true
	}
	return local && (c == '_' || c == '+' || c == '%')
}

// indexFold is strings.Index ignoring ASCII case (needle in lower case).
func indexFold(s, needle string) int {
	for i := 0; i+len(needle) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(needle)], needle) {
			return i
		}
	}
	return -1
}

// entityTokens splits a text into words of letters and digits, keeping the connectors inside
// a word that carry meaning in numbers, codes, dates and times (1,250.00 A-78274 14/03 14:30).
func entityTokens(s string) []string {
	var toks []string
	rs := []rune(s)
	start := -1
	for i, r := range rs {
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) && start >= 0
		inner := start >= 0 && strings.ContainsRune("-.,:/", r) && i+1 < len(rs) &&
			(unicode.IsLetter(rs[i+1]) || unicode.IsDigit(rs[i+1])) &&
			(unicode.IsDigit(rs[i-1]) || unicode.IsDigit(rs[i+1]) || r == '-')
		switch {
		case word && start < 0:
			start = i
		case word && scriptBreak(rs[i-1], r): // a number against another script's word (scripts.go)
			toks = append(toks, string(rs[start:i]))
			start = i
		case word, inner:
		case start >= 0:
			toks = append(toks, string(rs[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		toks = append(toks, string(rs[start:]))
	}
	return toks
}

// monthOf is the month a word names in English, Portuguese, Spanish, French, German or Italian
// (names and abbreviations, with and without accents), 0 for none. "may", "mar", "set" and
// "out" are words too: they count only next to a day (dateAt asks for one).
func monthOf(w string) int {
	switch strings.ToLower(strings.TrimSuffix(w, ".")) {
	case "january", "jan", "janeiro", "enero", "janvier", "januar", "jänner", "gennaio", "gen", "ene":
		return 1
	case "february", "feb", "fevereiro", "fev", "febrero", "février", "fevrier", "févr", "februar", "febbraio":
		return 2
	case "march", "mar", "março", "marco", "marzo", "mars", "märz", "marz":
		return 3
	case "april", "apr", "abril", "abr", "avril", "avr", "aprile":
		return 4
	case "may", "maio", "mayo", "mai", "maggio", "mag":
		return 5
	case "june", "jun", "junho", "junio", "juin", "juni", "giugno", "giu":
		return 6
	case "july", "jul", "julho", "julio", "juillet", "juil", "juli", "luglio", "lug":
		return 7
	case "august", "aug", "agosto", "ago", "août", "aout", "aoû":
		return 8
	case "september", "sep", "sept", "setembro", "set", "septiembre", "septembre", "settembre":
		return 9
	case "october", "oct", "outubro", "out", "octubre", "octobre", "oktober", "okt", "ottobre", "ott":
		return 10
	case "november", "nov", "novembro", "noviembre", "novembre":
		return 11
	case "december", "dec", "dezembro", "dez", "diciembre", "dic", "décembre", "decembre", "déc", "dezember", "dicembre":
		return 12
	}
	return 0
}

// dayOf reads a day of the month: "14", "14th", "3rd", "1st", "2nd", "1º".
func dayOf(w string) (int, bool) {
	w = strings.ToLower(w)
	for _, suf := range []string{"st", "nd", "rd", "th", "º", "er"} {
		w = strings.TrimSuffix(w, suf)
	}
	d, err := strconv.Atoi(w)
	return d, err == nil && d >= 1 && d <= 31 && len(w) <= 2
}

func yearOf(w string) bool {
	y, err := strconv.Atoi(w)
	return err == nil && len(w) == 4 && y >= 1900 && y <= 2199
}

// dateKey is a date's entity: month and day as an unordered pair (day-first and month-first
// writings of one date agree).
func dateKey(a, b int) string {
	if a > b {
		a, b = b, a
	}
	return "D:" + twoDigits(a) + "-" + twoDigits(b)
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// connector words between a day, a month and a year: "14 de março de 2026", "the 3rd of May".
func dateFiller(w string) bool {
	switch strings.ToLower(w) {
	case "de", "of", "the", "del", "le":
		return true
	}
	return false
}

// dateAt reads a date starting at toks[i]: numeric (2026-03-14, 14/03/2026, 03/14, 14.03.2026)
// or with a month name on either side of the day, an optional year after; n is how many
// tokens it took (0: no date).
func dateAt(toks []string, i int) (string, int) {
	t := toks[i]
	if strings.ContainsAny(t, "/-.") && !strings.ContainsAny(t, ",:") {
		parts := strings.FieldsFunc(t, func(r rune) bool { return r == '/' || r == '-' || r == '.' })
		nums := make([]int, 0, 3)
		for _, p := range parts {
			n, err := strconv.Atoi(p)
			if err != nil {
				nums = nil
				break
			}
			nums = append(nums, n)
		}
		switch {
		case len(nums) == 3 && yearOf(parts[0]) && okMonthDay(nums[1], nums[2]):
			return dateKey(nums[1], nums[2]), 1
		case len(nums) == 3 && yearOf(parts[2]) && okMonthDay(nums[0], nums[1]):
			return dateKey(nums[0], nums[1]), 1
		case len(nums) == 2 && strings.Contains(t, "/") && okMonthDay(nums[0], nums[1]):
			return dateKey(nums[0], nums[1]), 1
		}
	}
	// a day, fillers, a month: "14 de março", "14. März" (the dot is gone), "3rd of May"
	if d, ok := dayOf(t); ok {
		j := i + 1
		for j < len(toks) && dateFiller(toks[j]) {
			j++
		}
		if j < len(toks) {
			if m := monthOf(toks[j]); m > 0 {
				return dateKey(d, m), withYear(toks, j+1) - i
			}
		}
	}
	// a month, fillers, a day: "March 14", "March the 14th"
	if m := monthOf(t); m > 0 {
		j := i + 1
		for j < len(toks) && dateFiller(toks[j]) {
			j++
		}
		if j < len(toks) {
			if d, ok := dayOf(toks[j]); ok {
				return dateKey(d, m), withYear(toks, j+1) - i
			}
		}
	}
	return "", 0
}

// withYear is the index after a date ending before toks[j]: past its year, if one follows
// (after fillers).
func withYear(toks []string, j int) int {
	k := j
	for k < len(toks) && dateFiller(toks[k]) {
		k++
	}
	if k < len(toks) && yearOf(toks[k]) {
		return k + 1
	}
	return j
}

func okMonthDay(a, b int) bool {
	return a >= 1 && b >= 1 && (a <= 12 && b <= 31 || b <= 12 && a <= 31)
}

// timeTokAt reads a time of day at toks[i]: 14:30, 2:30 followed by pm / p.m., 14h30, 4pm.
func timeTokAt(toks []string, i int) (string, int) {
	t := strings.ToLower(toks[i])
	h, m, n := -1, 0, 1
	switch {
	case strings.Count(t, ":") == 1 || strings.Contains(t, "h") && !strings.HasSuffix(t, "h"):
		sep := ":"
		if !strings.Contains(t, sep) {
			sep = "h"
		}
		a, b, _ := strings.Cut(t, sep)
		hh, err1 := strconv.Atoi(a)
		mm, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || len(b) != 2 || len(a) > 2 {
			return "", 0
		}
		h, m = hh, mm
	case strings.HasSuffix(t, "am") || strings.HasSuffix(t, "pm"):
		hh, err := strconv.Atoi(t[:len(t)-2])
		if err != nil || hh < 1 || hh > 12 {
			return "", 0
		}
		h = hh
		if t[len(t)-2] == 'p' && h < 12 {
			h += 12
		} else if t[len(t)-2] == 'a' && h == 12 {
			h = 0
		}
		return "T:" + twoDigits(h) + ":00", 1
	default:
		return "", 0
	}
	if h < 0 || h > 23 || m > 59 {
		return "", 0
	}
	if i+1 < len(toks) {
		switch strings.ToLower(toks[i+1]) {
		case "pm", "p.m", "p":
			if h < 12 {
				h += 12
			}
			n = 2
		case "am", "a.m", "a":
			if h == 12 {
				h = 0
			}
			n = 2
		}
	}
	return "T:" + twoDigits(h) + ":" + twoDigits(m), n
}

// codeOrAmount is a token's entity when it is an identifier or an amount, "" otherwise.
func codeOrAmount(t string) string {
	letters, digits := 0, 0
	for _, r := range t {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		}
	}
	if digits == 0 {
		return ""
	}
	if letters > 0 {
		w := strings.ToUpper(dropAny(t, "-.,:/"))
		if utf8.RuneCountInString(w) < 4 || ordinalOrUnit(strings.ToLower(w)) {
			return ""
		}
		return "C:" + w
	}
	if strings.ContainsAny(t, ":/") {
		return ""
	}
	return number(t)
}

// ordinalOrUnit: 21st, 3rd, 100ms, 60s, 5min, 2fa-like short words are no identifiers.
func ordinalOrUnit(w string) bool {
	i := 0
	for i < len(w) && w[i] >= '0' && w[i] <= '9' {
		i++
	}
	if i == 0 || i == len(w) {
		return false
	}
	switch w[i:] {
	case "st",
		"nd",
		"rd",
		"th",
		"ms",
		"s",
		"sec",
		"secs",
		"min",
		"mins",
		"h",
		"hr",
		"hrs",
		"d",
		"days",
		"kb",
		"mb",
		"gb",
		"tb",
		"px",
		"am",
		"pm",
		"x",
		"k",
		"m":
		return true
	}
	return false
}

// number reads a number written with separators in either convention (1,250.00 and 1.250,00
// are both N:1250; 12,50 and 12.50 are N:12.5; numberValue). Hyphens join the parts of a phone
// number or a reference. Whole numbers under 1000 are left out (counts, which a translation may
// spell in words).
func number(t string) string {
	if strings.Contains(t, "-") {
		w := dropAny(t, "-.,")
		if len(w) >= 4 {
			return "N:" + w
		}
		return ""
	}
	v := numberValue(t)
	if strings.Contains(v, ".") || len(v) >= 4 {
		return "N:" + v
	}
	return ""
}

// numberValue is a number written with separators in either convention in plain notation:
// with both kinds, the last is the decimal one; one kind used once is the decimal one unless
// three digits follow it (1,250 and 1.250 are thousands); leading and trailing zeros dropped.
// A text's signature and its entities read numbers with it alike.
func numberValue(t string) string {
	intPart, frac := t, ""
	if last := strings.LastIndexAny(t, ".,"); last >= 0 {
		sep := t[last]
		both := strings.Contains(t, ".") && strings.Contains(t, ",")
		once := strings.Count(t, string(sep)) == 1
		if both || once && len(t)-last-1 != 3 {
			intPart, frac = t[:last], t[last+1:]
		}
	}
	intPart = cmp.Or(strings.TrimLeft(dropAny(intPart, ".,"), "0"), "0")
	if frac = strings.TrimRight(frac, "0"); frac != "" {
		return intPart + "." + frac
	}
	return intPart
}

// dropAny is s without the bytes in chars (ASCII).
func dropAny(s, chars string) string {
	if !strings.ContainsAny(s, chars) {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(chars, s[i]) < 0 {
			b = append(b, s[i])
		}
	}
	return string(b)
}
