package triage

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The words an error text is read by: the last resort, after what a record states outright
// (its error kind, the provider's status). They are data, by the class of evidence they are
// and by where they come from (a language, a protocol, a proxy, a provider's error codes), not
// rules: a text no row names is unclear, and an unclear failure of a write is ambiguous (it
// does not prove that nothing took effect). Phrases are matched in the text lower-cased, with
// '_' and '-' read as spaces (gRPC's DEADLINE_EXCEEDED, Slack's channel_not_found).

// phraseRow is the phrases of one class from one source; name is the phrase a reason quotes
// for each (the phrase itself when empty).
type phraseRow struct {
	source  string
	phrases []string
	name    string
}

// timeoutPhrases name a timeout: the request may have been carried out while its answer was
// lost.
var timeoutPhrases = []phraseRow{
	{source: "English", phrases: []string{"timed out", "timeout", "time out", "took too long", "did not respond in time",
		"didn't respond in time", "no response within"}, name: "timed out"},
	{source: "Node, Python", phrases: []string{"etimedout", "esockettimedout", "readtimeout", "read timed out"},
		name: "timed out"},
	{source: "gRPC, Go", phrases: []string{"deadline exceeded", "context deadline"}, name: "deadline exceeded"},
	{source: "German", phrases: []string{"zeitüberschreitung", "zeitlimit überschritten", "keine antwort innerhalb"}, name: "timed out"},
	{source: "French", phrases: []string{"délai d'attente", "délai dépassé", "délai expiré", "temps imparti", "délai d’attente"},
		name: "timed out"},
	{source: "Spanish", phrases: []string{"tiempo de espera", "se agotó el tiempo", "tiempo agotado"}, name: "timed out"},
	{source: "Portuguese", phrases: []string{"tempo limite", "tempo esgotado", "tempo de espera"}, name: "timed out"},
	{source: "Italian", phrases: []string{"tempo scaduto", "timeout scaduto", "tempo di attesa"}, name: "timed out"},
	{source: "Dutch", phrases: []string{"time out", "tijdslimiet"}, name: "timed out"},
	{source: "Polish", phrases: []string{"przekroczono limit czasu", "upłynął limit czasu"}, name: "timed out"},
	{source: "Turkish", phrases: []string{"zaman aşımı"}, name: "timed out"},
	{source: "Russian", phrases: []string{"тайм аут", "таймаут", "время ожидания", "истекло время"}, name: "timed out"},
	{source: "Japanese", phrases: []string{"タイムアウト", "時間切れ", "応答がありません"}, name: "timed out"},
	{source: "Chinese", phrases: []string{"超时", "超時", "逾時", "请求超时"}, name: "timed out"},
	{source: "Korean", phrases: []string{"시간 초과", "시간초과", "타임아웃"}, name: "timed out"},
}

// droppedPhrases name a connection lost after the request may have been written.
var droppedPhrases = []phraseRow{
	{source: "Node", phrases: []string{"econnreset"}, name: "ECONNRESET"},
	{source: "English, Node, Python", phrases: []string{"connection reset", "socket hang up", "broken pipe", "epipe", "econnaborted",
		"connection aborted",
		"connection closed", "server closed", "remote end closed", "server disconnected", "premature close", "unexpected eof",
		"incomplete response", "connection lost", "connection was lost", "stream reset", "stream closed", "goaway"}},
	{source: "German", phrases: []string{"verbindung zurückgesetzt", "verbindung getrennt", "verbindung unterbrochen"}},
	{source: "French", phrases: []string{"connexion réinitialisée", "connexion interrompue", "connexion perdue"}},
	{source: "Spanish, Portuguese", phrases: []string{"conexión restablecida", "conexión interrumpida", "conexão redefinida",
		"conexão interrompida"}},
	{source: "Russian", phrases: []string{"соединение разорвано", "соединение сброшено"}},
	{source: "Japanese, Chinese", phrases: []string{"接続がリセット", "接続が切断", "连接被重置", "连接中断", "連線中斷"}},
}

// gatewayPhrases are a proxy's or gateway's own wording of an upstream that failed or did not
// answer: the provider may have acted.
var gatewayPhrases = []phraseRow{
	{source: "HTTP", phrases: []string{"bad gateway"}, name: "502"},
	{source: "HTTP", phrases: []string{"service unavailable", "temporarily unavailable"}, name: "503"},
	{source: "HTTP", phrases: []string{"gateway timeout", "gateway time out"}, name: "504"},
	{source: "gRPC", phrases: []string{"unavailable"}, name: "UNAVAILABLE"},
	{source: "HTTP", phrases: []string{"internal server error", "server error", "backend error", "internal error"}, name: "500"},
	{source: "proxies (Envoy, nginx, Varnish, Cloudflare, Heroku, ALB)", phrases: []string{"upstream", "no healthy", "backend fetch failed",
		"proxy error", "origin is unreachable", "origin error", "a timeout occurred", "web server is returning an unknown error",
		"application error"}, name: "5xx"},
}

// rateLimitPhrases name a rate limit or a quota: the request was refused before it ran.
var rateLimitPhrases = []phraseRow{
	{source: "English, HTTP", phrases: []string{"rate limit", "ratelimit", "rate limited", "too many requests", "quota exceeded",
		"quotaexceeded",
		"exceeded your quota", "throttl", "slow down", "slowdown", "request limit exceeded", "daily limit exceeded", "user rate"}},
	{source: "English (a limit of requests said otherwise: AWS's, Google Maps', Telegram's FLOOD_WAIT)", phrases: []string{
		"rate exceeded", "throughput exceeded", "query limit", "request limit", "too fast", "flood wait", "flood control"}},
	{source: "English (a limit of use over time, or of calls at once)", phrases: []string{"usage limit", "concurrency limit",
		"concurrent requests", "concurrent connections", "concurrent calls", "simultaneous requests", "simultaneous connections",
		"max concurrent"}},
	{source: "gRPC", phrases: []string{"resource exhausted", "resourceexhausted"}},
	{source: "German", phrases: []string{"zu viele anfragen", "anfragelimit"}},
	{source: "French", phrases: []string{"trop de requêtes", "trop de demandes", "limite de débit"}},
	{source: "Spanish, Portuguese", phrases: []string{"demasiadas solicitudes", "demasiadas peticiones", "muitas solicitações",
		"muitas requisições", "límite de solicitudes", "límite de peticiones", "limite de solicitações", "limite de requisições"}},
	{source: "Italian, Dutch, Polish, Turkish", phrases: []string{"troppe richieste", "limite di richieste", "te veel verzoeken",
		"zbyt wiele żądań", "zbyt wielu żądań", "çok fazla istek"}},
	{source: "Russian", phrases: []string{"слишком много запросов"}},
	{source: "Swedish, Indonesian, Vietnamese", phrases: []string{"för många förfrågningar", "för många begäranden",
		"terlalu banyak permintaan", "quá nhiều yêu cầu"}},
	{source: "Polish, Turkish (a limit of requests)", phrases: []string{"limit żądań", "istek sınırı"}},
	{source: "Ukrainian, Czech, Greek", phrases: []string{"забагато запитів", "занадто багато запитів", "příliš mnoho požadavků",
		"πάρα πολλά αιτήματα", "πολλά αιτήματα"}},
	{source: "Arabic, Hebrew, Hindi, Thai", phrases: []string{"طلبات كثيرة", "عدد كبير جدًا من الطلبات", "יותר מדי בקשות", "बहुत अधिक अनुरोध",
		"बहुत सारे अनुरोध", "คำขอมากเกินไป"}},
	{source: "Japanese, Chinese, Korean", phrases: []string{"リクエストが多すぎ", "レート制限", "请求过多", "请求过于频繁", "頻率限制", "频率限制", "요청이 너무 많"}},
}

// heldLimitPhrases name a limit of what an account may hold or spend (its storage, its plan's
// allowance): unlike a rate limit it does not pass with time, and the write was refused. Read
// before the rate limits: "Disk quota exceeded" is no quota of requests.
var heldLimitPhrases = []phraseRow{
	{source: "English", phrases: []string{"storage quota", "disk quota", "storage limit", "storage is full", "storage full", "mailbox full",
		"mailbox is full", "insufficient storage", "out of storage", "no space left", "plan limit", "on your plan", "of your plan",
		"plan allows",
		"upgrade your plan", "hard limit", "billing limit", "spending limit", "credit limit", "out of credits", "no credits"}},
	{source: "English (a balance to spend too low or spent; a limit that sends the caller to its billing)",
		phrases: []string{"balance is too low", "balance too low", "low balance", "balance is insufficient", "balance has run out",
			"balance ran out", "credits have run out", "run out of credits", "billing details", "billing information", "top up your",
			"add funds", "add credits"}},
}

// notConnectedPhrases say the connection never opened (a timeout or an error while connecting):
// nothing was written, so nothing can have taken effect, whatever else the text says ("connect
// ETIMEDOUT" names a timeout, of the connect). A timeout on an open connection ("Connection timed
// out" from a read, nginx's "upstream timed out") is no such proof.
var notConnectedPhrases = []phraseRow{
	{source: "Python (urllib3, requests, httpx)", phrases: []string{"connecttimeout", "connect timeout", "timed out while connecting"},
		name: "timed out while connecting"},
	{source: "Node", phrases: []string{"connect etimedout"}, name: "timed out while connecting"},
	{source: "Go", phrases: []string{"dial tcp", "dial udp"}, name: "failed while dialing"},
	{source: "Java", phrases: []string{"connectexception", "connect timed out"}, name: "failed while connecting"},
	{source: "curl, Apple (NSURLError), aiohttp, urllib3, English", phrases: []string{"failed to connect", "could not connect",
		"couldn't connect", "cannot connect to host", "unable to connect", "failed to establish a new connection"},
		name: "failed while connecting"},
	{source: "Ruby (Net::HTTP, Faraday)", phrases: []string{"open timeout", "opentimeout", "failed to open tcp connection"},
		name: "timed out while connecting"},
	{source: "curl, libcurl (its connect phase: a transfer's timeout says \"Operation timed out\")",
		phrases: []string{"curl error 28: connection timed out after", "(28) connection timed out after"}, name: "timed out while connecting"},
	{source: "TLS (Go, OpenSSL, Node)", phrases: []string{"tls handshake", "tls: handshake", "ssl handshake"},
		name: "failed its TLS handshake"},
	{source: "proxies (urllib3, curl)", phrases: []string{"cannot connect to proxy", "tunnel connection failed"},
		name: "failed to reach its proxy"},
}

// neverSentPhrases say the request never left: the connection was refused, the host not
// found, the TLS handshake failed.
var neverSentPhrases = []phraseRow{
	{source: "English, Node", phrases: []string{"econnrefused", "connection refused"}, name: "refused"},
	{source: "English, Node, Go", phrases: []string{"no such host", "enotfound", "getaddrinfo", "name resolution", "dns"},
		name: "failed to resolve the host"},
	{source: "C resolvers (glibc, BSD), curl, Java", phrases: []string{"name or service not known", "nodename nor servname",
		"no address associated with hostname", "could not resolve host", "unknownhostexception"}, name: "failed to resolve the host"},
	{source: "Dart, Erlang and Elixir, DNS, curl", phrases: []string{"failed host lookup", "nxdomain", "servfail",
		"resolving timed out after"}, name: "failed to resolve the host"},
	{source: "getaddrinfo's codes (Node, libc: EAI_AGAIN, a resolver's temporary failure; EAI_NONAME; EAI_FAIL)",
		phrases: []string{"eai again", "eai noname", "eai fail"}, name: "failed to resolve the host"},
	{source: "TLS (a certificate as TLS speaks of it: a file named certificate.pdf is none)", phrases: []string{"x509", "handshake failure",
		"wrong version number", "certificate verify", "certificate has expired", "certificate expired", "certificate signed by unknown",
		"self signed certificate", "certificate is not trusted", "certificate not trusted", "certificate chain", "local issuer certificate",
		"verify the first certificate", "certificate verification", "invalid certificate", "bad certificate", "unknown certificate",
		"certificate revoked", "certificate has been revoked", "certificate error", "certificate is not valid", "certificate is valid for"},
		name: "failed its TLS handshake"},
	{source: "Apple (NSURLError), Chromium (net::ERR_)", phrases: []string{"hostname could not be found", "err name not resolved",
		"err connection refused", "err address unreachable", "err internet disconnected", "err cert ", "err ssl "},
		name: "failed before it opened"},
	{source: "Node, POSIX", phrases: []string{"ehostunreach", "enetunreach", "enetdown", "network is down"}, name: "could not reach the host"},
	{source: "English", phrases: []string{"never sent", "not sent", "request was not written", "before the request was written",
		"unreachable"}, name: "failed"},
	{source: "German, French, Spanish", phrases: []string{"verbindung abgelehnt", "connexion refusée", "conexión rechazada"},
		name: "refused"},
	// a breaker that trips on a call's failure ("Failures threshold reached, circuit breaker
	// opened") says that call went and failed: only an open breaker's refusal of the next is here
	{source: "resilience libraries (Resilience4j, Hystrix, Polly, opossum, pybreaker, gobreaker)",
		phrases: []string{"breaker is open", "breaker still open", "circuit is open", "circuit is now open", "does not permit further calls",
			"short circuited", "bulkhead is full", "bulkhead full", "not allowing calls", "circuit breaker is open"},
		name: "was not attempted (an open circuit breaker or a full bulkhead)"},
}

// garbledPhrases say the answer came back unreadable: the request was carried, its answer
// lost.
var garbledPhrases = []phraseRow{
	// (a fault said of the response, the reply or the result, "invalid response", "empty reply",
	// "failed to parse response", is answerFault's, failuretext.go)
	{source: "English, JSON", phrases: []string{"unexpected token", "unexpected end of json"}},
	{source: "HTTP parsers reading the answer (Node's llhttp HPE_ codes, Python's http.client and h11, Go, .NET, Java)",
		phrases: []string{"hpe ", "expected http/", "malformed http response", "badstatusline", "bad status line", "illegal status line",
			"protocol violation", "invalid http response", "remoteprotocolerror"}, name: "malformed HTTP"},
	{source: "English (what a check of the answer says: the request was carried, its answer did not fit)",
		phrases: []string{"response does not match", "response doesn't match", "response mismatch", "response schema",
			"response validation", "output validation", "mismatch in response", "mismatch on response"}},
}

// crashPhrases are a runtime's words for a program that crashed (a bad memory access, a null
// reference, a stack or a heap exhausted): the program's failure, which says nothing of whether
// the request was sent, read before the refusals whose words they hold ("invalid memory
// address").
var crashPhrases = []phraseRow{
	{source: "Go, C, Java, .NET, Node, Python runtimes", phrases: []string{"invalid memory address", "nil pointer dereference",
		"segmentation fault", "segmentation violation", "core dumped", "nullpointerexception", "nullreferenceexception",
		"object reference not set", "stackoverflowerror", "stack overflow", "heap out of memory", "outofmemoryerror",
		"maximum recursion depth"}},
}

// refusalPhrases say the request was refused before anything was done: a validation, auth,
// permission or not-found failure, in the wording of languages, protocols and providers'
// error codes.
var refusalPhrases = []phraseRow{
	{source: "English", phrases: []string{"validation", "invalid", "required", "missing", "not found", "does not exist", "doesn't exist",
		"no such",
		"unauthorized", "unauthorised", "unauthenticated", "forbidden", "permission", "access denied", "denied", "not allowed",
		"not permitted", "bad request", "unprocessable", "malformed", "rejected", "insufficient", "disabled", "suspended",
		"archived", "revoked", "expired", "bad credentials", "credentials", "not accessible", "not authorized", "not authed",
		"not in channel", "too long", "too large", "too many", "exceeds the maximum", "unsupported", "not supported", "already exists",
		"duplicate", "conflict", "does not belong", "doesn't belong", "does not match", "doesn't match", "mismatch",
		"precondition", "out of range", "unimplemented", "inactive", "restricted", "blocked", "auth error", "authentication"}},
	{source: "English (a need negated, a find negated, a constraint on a value, a conflict with what exists)",
		phrases: []string{"not enabled", "not granted", "not valid", "not a valid", "not authenticated", "not logged in", "cannot be set",
			"can't be set", "cannot be blank", "can't be blank", "cannot be empty", "can't be empty", "must be", "could not find",
			"couldn't find", "cannot find", "can't find", "unable to find", "unable to locate", "could not locate", "already been taken",
			"already taken", "already in use", "declined", "must use", "must contain", "must include", "must not",
			"not provided", "not specified", "is not set", "are not set", "is empty", "are empty", "cannot be null",
			"can't be null", "may not be null", "is in the past", "not active", "isn't active"}},
	{source: "English (a condition the request set not met: a conditional write, If-Match, a precondition)",
		phrases: []string{"conditional check failed", "conditional request failed", "condition failed", "condition not met",
			"conditions not met", "condition is not met", "condition was not met", "pre-condition", "pre-conditions"}},
	{source: "English (a wait for a lock that ran out before the work began)",
		phrases: []string{"lock wait timeout", "lock timeout", "could not obtain lock", "could not acquire lock",
			"unable to acquire lock", "unable to obtain lock", "lock not available", "waiting for a lock", "waiting for the lock"}},
	{source: "English (a target locked or read only; a content refused as spam or against a policy)",
		phrases: []string{"is locked", "locked by", "read only", "flagged as spam", "marked as spam", "violates", "policy violation"}},
	{source: "English (a target gone, or one that refuses what is sent to it)", phrases: []string{"unsubscribed", "opted out",
		"is deleted", "was deleted", "been deleted", "no longer exists", "no longer exist", "no longer available",
		"protected by", "protected branch"}},
	{source: "English (a validator's words for a value of the wrong type or form: JSON Schema, Ajv, Pydantic, Zod)",
		phrases: []string{"input should be", "value should be", "should be a valid", "should have at least", "should have at most",
			"must match", "is not of type", "not of a type", "expected string", "expected number",
			"expected integer", "expected boolean", "expected object", "expected array", "expected null"}},
	{source: "Composio SDK (the refusals among @composio/core 0.21.0's error classes, made before any request)",
		phrases: []string{"multiple connected accounts", "no api key", "api key kind", "provider not defined",
			"execute tool fn not set", "endpoint retired", "config conflict", "acl only for shared"}},
	{source: "gRPC", phrases: []string{"invalid argument", "failed precondition", "permission denied", "not found", "already exists",
		"unauthenticated"}},
	{source: "German", phrases: []string{"ungültig", "nicht gefunden", "nicht autorisiert", "zugriff verweigert", "nicht erlaubt",
		"erforderlich", "fehlt", "unzulässig", "existiert nicht"}},
	{source: "French", phrases: []string{"invalide", "introuvable", "non trouvé", "non autorisé", "accès refusé", "interdit", "requis",
		"manquant", "n'existe pas"}},
	{source: "Spanish", phrases: []string{"inválido", "inválida", "no encontrado", "no encontrada", "no autorizado", "acceso denegado",
		"prohibido", "requerido", "obligatorio", "no existe"}},
	{source: "Portuguese", phrases: []string{"não encontrado", "não autorizado", "acesso negado", "obrigatório", "não existe"}},
	{source: "Italian", phrases: []string{"non valido", "non trovato", "non autorizzato", "accesso negato", "obbligatorio", "non esiste"}},
	{source: "Russian", phrases: []string{"недопустим", "неверн", "не найден", "доступ запрещ", "не авторизован", "обязательн",
		"не существует"}},
	{source: "Japanese", phrases: []string{"無効", "見つかりません", "権限がありません", "アクセスが拒否", "必須", "不正な", "存在しません"}},
	{source: "Chinese", phrases: []string{"无效", "無效", "未找到", "找不到", "不存在", "未授权", "无权限", "权限不足", "拒绝访问", "缺少", "必填"}},
	{source: "Korean", phrases: []string{"잘못된", "찾을 수 없", "권한이 없", "필수"}},
	{source: "Dutch", phrases: []string{"ongeldig", "niet gevonden", "toegang geweigerd", "niet toegestaan", "onbevoegd", "verplicht",
		"bestaat niet"}},
	{source: "Polish", phrases: []string{"nieprawidłow", "nie znaleziono", "odmowa dostępu", "brak uprawnień", "nieautoryzowan", "wymagan",
		"nie istnieje"}},
	{source: "Turkish", phrases: []string{"geçersiz", "bulunamadı", "erişim reddedildi", "yetkisiz", "izin verilmedi", "zorunlu",
		"mevcut değil"}},
	{source: "Swedish", phrases: []string{"ogiltig", "hittades inte", "åtkomst nekad", "obehörig", "krävs", "finns inte"}},
	{source: "Indonesian", phrases: []string{"tidak valid", "tidak ditemukan", "akses ditolak", "tidak sah", "wajib diisi"}},
	{source: "Vietnamese", phrases: []string{"không hợp lệ", "không tìm thấy", "bị từ chối", "không có quyền", "bắt buộc", "không tồn tại"}},
	{source: "Ukrainian", phrases: []string{"недійсн", "не знайдено", "доступ заборонено", "обов'язков", "не існує"}},
	{source: "Czech", phrases: []string{"neplatn", "nenalezen", "nebyl nalezen", "nebyla nalezena", "přístup odepřen", "neautorizován",
		"povinn", "neexistuje"}},
	{source: "Greek", phrases: []string{"μη έγκυρ", "δεν βρέθηκε", "δεν επιτρέπεται", "απαγορεύεται", "απαιτείται", "δεν υπάρχει"}},
	{source: "Arabic", phrases: []string{"غير صالح", "غير صحيح", "لم يتم العثور", "غير موجود", "تم رفض", "غير مصرح", "مطلوب"}},
	{source: "Hebrew", phrases: []string{"אינה חוקית", "אינו חוקי", "לא חוקי", "לא חוקית", "לא נמצא", "נדחתה", "נדחה", "אין הרשאה", "חובה"}},
	{source: "Hindi", phrases: []string{"अमान्य", "नहीं मिला", "नहीं मिली", "अस्वीकृत", "अनधिकृत", "आवश्यक"}},
	{source: "Thai", phrases: []string{"ไม่ถูกต้อง", "ไม่พบ", "ถูกปฏิเสธ", "ไม่ได้รับอนุญาต", "จำเป็น"}},
}

// normalText is an error text as the phrases are matched against: lower-cased, with '_' and
// '-' read as spaces; a text that writes words together as an identifier does ("OpenTimeout",
// "SignatureDoesNotMatch", "HTTPConnectTimeoutException") is followed, on a line of its own, by
// the same text with those words apart, so that a phrase matches either way.
func normalText(text string) string {
	low := spaced(strings.ToLower(text))
	if words := identifierWords(text); words != "" {
		low += "\n" + spaced(strings.ToLower(words))
	}
	return low
}

func spaced(low string) string {
	if !strings.ContainsAny(low, "_-") {
		return low
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return ' '
		}
		return r
	}, low)
}

// identifierWords is text with a space wherever an identifier joins two words: a lower-case
// letter or a digit then an upper-case one ("openTimeout"), and an acronym then a word
// ("HTTPConnect"). "" when text joins none.
func identifierWords(text string) string {
	var b strings.Builder
	prev, joined := rune(0), false
	rs := []rune(text)
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 {
			next := rune(0)
			if i+1 < len(rs) {
				next = rs[i+1]
			}
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && unicode.IsLower(next) {
				b.WriteByte(' ')
				joined = true
			}
		}
		b.WriteRune(r)
		prev = r
	}
	if !joined {
		return ""
	}
	return b.String()
}

// findPhrase returns the name of the first phrase of rows that low contains ("" for none).
// A phrase of doubt may be part of a longer word ("gatewaytimeout"): reading too much doubt
// only flags.
func findPhrase(low string, rows []phraseRow) string { return findIn(low, rows, false) }

// findWordPhrase is findPhrase for the phrases that prove nothing took effect (a refusal, a
// request that never left): one written in letters must start a word, so that no such proof
// is read inside another word ("resourcenotfound" holds no "enotfound"; a file name is no
// TLS failure). Phrases in scripts written without spaces match anywhere.
func findWordPhrase(low string, rows []phraseRow) string { return findIn(low, rows, true) }

func findIn(low string, rows []phraseRow, wordStart bool) string {
	for _, r := range rows {
		for _, p := range r.phrases {
			if containsAt(low, p, wordStart) {
				if r.name != "" {
					return r.name
				}
				return p
			}
		}
	}
	return ""
}

// containsAt reports whether low contains p, at the start of a word when wordStart is set and
// p starts with an ASCII letter.
func containsAt(low, p string, wordStart bool) bool {
	if !wordStart || p == "" || p[0] < 'a' || p[0] > 'z' {
		return strings.Contains(low, p)
	}
	for from := 0; ; {
		i := strings.Index(low[from:], p)
		if i < 0 {
			return false
		}
		i += from
		if r, _ := utf8.DecodeLastRuneInString(low[:i]); i == 0 || !unicode.IsLetter(r) {
			return true
		}
		from = i + 1
	}
}

// statePhrases name a state a thing is in (an order, an invoice, an incident, a request): a
// message that reports another state of the same thing is another message, however many facts
// it shares with the first ("order 42609 shipped", then "order 42609 delivered"). Whole words,
// as written: the forms that report a state, not the nouns a stem would make of them (a refund,
// a review, a fix).
var statePhrases = []phraseRow{
	{source: "English", phrases: []string{"shipped", "dispatched"}, name: "shipped"},
	{source: "English", phrases: []string{"delivered", "arrived"}, name: "delivered"},
	{source: "English", phrases: []string{"cancelled", "canceled", "voided", "withdrawn"}, name: "cancelled"},
	{source: "English", phrases: []string{"refunded", "credited"}, name: "refunded"},
	{source: "English", phrases: []string{"rejected", "declined", "denied"}, name: "rejected"},
	{source: "English", phrases: []string{"approved", "accepted"}, name: "approved"},
	{source: "English", phrases: []string{"resolved", "fixed", "closed", "mitigated"}, name: "resolved"},
	{source: "English", phrases: []string{"opened", "investigating", "detected", "escalated"}, name: "opened"},
	{source: "English", phrases: []string{"paid", "settled"}, name: "paid"},
	{source: "English", phrases: []string{"overdue", "unpaid"}, name: "overdue"},
	{source: "English", phrases: []string{"pending", "reviewed", "queued"}, name: "pending"},
	{source: "English", phrases: []string{"postponed", "rescheduled", "delayed"}, name: "postponed"},
}

// stateByWord is statePhrases by word (read only).
var stateByWord = stateOf()

// stateOf is statePhrases by word.
func stateOf() map[string]string {
	m := map[string]string{}
	for _, r := range statePhrases {
		for _, p := range r.phrases {
			m[p] = r.name
		}
	}
	return m
}
