package triage

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
)

// Defaults for Options.
const (
	// DefaultCallerTimeout is the Composio SDKs' default request timeout.
	DefaultCallerTimeout = 60 * time.Second
	// DefaultWindow is how far apart two executions may be and still be duplicates.
	DefaultWindow = 10 * time.Minute
	// DefaultRetryReach is how long after a write whose outcome is unclear the same write, sent
	// with the same bytes, may come again and still be its retry: a queue redelivers a message
	// after its visibility timeout (30 s to 12 hours), a scheduler runs a failed job again at
	// its next run (a day at most).
	DefaultRetryReach = 24 * time.Hour
)

// Options tune classification and grouping. The zero value means the defaults.
type Options struct {
	// CallerTimeout is the caller's request timeout (0: 60 s, the SDK default). A success that
	// took longer is ambiguous: the caller saw a timeout although the action happened.
	CallerTimeout time.Duration
	// Window is the largest gap between consecutive members of a duplicate group (0: 10 min).
	Window time.Duration
	// RetryReach is the largest gap after a member whose outcome is unclear, to a member sent
	// with the same bytes (0: a day); never less than Window.
	RetryReach time.Duration
	// VolatileKeys are argument keys ignored when comparing arguments (nil:
	// model.DefaultVolatileKeys(); an empty non-nil slice ignores nothing).
	VolatileKeys []string
	// Deliveries are the window's trigger deliveries, which name a redelivery's duplicates
	// (nil: Analyze reads them from the executions it is given; Incremental from those added).
	Deliveries *Deliveries
	// MetaRuns are the window's meta-tool runs, which name the duplicates of their children
	// (nil: as Deliveries).
	MetaRuns *MetaRuns
	// Thresholds are the grouping's tuned constants (a zero field: its default).
	Thresholds Thresholds
}

// WithDefaults returns o with every zero field set to its default.
func (o Options) WithDefaults() Options {
	if o.RetryReach <= 0 {
		o.RetryReach = DefaultRetryReach
	}
	if o.CallerTimeout <= 0 {
		o.CallerTimeout = DefaultCallerTimeout
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.VolatileKeys == nil {
		o.VolatileKeys = model.DefaultVolatileKeys()
	}
	o.Thresholds = o.Thresholds.withDefaults()
	return o
}

// Classify decides an execution's outcome and gives a one-line reason naming the evidence and
// what it means for the tool ("504 from provider after 61.2 s: the email may have been sent").
// The rules, first match wins:
//
//  1. an error of kind rate_limited, an upstream 429, or "rate limit"/"too many requests" →
//     rejected (refused before execution; a write should still be verified);
//  2. an error of kind auth or validation → failed;
//  3. a connection error whose text says it was refused or never sent (DNS, TLS handshake,
//     "connection refused") → failed;
//  4. an error of kind timeout, upstream_5xx or connection, an upstream 408 or 5xx, or error
//     text naming a timeout, a dropped connection or a gateway error → ambiguous;
//  5. an upstream 4xx → failed;
//  6. any other recorded failure (status failed, or a response with successful:false) → failed;
//  7. no terminal status → ambiguous;
//  8. success that took longer than the caller's timeout → ambiguous (the caller saw a timeout);
//  9. success → succeeded.
func Classify(e *model.Execution, kind model.ToolKind, opt Options) (model.Outcome, string) {
	return classify(e, opt.WithDefaults(), effectOf(e.ToolSlug, kind), nil)
}

// callState are the refusal words that, as a status alone, are said of the execution itself (it
// expired, it was suspended or blocked), which says nothing of what it did first; said in an
// error of what the call needs (a token expired) they refuse it.
var callState = map[string]bool{"expired": true, "revoked": true, "suspended": true, "disabled": true, "inactive": true,
	"blocked": true, "restricted": true, "archived": true}

// nothingRan says why a session execution ran nothing, from its response's result_type
// (@composio/core 0.23 and later: input_required, the session needs input first; 0.27 and
// later: blocked, a before_execute hook refused), "" for any other result. An input_required
// that carries a request_state asks for a person's approval (0.25 and later): state is it.
func nothingRan(resp json.RawMessage) (why, state string) {
	if len(resp) == 0 || !bytes.Contains(resp, []byte("esult")) {
		return "", ""
	}
	var r struct {
		ResultType    string `json:"result_type"`
		ResultType2   string `json:"resultType"`
		RequestState  string `json:"request_state"`
		RequestState2 string `json:"requestState"`
	}
	if json.Unmarshal(resp, &r) != nil {
		return "", ""
	}
	switch strings.ToLower(r.ResultType + r.ResultType2) {
	case "input_required":
		if state = r.RequestState + r.RequestState2; state != "" {
			return "it waits for a person's approval (result_type input_required, request_state" + quote(state) + ")", state
		}
		return "the session needed input first (result_type input_required: an account to connect)", ""
	case "blocked":
		return "a before_execute hook blocked it (result_type blocked)", ""
	}
	return "", ""
}

// AwaitsApproval returns the request_state of a session call that answered input_required to
// ask for a person's approval (nothing ran; the app's re-call with that state and the answers
// runs it), false for any other call.
func AwaitsApproval(e *model.Execution) (state string, ok bool) {
	_, state = nothingRan(e.Response)
	return state, state != ""
}

// succeededIn is "succeeded in " + secs(d), once per duration: a million successes spent a
// fifth of a CPU second formatting the same few thousand texts.
type succeededIn map[time.Duration]string

func (m succeededIn) text(d time.Duration) string {
	if s, ok := m[d]; ok {
		return s
	}
	s := "succeeded in " + secs(d)
	if m != nil && len(m) < 1<<16 {
		m[d] = s
	}
	return s
}

// memo keeps what classify makes again and again for a Classifier: the success texts, and
// the quoted error texts (a quote is a redaction and a reformatting of the text, and a
// million records hold a few thousand texts). A nil memo keeps nothing.
type memo struct {
	done   succeededIn
	quotes map[string]string
	said   map[string]textSays // what each error text says (readEvidence)
}

func newMemo() *memo {
	return &memo{done: succeededIn{}, quotes: map[string]string{}, said: map[string]textSays{}}
}

// evidence is readEvidence(text), kept.
func (m *memo) evidence(text string) textSays {
	if m == nil {
		return readEvidence(text)
	}
	return kept(m.said, text, readEvidence)
}

// quote is quote(s), kept.
func (m *memo) quote(s string) string {
	if m == nil {
		return quote(s)
	}
	return kept(m.quotes, s, quote)
}

// kept is f(s), from memo when it was made before; memo keeps at most 65,536.
func kept[V any](memo map[string]V, s string, f func(string) V) V {
	if v, ok := memo[s]; ok {
		return v
	}
	v := f(s)
	if len(memo) < 1<<16 {
		memo[s] = v
	}
	return v
}

// classify is Classify with the options' defaults applied and the tool's effect worked out
// (Analyze works it out once per tool); m, when not nil, keeps what it makes.
func classify(e *model.Execution, opt Options, fx effect, m *memo) (model.Outcome, string) {
	o, reason := classifyOwn(e, opt, fx, m)
	if a := e.Approval; a != nil && a.RequestState != "" {
		reason += "; an approved re-call (request_state" + quote(a.RequestState) + "): it continues the call that asked for approval"
	}
	return o, reason
}

// classifyOwn is classify of the execution's own record.
func classifyOwn(e *model.Execution, opt Options, fx effect, m *memo) (model.Outcome, string) {
	if why, state := nothingRan(e.Response); state != "" {
		return model.OutcomeWaiting, "nothing ran yet: " + why + "; it runs when the app makes the call again with the approval, which " +
			"continues this one (not a duplicate)"
	} else if why != "" {
		return model.OutcomeFailed, "nothing ran: " + why + ": " + fx.not()
	}
	st := terminalStatus(e.Status)
	if f, ok := successDataFailure(e); ok {
		return dataFailed(e, f, fx, m)
	}
	errText, hasErr := failureText(e, st)
	var ek model.ErrorKind
	var code int
	if e.Error != nil {
		ek, code = model.ErrorKind(strings.ToLower(string(e.Error.Kind))), e.Error.HTTPStatus
	}
	if hasErr || st == statusFailed {
		ev := m.evidence(errText)
		if kt := kindWords(kindOf(e)); kt != "" { // a kind in the log's own words is read as its words are
			if errText == "" {
				errText = string(e.Error.Kind)
			}
			ev = m.evidence(errText + "; " + kt)
		}
		o, reason, _ := classifyFailure(e, ek, code, errText, m.quote(errText), ev, fx, false)
		return o, reason
	}
	if st == statusNone {
		s := strings.TrimSpace(e.Status)
		// a status that says it, read as the words of an error are: timed_out, rate_limited,
		// unauthorized (its words split where the log joins them: RateLimited, not_found)
		words := joinedWords(s)
		if ev := m.evidence(words); ev.timeout != "" || ev.dropped != "" || ev.gateway != "" || ev.rateLimit ||
			ev.refusal != "" && !callState[ev.refusal] || ev.neverLeft() || ev.neverSent != "" {
			o, reason, _ := classifyFailure(e, ek, code, s, m.quote(s), ev, fx, false)
			return o, reason
		} else if !inFlight(s) && effectSaidDone(words) { // (queued, submitted, accepted: its effect still to come)
			return model.OutcomeSucceeded, "status" + quote(s) + ", which says it took effect" + after(e)
		}
		switch {
		case inFlight(s):
			return model.OutcomeAmbiguous, "status" + quote(s) + ", not a final one" + after(e) + ": " + fx.maybe()
		case s != "": // cancelled, aborted, killed: it stopped, and says nothing of what it did first
			return model.OutcomeAmbiguous, "status" + quote(s) + ", which does not say whether it ran" + after(e) + ": " + fx.maybe()
		}
		return model.OutcomeAmbiguous, "no terminal status recorded" + after(e) + ": " + fx.maybe()
	}
	if e.HasDuration && e.Duration > opt.CallerTimeout {
		return model.OutcomeAmbiguous, fmt.Sprintf("succeeded in %s, past the caller's %s timeout: %s",
			secs(e.Duration), wholeSecs(opt.CallerTimeout), fx.sawTimeout())
	}
	if e.HasDuration {
		var done succeededIn
		if m != nil {
			done = m.done
		}
		return model.OutcomeSucceeded, done.text(e.Duration)
	}
	return model.OutcomeSucceeded, "succeeded"
}

// dataFailed is the outcome of a success, as Composio recorded it, whose data is the
// provider's failure: read as the provider's error is (its words, its status), unclear when
// it comes beside results (part of the call may have taken effect).
func dataFailed(e *model.Execution, f DataFailure, fx effect, m *memo) (model.Outcome, string) {
	said := "recorded a success, but its data is the provider's failure (" + f.Marker + ")"
	if f.Partial {
		return model.OutcomeAmbiguous, said + ", beside results" + m.quote(f.Text) + ": part of it may have taken effect: " + fx.maybe()
	}
	o, reason, _ := classifyFailure(e, "", f.Code, f.Text, m.quote(f.Text), m.evidence(f.Text), fx, false)
	return o, said + ": " + reason
}

// classifyFailure is the one rule for a failure's outcome, whether a log records it or a
// write's answer reports it (ClassifyAnswer). definite says the evidence proves the outcome: a
// failed that is not definite is only the absence of any sign of an effect (no text, or text
// no rule knows), which a log may call failed but a write's answer may not. answer applies the
// stricter reading of a write's own answer: a provider 4xx other than those that prove a
// refusal (409 Conflict, say) leaves the outcome open.
func classifyFailure(
	e *model.Execution,
	ek model.ErrorKind,
	code int,
	text, quoted string,
	ev textSays,
	fx effect,
	answer bool,
) (o model.Outcome, reason string, definite bool) {
	// What the record states outright (error kind, upstream status) comes first.
	switch {
	case ek == model.ErrRateLimited || code == 429:
		return model.OutcomeRejected, "rate limited (429)" + after(e) + ": " + fx.likelyNot(), true
	case code == 403 && ev.rateLimit:
		// Google answers its rate limits 403 ("User-rate limit exceeded", rateLimitExceeded)
		return model.OutcomeRejected, "rate limited (403" + quoted + ")" + after(e) + ": " + fx.likelyNot(), true
	case ek == model.ErrAuth:
		return model.OutcomeFailed, "auth error" + codeNote(code) + quoted + ": " + fx.not(), true
	case ek == model.ErrValidation:
		return model.OutcomeFailed, "validation error" + codeNote(code) + quoted + ": " + fx.not(), true
	case (ek == model.ErrTimeout || ek == model.ErrConnection) && ev.neverLeft():
		return model.OutcomeFailed, ev.unopened(quoted) + ", the request was never sent: " + fx.not(), true
	case ek == model.ErrTimeout:
		return model.OutcomeAmbiguous, "timed out" + after(e) + quoted + ": " + fx.maybe(), true
	case code == 408:
		return model.OutcomeAmbiguous, "408 request timeout from provider" + after(e) + ": " + fx.maybe(), true
	case code == 499: // nginx's "client closed request": the caller gave up waiting, a timeout by another name
		return model.OutcomeAmbiguous, "499 from provider, the request closed before its answer" + after(e) + ": " + fx.maybe(), true
	case code >= 500 && code <= 599:
		return model.OutcomeAmbiguous, fmt.Sprintf("%d from provider%s: %s", code, after(e), fx.maybe()), true
	case ek == model.ErrUpstream5xx:
		return model.OutcomeAmbiguous, "5xx from provider" + after(e) + quoted + ": " + fx.maybe(), true
	case ek == model.ErrConnection:
		if w := ev.neverSent; w != "" {
			return model.OutcomeFailed, "connection " + w + ", the request was never sent: " + fx.not(), true
		}
		what := "connection error"
		if w := ev.dropped; w != "" {
			what = "connection dropped (" + w + ")"
		}
		return model.OutcomeAmbiguous, what + after(e) + ": " + fx.maybe(), true
	case answer && code >= 300 && code <= 499 && !model.ProvesNoEffect(code):
		return model.OutcomeAmbiguous, fmt.Sprintf("%d from provider%s, which does not prove a refusal: %s", code, quoted, fx.maybe()), true
	case code >= 400 && code <= 499:
		return model.OutcomeFailed, fmt.Sprintf("%d from provider%s: %s", code, quoted, fx.not()), true
	}
	// Otherwise the error text decides. A failure said of a callback made after the write proves
	// nothing of the write, whatever it says. Text that names a timeout, a dropped connection or a
	// gateway error leaves the action possible whatever else it says ("timed out after 60 s
	// while uploading certificate.pdf" names no TLS failure), unless it says the connection
	// never opened. Text that says the write or part of it took effect leaves it done whatever
	// else it says (a refusal or a rate limit of the rest: parteffect.go).
	if w := ev.callback; w != "" { // a step after the write (parteffect.go)
		return model.OutcomeAmbiguous, "the error is a callback's, made after the write (" + w + ")" + quoted + ": " + fx.maybe(), true
	}
	if ev.neverLeft() {
		return model.OutcomeFailed, ev.unopened(quoted) + ", the request was never sent: " + fx.not(), true
	}
	if w := ev.timeout; w != "" {
		return model.OutcomeAmbiguous, w + after(e) + ": " + fx.maybe(), true
	}
	if w := ev.dropped; w != "" {
		return model.OutcomeAmbiguous, "connection dropped (" + w + ")" + after(e) + ": " + fx.maybe(), true
	}
	if c := ev.gateway; c != "" {
		return model.OutcomeAmbiguous, c + " from provider" + after(e) + ": " + fx.maybe(), true
	}
	if w := ev.part; w != "" {
		return model.OutcomeAmbiguous, "the error says it took effect, in whole or in part (" + w + ")" + quoted + ": " + fx.maybe(), true
	}
	if w := ev.neverSent; w != "" {
		return model.OutcomeFailed, "connection " + w + ", the request was never sent: " + fx.not(), true
	}
	if ev.rateLimit {
		return model.OutcomeRejected, "rate limited (429)" + after(e) + ": " + fx.likelyNot(), true
	}
	if w := ev.garbled; w != "" {
		return model.OutcomeAmbiguous, "the answer came back unreadable (" + w + ")" + after(e) + ": " + fx.maybe(), true
	}
	if w := ev.crash; w != "" {
		return model.OutcomeAmbiguous, "the program crashed (" + w + ")" + quoted + ": " + fx.maybe(), true
	}
	if w := ev.none; w != "" {
		return model.OutcomeFailed, "refused (" + w + ")" + quoted + ": " + fx.not(), true
	}
	if w := ev.refusal; w != "" {
		return model.OutcomeFailed, "refused (" + w + ")" + quoted + ": " + fx.not(), true
	}
	// Nothing proves that nothing took effect: a failure no evidence explains is unclear, and
	// says so, a read's as a write's (the same evidence gives one outcome; the kind decides what
	// it asks of a person: a read is safe to run again).
	switch {
	case fx.read && text == "":
		return model.OutcomeAmbiguous, "failed with no error recorded: " + fx.maybe(), false
	case fx.read:
		return model.OutcomeAmbiguous, "failed" + quoted + ", an error that does not say whether it ran: " + fx.maybe(), false
	case text == "":
		return model.OutcomeAmbiguous, "failed with no error recorded, which does not prove " + fx.notProved() + ": " + fx.maybe(), false
	}
	return model.OutcomeAmbiguous, "failed" + quoted + ", an error that does not prove " + fx.notProved() + ": " + fx.maybe(), false
}

// textSays is what an error text says, by the class of its words (words.go): the phrase
// found in each class, "" for none. part says the write or part of it took effect, none that
// none of it did, callback that a callback made after it failed (parteffect.go).
type textSays struct {
	timeout, dropped, gateway, neverSent, notConnected, unsent, garbled, crash, refusal string
	part, none, callback                                                                string
	rateLimit                                                                           bool
}

// neverLeft says the text proves the request never left: its connection never opened, or the
// text says in words that it was not sent. A text that also names a server's own failure (a 5xx
// status, "internal server error", gRPC's UNAVAILABLE) is the server's account: what it says of
// connections is its own (its database's), not the request's, and proves nothing of it. A
// proxy's words ("ProxyError", "upstream") are the way the request took, and do not count so.
func (ev textSays) neverLeft() bool {
	return (ev.notConnected != "" || ev.unsent != "") && (ev.gateway == "" || ev.gateway == "5xx")
}

// unopened says how a request that never left failed: the refusal, resolution or handshake
// when the text names one ("connection refused"), else the phase it failed in, or what the text
// says of it ("failed before the request was sent").
func (ev textSays) unopened(quoted string) string {
	switch {
	case ev.neverSent != "":
		return "connection " + ev.neverSent
	case ev.notConnected == "":
		return ev.unsent + quoted
	}
	return "connection never opened (" + ev.notConnected + ")" + quoted
}

// readEvidence reads an error text's words, every class.
func readEvidence(text string) textSays {
	if text == "" {
		return textSays{}
	}
	text = failureAccount(text) // where the code ran, a warning beside it: no account of what happened (failuretext.go)
	low := normalText(text)
	return textSays{timeout: timeoutWord(low), dropped: droppedWord(low), gateway: gatewayCode(low), neverSent: neverSent(low),
		notConnected: notConnected(low), unsent: unsentWords(low),
		garbled: cmp.Or(findPhrase(low, garbledPhrases), answerFaultWord(low)), crash: findPhrase(low, crashPhrases),
		refusal: refusalWord(low), rateLimit: rateLimitText(low),
		part: partEffect(low, strings.ToLower(text)), none: noEffect(low), callback: callbackStep.FindString(low)}
}

// negatedFind is "no X found": a thing the request needs that does not exist, said with the
// negation before the noun (up to four words apart, "was"/"were" allowed before "found").
var negatedFind = regexp.MustCompile(`\bno (\S+ ){1,4}(was |were )?found\b`)

// The things a request names as its target or its parameters: "unknown" said of one of them
// is a refusal ("Unknown Channel", Slack's unknown_method), where "unknown error" or gRPC's
// "code = Unknown" proves nothing.
const requestThings = `(channel|user|member|message|recipient|guild|role|account|field|parameter|argument|property|key|column|` +
	`attribute|method|action|tool|app|application|integration|emoji|webhook|page|database|object|entity|record|project|` +
	`repository|repo|label|team|workspace|organization|email|address|contact|list|folder|file|board|ticket|calendar|event|` +
	`thread|chat|conversation|sheet|spreadsheet|template|sender|domain|customer|product|price|invoice)s?`

// unknownTarget is a thing the request names that the provider does not know.
var unknownTarget = regexp.MustCompile(`\bunknown ` + requestThings + `\b`)

// unknownThing finds a thing the request names that the provider does not know (unknownTarget),
// unless the word after it makes it a kind of failure: "An unknown file error occurred" is an
// error, not an unknown file.
func unknownThing(low string) string {
	for _, at := range unknownTarget.FindAllStringIndex(low, -1) {
		next, _, _ := strings.Cut(strings.TrimLeft(low[at[1]:], " "), " ")
		switch strings.TrimRight(next, ".,;:!") {
		case "error", "errors", "exception", "failure", "issue", "problem", "occurred":
			continue
		}
		return low[at[0]:at[1]]
	}
	return ""
}

// unreachableTarget is a target the provider says cannot be written to: a capability negated
// toward a recipient ("Cannot send messages to this user", Slack's cannot_dm_bot).
var unreachableTarget = regexp.MustCompile(`\b(cannot|can't|can not|unable to) ([a-z]+ ){1,3}?((to|in|into|with) )?` +
	`((this|that|the|a|an) )?(user|recipient|member|bot|channel|chat|group|conversation|thread|contact)s?\b`)

// accessNeeded is what the call needs and the caller lacks, said as a need or as who may do it
// ("You need to have writer access", "requires the 'chat:write' scope", "Only owners can invite").
var accessNeeded = regexp.MustCompile(`\b(requires?|needs?|need to have)( [a-z0-9:'._/]+){0,3} (access|scopes?|permissions?|` +
	`privileges?|roles?|rights)\b|\bonly ([a-z]+ ){1,2}(can|may|are allowed)\b`)

// validatorSays is a validator's constraint on a value the request carries, in the wording that
// says what the value should be (Ajv's first wording "should be string", "should have required
// property", Notion's "should be defined, instead was"), or what was expected and what came
// ("expected a list of strings, got str"): its presence, emptiness, type or form, order, range or
// set. Advice and states worded with "should" ("should be resolved shortly", "should be back",
// "should have received") say none of these.
var validatorSays = regexp.MustCompile(`\bshould (not )?(be (defined|undefined|empty|blank|null|present|provided|specified|unique|` +
	`non-?empty|positive|negative|(greater|less|larger|smaller|longer|shorter|earlier|later) than|before|after|between|` +
	`one of|equal to|at (least|most)|in [a-z0-9.:/ -]{1,20} format|(a |an )?(valid |non-empty |positive )?` + validatorType + `)|` +
	`have (required|additional|more|fewer|no more|no fewer|at least|at most)|match (the )?(pattern|format))\b|` +
	`\bexpected (a |an )?(list|array|string|number|integer|int|float|boolean|bool|object|dict|map|date|str)\b[^.;]{0,40}\b(got|received)\b`)

// validatorType is a type or form a validator names.
const validatorType = `(string|number|integer|int|float|boolean|bool|object|array|list|map|dict|date|date-time|datetime|time|` +
	`timestamp|url|uri|email|email address|phone number|uuid|id|json|null)s?`

// rateLimitText reports whether a (lower-case) error text names a rate limit, in the
// spellings providers use: "rate limit", Google's "User-rate limit exceeded" and
// rateLimitExceeded (answered 403), "too many requests", quotas, throttling, 429.
func rateLimitText(low string) bool {
	return (findPhrase(low, rateLimitPhrases) != "" || tooManyCalls.MatchString(low) || waitRequired.MatchString(low)) &&
		findPhrase(low, heldLimitPhrases) == "" || HasWord(low, "429")
}

// tooManyCalls is "too many" said of the caller's calls (requests, calls, attempts, queries,
// operations: a rate), where said of the content ("too many recipients") it refuses the content.
var tooManyCalls = regexp.MustCompile(`\btoo many ([a-z]+ ){0,2}(requests|calls|attempts|queries|operations)\b`)

// waitRequired is a wait the provider requires before the next call ("A wait of 35 seconds is
// required", Telegram's FloodWaitError): a rate limit.
var waitRequired = regexp.MustCompile(`\bwait of [0-9]+ (ms|milliseconds?|seconds?|minutes?)( is)? required\b`)

// smtpRefusal is a mail server's negative reply: a reply code with its enhanced status code of
// the same class (RFC 3463: 4 a transient failure, 5 a permanent one), "550 5.1.1",
// "552-5.3.4", Python's "(550, b'5.1.1 ...')". Either class says the server did not take the
// message; a lone number like 5.1.1 may be a version and is not read.
var smtpRefusal = regexp.MustCompile(`\b(?:(4[0-9]{2})\W{1,3}(?:b')?(4\.[0-7]\.[0-9]{1,3})|(5[0-9]{2})\W{1,3}(?:b')?(5\.[0-7]\.[0-9]{1,3}))\b`)

// refusalWord finds what in an error text proves the request was refused before anything was
// done: a validation, auth or not-found failure, a mail server's negative reply. "Not found" is
// said with its negation apart too: "no connected account found", "no matching channel was
// found" (negatedFind).
func refusalWord(low string) string {
	if w := findWordPhrase(low, refusalPhrases); w != "" {
		return w
	}
	if m := smtpRefusal.FindStringSubmatch(low); m != nil {
		return "the mail server's " + m[1] + m[3] + " " + m[2] + m[4]
	}
	if negatedFind.MatchString(low) {
		return "not found"
	}
	if w := cmp.Or(findPhrase(low, heldLimitPhrases), unknownThing(low), unreachableTarget.FindString(low),
		accessNeeded.FindString(low), validatorSays.FindString(low)); w != "" {
		return w
	}
	for _, c := range []string{"400", "401", "403", "404", "422"} {
		if HasWord(low, c) {
			return c
		}
	}
	return ""
}

// ClassifyAnswer classifies a write's own answer that reported a failure (a 200 with
// successful:false): Composio's HTTP status, the upstream provider's status when the answer
// carries one (its data's status), and the tool's error text. One rule: free text never proves
// that nothing happened. Text that names a timeout, a gateway error, a dropped connection or
// an unknown state makes it ambiguous whatever else is said; text that says the request was
// refused, rate limited or never sent (TLS, DNS, "connection refused") is ambiguous too, its
// words proving nothing ("x509 certificate expired on the callback host; the email was sent").
// Only a structured status that proves a refusal makes it failed (an upstream 400, 401, 403,
// 404 or 422, or a Composio status that does: model.ProvesNoEffect), and an upstream 429
// rejected, when no word of the text leaves the action possible.
func ClassifyAnswer(slug string, kind model.ToolKind, status, upstream int, text string) (model.Outcome, string) {
	fx := effectOf(slug, kind)
	low := normalText(failureAccount(text)) // read as a log's failure text is
	quoted := quote(text)
	if w := uncertainWord(low); w != "" {
		return model.OutcomeAmbiguous, "the answer reported a failure that names " + w + quoted + ": " + fx.maybe()
	}
	switch code := upstream; {
	case code == 0 && status >= 400:
		code = status
		fallthrough
	default:
		switch {
		case code == 429:
			return model.OutcomeRejected, "the provider answered 429" + quoted + ": " + fx.likelyNot()
		case code == 403 && rateLimitText(low):
			return model.OutcomeRejected, "the provider answered 403, a rate limit" + quoted + ": " + fx.likelyNot()
		case model.ProvesNoEffect(code):
			return model.OutcomeFailed, fmt.Sprintf("the provider answered %d%s: %s", code, quoted, fx.not())
		case code >= 500 && code <= 599:
			return model.OutcomeAmbiguous, fmt.Sprintf("the provider answered %d%s: %s", code, quoted, fx.maybe())
		}
	}
	says := "a failure"
	switch {
	case neverSent(low) != "":
		says = "that the connection " + neverSent(low)
	case rateLimitText(low):
		says = "a rate limit"
	case refusalWord(low) != "":
		says = "a refusal (" + refusalWord(low) + ")"
	}
	return model.OutcomeAmbiguous, "the answer reported " + says + quoted + ", which its text alone cannot prove (no status says it was " +
		"refused before acting): " + fx.maybe()
}

// uncertainWord finds what in a text leaves an action possible: a timeout, a dropped
// connection, a gateway error, or words of an unknown or partial state or of an effect.
func uncertainWord(low string) string {
	if w := timeoutWord(low); w != "" {
		return "a timeout (" + w + ")"
	}
	if w := droppedWord(low); w != "" {
		return "a dropped connection (" + w + ")"
	}
	if c := gatewayCode(low); c != "" {
		return "a gateway error (" + c + ")"
	}
	for _, w := range []string{"gateway", "unknown", "uncertain", "unclear", "may have", "might have", "maybe", "in progress", "pending",
		"queued", "accepted", "processing", "still running", "partial", "eventual", "was sent", "were sent", "been sent",
		"delivered", "was created", "been created", "was posted", "been posted", "published", "succeeded", "executed", "committed"} {
		if strings.Contains(low, w) {
			return "an unknown or partial state (" + w + ")"
		}
	}
	return ""
}

type terminal int

const (
	statusNone terminal = iota
	statusSuccess
	statusFailed
)

// LogSucceeded reports whether a log's status records success, in the one vocabulary triage
// reads statuses with (success, succeeded, ok, completed...).
func LogSucceeded(status string) bool { return terminalStatus(status) == statusSuccess }

// LogTookEffect reports whether an execution's log records that it took effect: a success,
// unless its data is the provider's failure (Composio recorded the proxy's 200, the provider
// said ok: false). Every reader of a log's success asks this (the guard, resolve, Classify).
func LogTookEffect(e *model.Execution) bool {
	_, failed := successDataFailure(e)
	return !failed && LogSucceeded(e.Status)
}

// successDataFailure is the provider's failure in the data of a log recorded successful.
func successDataFailure(e *model.Execution) (DataFailure, bool) {
	if !LogSucceeded(e.Status) {
		return DataFailure{}, false
	}
	return responseDataFailure(e.Response)
}

func terminalStatus(s string) terminal {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "success", "succeeded", "successful", "ok", "completed", "complete", "done", "finished":
		return statusSuccess
	case "failed", "failure", "fail", "error", "errored":
		return statusFailed
	}
	return statusNone
}

// bodyMessage is what a person reads of an error sent as a JSON body (model.ReadErrorBody: its
// message, else its errors list's first); any other text is itself.
func bodyMessage(s string) string {
	if t := strings.TrimSpace(s); len(t) < 2 || t[0] != '{' {
		return s
	}
	eb, ok := model.ReadErrorBody([]byte(s))
	if !ok {
		return s
	}
	if eb.Message == "" && len(eb.Details) > 0 {
		return eb.Details[0]
	}
	return cmp.Or(eb.Message, s)
}

// inFlight reports whether a status says the call is still under way (running, queued,
// pending, waiting for something): not a final one.
func inFlight(status string) bool {
	s := strings.ToLower(spaced(strings.TrimSpace(status)))
	switch s {
	case "running", "in progress", "inprogress", "queued", "pending", "processing", "started", "scheduled", "retrying", "initiated",
		"accepted", "executing", "submitted":
		return true
	}
	return strings.HasPrefix(s, "waiting")
}

func codeNote(code int) string {
	if code > 0 {
		return fmt.Sprintf(" (%d)", code)
	}
	return ""
}

// quote renders an error message briefly: ` "message"`, cut at 60 characters. Secrets in it
// (tokens, keys an upstream error echoed) are redacted first, so the reason every report and
// view prints never carries one, not even half of one.
func quote(s string) string {
	s = redact.New().String(strings.Join(strings.Fields(bodyMessage(s)), " "))
	if s == "" {
		return ""
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return fmt.Sprintf(" %q", s)
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s" }

func wholeSecs(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", int64(d/time.Second))
	}
	return secs(d)
}
