package triage

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

func execWith(slug, status string, d time.Duration, err *model.ExecError) *model.Execution {
	e := &model.Execution{ID: "log_x", ToolSlug: slug, Status: status, Error: err, RetryCount: -1}
	if d > 0 {
		e.Duration, e.HasDuration = d, true
	}
	return e
}

func TestClassify(t *testing.T) {
	const send = "GMAIL_SEND_EMAIL"
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tests := []struct {
		name   string
		e      *model.Execution
		kind   model.ToolKind
		want   model.Outcome
		reason string // exact reason
	}{
		{"plain success", execWith(send, "success", ms(800), nil), model.KindWrite, model.OutcomeSucceeded,
			"succeeded in 0.8 s"},
		{"success without duration", execWith(send, "success", 0, nil), model.KindWrite, model.OutcomeSucceeded,
			"succeeded"},
		{"success past caller timeout", execWith("SLACK_SEND_MESSAGE", "success", ms(75000), nil), model.KindWrite, model.OutcomeAmbiguous,
			"succeeded in 75.0 s, past the caller's 60 s timeout: the caller saw a timeout but the message was posted"},
		{"success exactly at caller timeout", execWith(send, "success", ms(60000), nil), model.KindWrite, model.OutcomeSucceeded,
			"succeeded in 60.0 s"},
		{"read past caller timeout", execWith("GMAIL_FETCH_EMAILS", "success", ms(61000), nil), model.KindRead, model.OutcomeAmbiguous,
			"succeeded in 61.0 s, past the caller's 60 s timeout: the caller saw a timeout; a read, safe to run again"},
		{"504 from provider", execWith(send, "failed", ms(61200), &model.ExecError{HTTPStatus: 504, Kind: model.ErrUpstream5xx}), model.KindWrite, model.OutcomeAmbiguous,
			"504 from provider after 61.2 s: the email may have been sent"},
		{"5xx kind without status", execWith("GITHUB_CREATE_AN_ISSUE", "failed", 0, &model.ExecError{Kind: model.ErrUpstream5xx, Message: "Upstream provider returned Bad Gateway"}), model.KindWrite, model.OutcomeAmbiguous,
			`5xx from provider "Upstream provider returned Bad Gateway": the issue may have been created`},
		{"timeout kind", execWith(send, "failed", ms(60000), &model.ExecError{Kind: model.ErrTimeout}), model.KindWrite, model.OutcomeAmbiguous,
			"timed out after 60.0 s: the email may have been sent"},
		{"408", execWith(send, "failed", ms(30000), &model.ExecError{HTTPStatus: 408}), model.KindWrite, model.OutcomeAmbiguous,
			"408 request timeout from provider after 30.0 s: the email may have been sent"},
		{"deadline exceeded text", execWith("GMAIL_REPLY_TO_THREAD", "failed", ms(60000), &model.ExecError{Message: "context deadline exceeded"}), model.KindWrite, model.OutcomeAmbiguous,
			"deadline exceeded after 60.0 s: the reply may have been sent"},
		{"timed out text", execWith("HUBSPOT_CREATE_CONTACT", "failed", 0, &model.ExecError{Message: "The read operation timed out"}), model.KindWrite, model.OutcomeAmbiguous,
			"timed out: the contact may have been created"},
		{"ECONNRESET text", execWith(send, "failed", ms(3100), &model.ExecError{Message: "read ECONNRESET"}), model.KindWrite, model.OutcomeAmbiguous,
			"connection dropped (ECONNRESET) after 3.1 s: the email may have been sent"},
		{"socket hang up", execWith(send, "failed", 0, &model.ExecError{Message: "Error: socket hang up"}), model.KindWrite, model.OutcomeAmbiguous,
			"connection dropped (socket hang up): the email may have been sent"},
		{"EOF as a word", execWith(send, "failed", 0, &model.ExecError{Message: `Post "https://x": EOF`}), model.KindWrite, model.OutcomeAmbiguous,
			"connection dropped (EOF): the email may have been sent"},
		{"eof inside a word is not EOF", execWith(send, "failed", 0, &model.ExecError{Message: "the body thereof is invalid"}), model.KindWrite, model.OutcomeFailed,
			`refused (invalid) "the body thereof is invalid": the email was not sent`},
		{"502 in text", execWith(send, "failed", 0, &model.ExecError{Message: "upstream answered 502"}), model.KindWrite, model.OutcomeAmbiguous,
			"502 from provider: the email may have been sent"},
		{"bad gateway text", execWith(send, "failed", 0, &model.ExecError{Message: "Bad Gateway"}), model.KindWrite, model.OutcomeAmbiguous,
			"502 from provider: the email may have been sent"},
		{"503 number in text", execWith(send, "failed", 0, &model.ExecError{Message: "status=503"}), model.KindWrite, model.OutcomeAmbiguous,
			"503 from provider: the email may have been sent"},
		{"number inside an id is not a status", execWith(send, "failed", 0, &model.ExecError{Message: "invalid message id 15020"}), model.KindWrite, model.OutcomeFailed,
			`refused (invalid) "invalid message id 15020": the email was not sent`},
		{"connection kind dropped", execWith(send, "failed", ms(200), &model.ExecError{Kind: model.ErrConnection, Message: "connection reset by peer"}), model.KindWrite, model.OutcomeAmbiguous,
			"connection dropped (connection reset) after 0.2 s: the email may have been sent"},
		{"connection kind bare", execWith(send, "failed", 0, &model.ExecError{Kind: model.ErrConnection}), model.KindWrite, model.OutcomeAmbiguous,
			"connection error: the email may have been sent"},
		{"connection refused", execWith(send, "failed", 0, &model.ExecError{Kind: model.ErrConnection, Message: "dial tcp 1.2.3.4:443: connect: connection refused"}), model.KindWrite, model.OutcomeFailed,
			"connection refused, the request was never sent: the email was not sent"},
		{"dns failure text", execWith(send, "failed", 0, &model.ExecError{Message: "getaddrinfo ENOTFOUND gmail.googleapis.com"}), model.KindWrite, model.OutcomeFailed,
			"connection failed to resolve the host, the request was never sent: the email was not sent"},
		// a timeout named anywhere wins over a "never sent" word elsewhere in the text
		{"timeout text naming a certificate file", execWith(send, "failed", 0, &model.ExecError{Message: "Request timed out after 60000ms while uploading certificate.pdf"}), model.KindWrite, model.OutcomeAmbiguous,
			"timed out: the email may have been sent"},
		{"gateway text naming an unreachable mirror", execWith(send, "failed", 0, &model.ExecError{Message: "unreachable mirror; 504 Gateway Timeout from Gmail"}), model.KindWrite, model.OutcomeAmbiguous,
			"timed out: the email may have been sent"},
		{"rate limited kind", execWith(send, "failed", ms(120), &model.ExecError{Kind: model.ErrRateLimited, HTTPStatus: 429}), model.KindWrite, model.OutcomeRejected,
			"rate limited (429) after 0.1 s: the email was likely not sent; verify before retrying"},
		{"429 status", execWith("SLACK_SEND_MESSAGE", "failed", 0, &model.ExecError{HTTPStatus: 429}), model.KindWrite, model.OutcomeRejected,
			"rate limited (429): the message was likely not posted; verify before retrying"},
		{"too many requests text", execWith(send, "failed", 0, &model.ExecError{Message: "Too Many Requests"}), model.KindWrite, model.OutcomeRejected,
			"rate limited (429): the email was likely not sent; verify before retrying"},
		{"auth", execWith(send, "failed", 0, &model.ExecError{Kind: model.ErrAuth, HTTPStatus: 401, Message: "invalid_grant"}), model.KindWrite, model.OutcomeFailed,
			`auth error (401) "invalid_grant": the email was not sent`},
		{"validation", execWith(send, "failed", 0, &model.ExecError{Kind: model.ErrValidation, Message: "recipient_email: required"}), model.KindWrite, model.OutcomeFailed,
			`validation error "recipient_email: required": the email was not sent`},
		{"validation beats a timeout word", execWith(send, "failed", 0, &model.ExecError{Kind: model.ErrValidation, Message: "timeout must be positive"}), model.KindWrite, model.OutcomeFailed,
			`validation error "timeout must be positive": the email was not sent`},
		{"404", execWith("GMAIL_REPLY_TO_THREAD", "failed", 0, &model.ExecError{HTTPStatus: 404, Message: "Requested entity was not found."}), model.KindWrite, model.OutcomeFailed,
			`404 from provider "Requested entity was not found.": the reply was not sent`},
		// Google answers its rate limits 403: a refusal before acting, not a failure
		{"gmail 403 user-rate limit", execWith(send, "failed", 0, &model.ExecError{HTTPStatus: 403, Message: "User-rate limit exceeded"}), model.KindWrite, model.OutcomeRejected,
			`rate limited (403 "User-rate limit exceeded"): the email was likely not sent; verify before retrying`},
		{"403 rateLimitExceeded", execWith(send, "failed", 0, &model.ExecError{HTTPStatus: 403, Message: "rateLimitExceeded: Quota exceeded for quota metric"}), model.KindWrite, model.OutcomeRejected,
			`rate limited (403 "rateLimitExceeded: Quota exceeded for quota metric"): the email was likely not sent; verify before retrying`},
		{"403 forbidden", execWith(send, "failed", 0, &model.ExecError{HTTPStatus: 403, Message: "Insufficient Permission"}), model.KindWrite, model.OutcomeFailed,
			`403 from provider "Insufficient Permission": the email was not sent`},
		{"throttled text", execWith(send, "failed", 0, &model.ExecError{Message: "Request was throttled"}), model.KindWrite, model.OutcomeRejected,
			"rate limited (429): the email was likely not sent; verify before retrying"},
		{"409 conflict", execWith("HUBSPOT_CREATE_CONTACT", "failed", 0, &model.ExecError{HTTPStatus: 409, Message: "Contact already exists"}), model.KindWrite, model.OutcomeFailed,
			`409 from provider "Contact already exists": the contact was not created`},
		// A write's failure is definite only on evidence that nothing took effect; anything else
		// is unclear, and says so.
		{"unknown failure", execWith(send, "failed", 0, &model.ExecError{Message: "Something odd"}), model.KindWrite, model.OutcomeAmbiguous,
			`failed "Something odd", an error that does not prove the email was not sent: the email may have been sent`},
		// a timeout while connecting proves nothing was written; one on an open connection does not
		{"connect timeout", execWith(send, "failed", 0, &model.ExecError{Message: "connect ETIMEDOUT 10.0.0.5:443"}), model.KindWrite, model.OutcomeFailed,
			`connection never opened (timed out while connecting) "connect ETIMEDOUT 10.0.0.5:443", the request was never sent: the email was not sent`},
		{"dial timeout, kind timeout", execWith(send, "failed", 0, &model.ExecError{Kind: model.ErrTimeout, Message: "dial tcp 10.0.0.5:443: i/o timeout"}), model.KindWrite, model.OutcomeFailed,
			`connection never opened (failed while dialing) "dial tcp 10.0.0.5:443: i/o timeout", the request was never sent: the email was not sent`},
		// every phase before a request is written proves it was not: resolving, reaching,
		// connecting, the TLS handshake, a proxy's tunnel, however long it took
		{"curl's connect timeout", execWith(send, "failed", 0, &model.ExecError{Message: "curl: (28) Failed to connect to api.example.com port 443 after 10001 ms: Timeout was reached"}),
			model.KindWrite, model.OutcomeFailed, `connection never opened (failed while connecting) "curl: (28) Failed to connect to api.example.com port 443 af…", ` +
				`the request was never sent: the email was not sent`},
		{"a TLS handshake timeout", execWith(send, "failed", 0, &model.ExecError{Message: "net/http: TLS handshake timeout"}), model.KindWrite, model.OutcomeFailed,
			`connection never opened (failed its TLS handshake) "net/http: TLS handshake timeout", the request was never sent: ` +
				`the email was not sent`},
		{"a proxy's tunnel", execWith(send, "failed", 0, &model.ExecError{Message: "ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: 407'))"}),
			model.KindWrite, model.OutcomeFailed, `connection never opened (failed to reach its proxy) "ProxyError('Cannot connect to proxy.', OSError('Tunnel conn…", ` +
				`the request was never sent: the email was not sent`},
		{"no route to the host", execWith(send, "failed", 0, &model.ExecError{Message: "connect EHOSTUNREACH 10.0.0.5:443"}), model.KindWrite, model.OutcomeFailed,
			"connection could not reach the host, the request was never sent: the email was not sent"},
		{"a browser's name error", execWith(send, "failed", 0, &model.ExecError{Message: "net::ERR_NAME_NOT_RESOLVED"}), model.KindWrite, model.OutcomeFailed,
			"connection failed before it opened, the request was never sent: the email was not sent"},
		{"a content limit", execWith(send, "failed", 0, &model.ExecError{Message: "too_many_attachments"}), model.KindWrite, model.OutcomeFailed,
			`refused (too many) "too_many_attachments": the email was not sent`},
		{"too many requests is still a rate limit", execWith(send, "failed", 0, &model.ExecError{Message: "Too Many Requests"}), model.KindWrite, model.OutcomeRejected,
			"rate limited (429): the email was likely not sent; verify before retrying"},
		{"a conflict with what exists", execWith(send, "failed", 0, &model.ExecError{Message: "duplicate_channel_name"}), model.KindWrite, model.OutcomeFailed,
			`refused (duplicate) "duplicate_channel_name": the email was not sent`},
		// the platform's refusal before it ran the tool: what the call needs is not there, or not the caller's
		{"a negated find", execWith(send, "failed", 0, &model.ExecError{Message: "No connected account found for user default and toolkit gmail"}),
			model.KindWrite, model.OutcomeFailed, `refused (not found) "No connected account found for user default and toolkit gma…": the email was not sent`},
		{"not the caller's", execWith(send, "failed", 0, &model.ExecError{Message: "The connected account does not belong to this user"}),
			model.KindWrite, model.OutcomeFailed, `refused (does not belong) "The connected account does not belong to this user": the email was not sent`},
		// words written together as an identifier writes them are read apart too
		{"an identifier's words: a connection that never opened", execWith(send, "failed", 0, &model.ExecError{Message: "Net::OpenTimeout: execution expired"}),
			model.KindWrite, model.OutcomeFailed, `connection never opened (timed out while connecting) "Net::OpenTimeout: execution expired", the request was never sent: the email was not sent`},
		{"an identifier's words: a signature refused", execWith(send, "failed", 0, &model.ExecError{
			Message: "<Error><Code>SignatureDoesNotMatch</Code><RequestId>4442587FB7D0A2F9</RequestId></Error>"}),
			model.KindWrite, model.OutcomeFailed, `refused (does not match) "<Error><Code>SignatureDoesNotMatch</Code><RequestId>4442587…": the email was not sent`},
		{"an identifier's words: the SDK's refusal", execWith(send, "failed", 0, &model.ExecError{Message: "ComposioMultipleConnectedAccountsError: for user default"}),
			model.KindWrite, model.OutcomeFailed, `refused (multiple connected accounts) "ComposioMultipleConnectedAccountsError: for user default": the email was not sent`},
		{"an identifier's words: a timeout stays unclear", execWith(send, "failed", 0, &model.ExecError{Message: "HttpTimeoutException: request timed out"}),
			model.KindWrite, model.OutcomeAmbiguous, `timed out: the email may have been sent`},
		// what a text says about the answer is about the answer: the request was carried
		{"the answer does not fit its schema", execWith(send, "failed", 0, &model.ExecError{Message: "Response does not match the expected schema"}),
			model.KindWrite, model.OutcomeAmbiguous, `the answer came back unreadable (response does not match): the email may have been sent`},
		{"the answer failed its validation", execWith(send, "failed", 0, &model.ExecError{Message: "Output validation failed: response mismatch"}),
			model.KindWrite, model.OutcomeAmbiguous, `the answer came back unreadable (response mismatch): the email may have been sent`},
		// what is missing or faulty may be the answer, not the request: the request was carried
		{"the answer is what is missing", execWith(send, "failed", 0, &model.ExecError{Message: "Response payload missing"}),
			model.KindWrite, model.OutcomeAmbiguous, `the answer came back unreadable (response payload missing): the email may have been sent`},
		{"a field missing from the answer", execWith(send, "failed", 0, &model.ExecError{Message: "Missing 'data' in response"}),
			model.KindWrite, model.OutcomeAmbiguous, `the answer came back unreadable (missing 'data' in response): the email may have been sent`},
		{"an answer that is not valid", execWith(send, "failed", 0, &model.ExecError{Message: "Response not valid JSON"}),
			model.KindWrite, model.OutcomeAmbiguous, `the answer came back unreadable (response not valid): the email may have been sent`},
		{"the data returned, not the request's", execWith(send, "failed", 0, &model.ExecError{Message: "The returned data must be a list"}),
			model.KindWrite, model.OutcomeAmbiguous, `the answer came back unreadable (returned data must be): the email may have been sent`},
		{"the answer not located", execWith(send, "failed", 0, &model.ExecError{Message: "Unable to locate the result of the call"}),
			model.KindWrite, model.OutcomeAmbiguous, `the answer came back unreadable (unable to locate the result): the email may have been sent`},
		{"a step after the send", execWith(send, "failed", 0, &model.ExecError{Message: "Could not find the message after sending"}),
			model.KindWrite, model.OutcomeAmbiguous, `the answer came back unreadable (after sending): the email may have been sent`},
		// a validator's words for a value of the wrong type or form refuse the request; "should be"
		// said of anything but the input is no validator's
		{"a schema's type refusal", execWith(send, "failed", 0, &model.ExecError{Message: "None is not of type 'string'"}),
			model.KindWrite, model.OutcomeFailed, `refused (is not of type) "None is not of type 'string'": the email was not sent`},
		{"a validator's expected type", execWith(send, "failed", 0, &model.ExecError{Message: `Expected string, received number at "to"`}),
			model.KindWrite, model.OutcomeFailed, `refused (expected string) "Expected string, received number at \"to\"": the email was not sent`},
		{"Pydantic's input constraint", execWith(send, "failed", 0, &model.ExecError{Message: "body.start_datetime: Input should be a valid datetime"}),
			model.KindWrite, model.OutcomeFailed,
			`refused (input should be) "body.start_datetime: Input should be a valid datetime": the email was not sent`},
		{"a format to match", execWith(send, "failed", 0, &model.ExecError{Message: `data/to must match format "email"`}),
			model.KindWrite, model.OutcomeFailed, `refused (must match) "data/to must match format \"email\"": the email was not sent`},
		{"should be said of the send", execWith(send, "failed", 0, &model.ExecError{Message: "Email should be sent within a minute"}),
			model.KindWrite, model.OutcomeAmbiguous,
			`failed "Email should be sent within a minute", an error that does not prove the email was not sent: the email may have been sent`},
		// a mail server's negative reply, with its enhanced code, refuses the message; a number
		// that only looks like one is a version
		{"a mail server's permanent refusal", execWith(send, "failed", 0, &model.ExecError{Message: "552 5.3.4 Message size exceeds fixed limit"}),
			model.KindWrite, model.OutcomeFailed, `refused (the mail server's 552 5.3.4) "552 5.3.4 Message size exceeds fixed limit": the email was not sent`},
		{"a mail server's refusal as Python's smtplib says it", execWith(send, "failed", 0,
			&model.ExecError{Message: "SMTPRecipientsRefused: {'dana@acme.test': (550, b'5.1.1 User unknown')}"}),
			model.KindWrite, model.OutcomeFailed,
			`refused (the mail server's 550 5.1.1) "SMTPRecipientsRefused: {'dana@acme.test': (550, b'5.1.1 Use…": the email was not sent`},
		{"a version is no mail server's code", execWith(send, "failed", 0, &model.ExecError{Message: "Plugin 5.1.1 failed to load the reply"}),
			model.KindWrite, model.OutcomeAmbiguous,
			`failed "Plugin 5.1.1 failed to load the reply", an error that does not prove the email was not sent: the email may have been sent`},
		// an open breaker or a full bulkhead never lets the call out; a breaker that trips on this
		// call's failure says the call went
		{"an open breaker", execWith(send, "failed", 0, &model.ExecError{Message: "CircuitBreaker 'gmail' is OPEN and does not permit further calls"}),
			model.KindWrite, model.OutcomeFailed,
			"connection was not attempted (an open circuit breaker or a full bulkhead), the request was never sent: the email was not sent"},
		{"an open breaker's wait is no timeout", execWith(send, "failed", 0, &model.ExecError{Message: "Timeout not elapsed yet, circuit breaker still open"}),
			model.KindWrite, model.OutcomeFailed,
			"connection was not attempted (an open circuit breaker or a full bulkhead), the request was never sent: the email was not sent"},
		{"a breaker tripped by this call", execWith(send, "failed", 0,
			&model.ExecError{Message: "pybreaker.CircuitBreakerError: Failures threshold reached, circuit breaker opened"}),
			model.KindWrite, model.OutcomeAmbiguous,
			`failed "pybreaker.CircuitBreakerError: Failures threshold reached, …", an error that does not prove the email was not sent: ` +
				"the email may have been sent"},
		// a refusal of a part leaves the rest done: unclear; words that none of it was done refuse
		// the whole
		{"a refusal of one recipient of three", execWith(send, "failed", 0,
			&model.ExecError{Message: "1 of 3 recipients rejected: lee@acme.test does not exist"}), model.KindWrite, model.OutcomeAmbiguous,
			`the error says it took effect, in whole or in part (1 of 3) "1 of 3 recipients rejected: lee@acme.test does not exist": the email may have been sent`},
		{"rows done beside rows refused", execWith("GOOGLESHEETS_BATCH_UPDATE", "failed", 0,
			&model.ExecError{Message: "3 rows inserted, 2 failed validation"}), model.KindWrite, model.OutcomeAmbiguous,
			`the error says it took effect, in whole or in part (3 rows inserted) "3 rows inserted, 2 failed validation": the action may have taken effect`},
		{"sent to the others", execWith(send, "failed", 0, &model.ExecError{Message: "Invalid recipient in cc; message sent to the others"}),
			model.KindWrite, model.OutcomeAmbiguous,
			`the error says it took effect, in whole or in part (sent to the others) "Invalid recipient in cc; message sent to the others": the email may have been sent`},
		{"none of it done", execWith("GOOGLESHEETS_BATCH_UPDATE", "failed", 0, &model.ExecError{Message: "No rows inserted: the sheet is protected"}),
			model.KindWrite, model.OutcomeFailed, `refused (no rows inserted) "No rows inserted: the sheet is protected": the action did not take effect`},
		{"a rate limit after part of a batch", execWith(send, "failed", 0, &model.ExecError{Message: "Rate limit exceeded after 40 of 100 messages"}),
			model.KindWrite, model.OutcomeAmbiguous,
			`the error says it took effect, in whole or in part (40 of 100) "Rate limit exceeded after 40 of 100 messages": the email may have been sent`},
		{"a part done, in German", execWith(send, "failed", 0, &model.ExecError{Message: "E-Mail gesendet, aber der Anhang ist ungültig"}),
			model.KindWrite, model.OutcomeAmbiguous,
			`the error says it took effect, in whole or in part (gesendet) "E-Mail gesendet, aber der Anhang ist ungültig": the email may have been sent`},
		{"a refusal the tool worked around", execWith(send, "failed", 0, &model.ExecError{Message: "Subject too long, truncated and sent"}),
			model.KindWrite, model.OutcomeAmbiguous,
			`the error says it took effect, in whole or in part (sent) "Subject too long, truncated and sent": the email may have been sent`},
		{"done in the active voice", execWith("GITHUB_CREATE_AN_ISSUE", "failed", 0,
			&model.ExecError{Message: "Created issue #42; invalid label 'bug' ignored"}), model.KindWrite, model.OutcomeAmbiguous,
			`the error says it took effect, in whole or in part (created) "Created issue #42; invalid label 'bug' ignored": ` +
				"the issue may have been created"},
		{"a success beside a refusal of a step after it", execWith("STRIPE_CREATE_CHARGE", "failed", 0,
			&model.ExecError{Message: "Charge succeeded; receipt email invalid"}), model.KindWrite, model.OutcomeAmbiguous,
			`the error says it took effect, in whole or in part (succeeded) "Charge succeeded; receipt email invalid": the charge may have been created`},
		{"the request's own data sent is no effect", execWith(send, "failed", 0, &model.ExecError{Message: "The value sent for 'to' is invalid"}),
			model.KindWrite, model.OutcomeFailed, `refused (invalid) "The value sent for 'to' is invalid": the email was not sent`},
		{"a field named for a success is no success", execWith(send, "failed", 0, &model.ExecError{Message: "success_url is invalid"}),
			model.KindWrite, model.OutcomeFailed, `refused (invalid) "success_url is invalid": the email was not sent`},
		{"a success status, then another call's refusal", execWith(send, "failed", 0,
			&model.ExecError{Message: "POST /v1/messages returned 200, then GET /v1/messages/123 returned 404"}), model.KindWrite,
			model.OutcomeAmbiguous, `the error says it took effect, in whole or in part (returned 200) "POST /v1/messages returned 200, ` +
				`then GET /v1/messages/123 r…": the email may have been sent`},
		// a failure said of a callback the platform makes after the write proves nothing of it; a
		// callback's own argument refused is the request's
		{"a callback after the write could not connect", execWith(send, "failed", 0,
			&model.ExecError{Message: "Failed to notify callback URL: connection refused"}), model.KindWrite, model.OutcomeAmbiguous,
			`the error is a callback's, made after the write (notify callback) "Failed to notify callback URL: connection refused": ` +
				"the email may have been sent"},
		{"a callback's address refused", execWith(send, "failed", 0, &model.ExecError{Message: "Webhook URL must use https"}),
			model.KindWrite, model.OutcomeFailed, `refused (must use) "Webhook URL must use https": the email was not sent`},
		{"must have supposes, it constrains nothing", execWith(send, "failed", 0, &model.ExecError{Message: "The provider must have failed"}),
			model.KindWrite, model.OutcomeAmbiguous,
			`failed "The provider must have failed", an error that does not prove the email was not sent: the email may have been sent`},
		// a thing named unknown, a target that cannot receive, access said as a need, a limit of
		// what the account holds; and their near misses: words of the same shape that prove nothing
		{"an unknown channel", execWith(send, "failed", 0, &model.ExecError{Message: "Unknown Channel"}),
			model.KindWrite, model.OutcomeFailed, `refused (unknown channel) "Unknown Channel": the email was not sent`},
		{"an unknown error proves nothing", execWith(send, "failed", 0, &model.ExecError{Message: "Unknown error occurred"}),
			model.KindWrite, model.OutcomeAmbiguous,
			`failed "Unknown error occurred", an error that does not prove the email was not sent: the email may have been sent`},
		{"an unknown file error is an error", execWith(send, "failed", 0, &model.ExecError{Message: "An unknown file error occurred"}),
			model.KindWrite, model.OutcomeAmbiguous,
			`failed "An unknown file error occurred", an error that does not prove the email was not sent: the email may have been sent`},
		{"a target that cannot receive", execWith(send, "failed", 0, &model.ExecError{Message: "cannot_dm_bot"}),
			model.KindWrite, model.OutcomeFailed, `refused (cannot dm bot) "cannot_dm_bot": the email was not sent`},
		{"a client's own bug reading a user proves nothing", execWith(send, "failed", 0,
			&model.ExecError{Message: "TypeError: Cannot read properties of undefined (reading 'user')"}), model.KindWrite, model.OutcomeAmbiguous,
			`failed "TypeError: Cannot read properties of undefined (reading 'us…", an error that does not prove the email was not sent: ` +
				"the email may have been sent"},
		{"access said as a need", execWith(send, "failed", 0, &model.ExecError{Message: "This action requires the 'chat:write' scope"}),
			model.KindWrite, model.OutcomeFailed,
			`refused (requires the 'chat:write' scope) "This action requires the 'chat:write' scope": the email was not sent`},
		{"a need of time is no access", execWith(send, "failed", 0, &model.ExecError{Message: "The provider requires more time to answer"}),
			model.KindWrite, model.OutcomeAmbiguous, `failed "The provider requires more time to answer", an error that does not prove the email ` +
				"was not sent: the email may have been sent"},
		{"storage is no rate", execWith(send, "failed", 0, &model.ExecError{Message: "Disk quota exceeded"}),
			model.KindWrite, model.OutcomeFailed, `refused (disk quota) "Disk quota exceeded": the email was not sent`},
		{"a validator's should", execWith(send, "failed", 0, &model.ExecError{Message: "data.title should be string"}),
			model.KindWrite, model.OutcomeFailed, `refused (should be string) "data.title should be string": the email was not sent`},
		{"a validator's expected and got", execWith(send, "failed", 0, &model.ExecError{Message: "expected a list of strings, got str"}),
			model.KindWrite, model.OutcomeFailed,
			`refused (expected a list of strings, got) "expected a list of strings, got str": the email was not sent`},
		{"advice worded with should", execWith(send, "failed", 0, &model.ExecError{Message: "This should be resolved shortly"}),
			model.KindWrite, model.OutcomeAmbiguous, `failed "This should be resolved shortly", an error that does not prove the email was not ` +
				`sent: the email may have been sent`},
		{"a state worded with should", execWith(send, "failed", 0, &model.ExecError{Message: "You should have received the invite"}),
			model.KindWrite, model.OutcomeAmbiguous, `failed "You should have received the invite", an error that does not prove the email ` +
				`was not sent: the email may have been sent`},
		{"a balance too low", execWith(send, "failed", 0, &model.ExecError{Message: "Your credit balance is too low to access the API."}),
			model.KindWrite, model.OutcomeFailed,
			`refused (balance is too low) "Your credit balance is too low to access the API.": the email was not sent`},
		{"a quota that sends the caller to its billing", execWith(send, "failed", 0,
			&model.ExecError{Message: "You exceeded your current quota, please check your plan and billing details."}),
			model.KindWrite, model.OutcomeFailed,
			`refused (billing details) "You exceeded your current quota, please check your plan and…": the email was not sent`},
		{"a billing service that failed", execWith(send, "failed", 0, &model.ExecError{Message: "Billing service unavailable"}),
			model.KindWrite, model.OutcomeAmbiguous, `503 from provider: the email may have been sent`},
		{"a write done, said in Japanese", execWith(send, "failed", 0, &model.ExecError{Message: "メッセージは送信されましたが、ラベルが見つかりません"}),
			model.KindWrite, model.OutcomeAmbiguous, `the error says it took effect, in whole or in part (送信されました) ` +
				`"メッセージは送信されましたが、ラベルが見つかりません": the email may have been sent`},
		{"a write not done, said in Japanese", execWith(send, "failed", 0, &model.ExecError{Message: "メッセージは送信されませんでした：宛先が無効です"}),
			model.KindWrite, model.OutcomeFailed, `refused (無効) "メッセージは送信されませんでした：宛先が無効です": the email was not sent`},
		{"a write done, said in Russian", execWith(send, "failed", 0, &model.ExecError{Message: "Сообщение отправлено, но метка не найдена"}),
			model.KindWrite, model.OutcomeAmbiguous, `the error says it took effect, in whole or in part (отправлено) ` +
				`"Сообщение отправлено, но метка не найдена": the email may have been sent`},
		{"a write not done, said in Russian", execWith(send, "failed", 0, &model.ExecError{Message: "Сообщение не отправлено: недопустимый адрес"}),
			model.KindWrite, model.OutcomeFailed, `refused (недопустим) "Сообщение не отправлено: недопустимый адрес": the email was not sent`},
		{"a Swedish negation after its verb", execWith(send, "failed", 0, &model.ExecError{Message: "Meddelandet har skickats inte till alla: ogiltig adress"}),
			model.KindWrite, model.OutcomeFailed, `refused (ogiltig) "Meddelandet har skickats inte till alla: ogiltig adress": the email was not sent`},
		{"a write done in a participle of another effect", execWith(send, "failed", 0,
			&model.ExecError{Message: "Pull request merged, but deleting the branch was forbidden"}), model.KindWrite, model.OutcomeAmbiguous,
			`the error says it took effect, in whole or in part (merged) "Pull request merged, but deleting the branch was forbidden": ` +
				`the email may have been sent`},
		{"a participle that names a target's state", execWith(send, "failed", 0,
			&model.ExecError{Message: "Invalid operation: a finalized invoice cannot be edited"}), model.KindWrite, model.OutcomeFailed,
			`refused (invalid) "Invalid operation: a finalized invoice cannot be edited": the email was not sent`},
		{"a status that says a rate limit", execWith(send, "RateLimited", 0, nil), model.KindWrite, model.OutcomeRejected,
			`rate limited (429): the email was likely not sent; verify before retrying`},
		{"a status that says a refusal", execWith(send, "permission_denied", 0, nil), model.KindWrite, model.OutcomeFailed,
			`refused (permission) "permission_denied": the email was not sent`},
		{"a status that says it was done", execWith(send, "message_sent", 0, nil), model.KindWrite, model.OutcomeSucceeded,
			`status "message_sent", which says it took effect`},
		{"a status that says it was done in part", execWith(send, "partially_sent", 0, nil), model.KindWrite, model.OutcomeAmbiguous,
			`status "partially_sent", which does not say whether it ran: the email may have been sent`},
		{"a status that says it was not sent", execWith(send, "not_sent", 0, nil), model.KindWrite, model.OutcomeFailed,
			`connection failed, the request was never sent: the email was not sent`},
		{"a status of a write still to be done", execWith(send, "queued", 0, nil), model.KindWrite, model.OutcomeAmbiguous,
			`status "queued", not a final one: the email may have been sent`},
		{"a status said of the execution itself", execWith(send, "expired", 0, nil), model.KindWrite, model.OutcomeAmbiguous,
			`status "expired", which does not say whether it ran: the email may have been sent`},
		{"an account not active", execWith(send, "failed", 0,
			&model.ExecError{Message: "ComposioClientError: Connected account is not active (status: INITIATED)"}), model.KindWrite,
			model.OutcomeFailed, `refused (not active) "ComposioClientError: Connected account is not active (statu…": ` +
				`the email was not sent`},
		{"a condition of the request not met", execWith(send, "failed", 0,
			&model.ExecError{Message: "ConditionalCheckFailedException: The conditional request failed"}), model.KindWrite,
			model.OutcomeFailed, `refused (conditional check failed) "ConditionalCheckFailedException: The conditional request fa…": ` +
				`the email was not sent`},
		{"a throughput limit (DynamoDB's)", execWith(send, "failed", 0,
			&model.ExecError{Message: "ProvisionedThroughputExceededException: The level of configured provisioned throughput was exceeded"}),
			model.KindWrite, model.OutcomeRejected, `rate limited (429): the email was likely not sent; verify before retrying`},
		{"a wait for a lock that ran out", execWith(send, "failed", 0,
			&model.ExecError{Message: "Lock wait timeout exceeded; try restarting transaction"}), model.KindWrite,
			model.OutcomeFailed, `refused (lock wait timeout) "Lock wait timeout exceeded; try restarting transaction": the email was not sent`},
		{"near miss: a timeout while the lock was held", execWith(send, "failed", 0,
			&model.ExecError{Message: "Timed out while holding the lock"}), model.KindWrite,
			model.OutcomeAmbiguous, `timed out: the email may have been sent`},
		{"near miss: a race condition", execWith(send, "failed", 0,
			&model.ExecError{Message: "race condition detected while sending"}), model.KindWrite,
			model.OutcomeAmbiguous, `failed "race condition detected while sending", an error that does not prove the email was not sent: ` +
				`the email may have been sent`},
		{"calls at once are a rate", execWith(send, "failed", 0, &model.ExecError{Message: "Too many concurrent requests"}),
			model.KindWrite, model.OutcomeRejected, `rate limited (429): the email was likely not sent; verify before retrying`},
		{"the answer's HTTP unreadable", execWith(send, "failed", 0,
			&model.ExecError{Message: "Parse Error: Invalid header value char (HPE_INVALID_HEADER_TOKEN)"}), model.KindWrite, model.OutcomeAmbiguous,
			`the answer came back unreadable (malformed HTTP): the email may have been sent`},
		{"advice is no account of what was done", execWith(send, "failed", 0,
			&model.ExecError{Message: "Channel not found. Ensure the bot has been added to the channel."}), model.KindWrite, model.OutcomeFailed,
			`refused (not found) "Channel not found. Ensure the bot has been added to the cha…": the email was not sent`},
		{"what was done, then advice", execWith(send, "failed", 0,
			&model.ExecError{Message: "Email sent. Please check that the label exists"}), model.KindWrite, model.OutcomeAmbiguous,
			`the error says it took effect, in whole or in part (sent) "Email sent. Please check that the label exists": the email may have been sent`},
		{"a refusal in Swedish", execWith(send, "failed", 0, &model.ExecError{Message: "Kanalen hittades inte"}),
			model.KindWrite, model.OutcomeFailed, `refused (hittades inte) "Kanalen hittades inte": the email was not sent`},
		{"a time limit in Turkish is no rate limit", execWith(send, "failed", 0, &model.ExecError{Message: "Süre sınırı aşıldı"}),
			model.KindWrite, model.OutcomeAmbiguous,
			`failed "Süre sınırı aşıldı", an error that does not prove the email was not sent: the email may have been sent`},
		{"a resolver's temporary failure, by its code", execWith(send, "failed", 0, &model.ExecError{Kind: "EAI_AGAIN"}),
			model.KindWrite, model.OutcomeFailed, `connection failed to resolve the host, the request was never sent: the email was not sent`},
		{"a conflict, by its kind", execWith(send, "failed", 0, &model.ExecError{Kind: "Conflict"}),
			model.KindWrite, model.OutcomeFailed, `refused (conflict) "Conflict": the email was not sent`},
		{"a value the request lacks, said as a state", execWith(send, "failed", 0, &model.ExecError{Message: "Recipient not specified"}),
			model.KindWrite, model.OutcomeFailed, `refused (not specified) "Recipient not specified": the email was not sent`},
		{"an empty answer is the answer's", execWith(send, "failed", 0, &model.ExecError{Message: "Response body is empty"}),
			model.KindWrite, model.OutcomeAmbiguous, `the answer came back unreadable (response body is empty): the email may have been sent`},
		{"a JSON key is no word said", execWith(send, "failed", 0, &model.ExecError{Message: `{"ok":false,"error":"channel_not_found"}`}),
			model.KindWrite, model.OutcomeFailed, `refused (not found) "channel_not_found": the email was not sent`},
		{"a JSON value still says it", execWith(send, "failed", 0, &model.ExecError{Message: `{"status":"sent","error":"label invalid"}`}),
			model.KindWrite, model.OutcomeAmbiguous,
			`the error says it took effect, in whole or in part (sent) "label invalid": the email may have been sent`},
		{"a Python dict's key is no word said", execWith(send, "failed", 0, &model.ExecError{Message: `{'ok': False, 'error': 'invalid_auth'}`}),
			model.KindWrite, model.OutcomeFailed, `refused (invalid) "{'ok': False, 'error': 'invalid_auth'}": the email was not sent`},
		{"a Python dict's value still says it", execWith(send, "failed", 0,
			&model.ExecError{Message: `{'status': 'sent', 'error': 'label invalid'}`}), model.KindWrite, model.OutcomeAmbiguous,
			`the error says it took effect, in whole or in part (sent) "{'status': 'sent', 'error': 'label invalid'}": the email may have been sent`},
		{"a frame's line number is no status", execWith(send, "failed", 0, &model.ExecError{Message: "AxiosError: Request failed with " +
			"status code 403\n    at settle (/app/node_modules/axios/lib/core/settle.js:19:12)\n    at IncomingMessage.handleStreamEnd " +
			"(/app/node_modules/axios/lib/adapters/http.js:599:11)"}), model.KindWrite, model.OutcomeFailed,
			`refused (403) "AxiosError: Request failed with status code 403 at settle (…": the email was not sent`},
		{"a runtime's crash is no refusal", execWith(send, "failed", 0,
			&model.ExecError{Message: "panic: runtime error: invalid memory address or nil pointer dereference"}), model.KindWrite,
			model.OutcomeAmbiguous, `the program crashed (invalid memory address) "panic: runtime error: invalid memory address or nil ` +
				`pointer…": the email may have been sent`},
		{"too many calls are a rate", execWith(send, "failed", 0, &model.ExecError{Message: "Too many API calls, please wait"}),
			model.KindWrite, model.OutcomeRejected, `rate limited (429): the email was likely not sent; verify before retrying`},
		{"too many recipients refuse the content", execWith(send, "failed", 0, &model.ExecError{Message: "Too many recipients"}),
			model.KindWrite, model.OutcomeFailed, `refused (too many) "Too many recipients": the email was not sent`},
		{"a warning beside the error is no account of it", execWith(send, "failed", 0, &model.ExecError{Message: `{"ok":false,` +
			`"error":"fatal_error","warning":"missing_charset","response_metadata":{"warnings":["missing_charset"]}}`}), model.KindWrite,
			model.OutcomeAmbiguous, `failed "fatal_error", an error that does not prove the email was not sent: the email may have been sent`},
		{"the error beside a warning is still read", execWith(send, "failed", 0, &model.ExecError{Message: `{"ok":false,` +
			`"error":"channel_not_found","warning":"missing_charset"}`}), model.KindWrite, model.OutcomeFailed,
			`refused (not found) "channel_not_found": the email was not sent`},
		{"a plan named beside a failure is no limit of it", execWith(send, "failed", 0,
			&model.ExecError{Message: "Something went wrong with your plan's webhook settings"}), model.KindWrite, model.OutcomeAmbiguous,
			`failed "Something went wrong with your plan's webhook settings", an error that does not prove the email was not sent: ` +
				"the email may have been sent"},
		{"none done, in French", execWith(send, "failed", 0, &model.ExecError{Message: "Message n'a pas été envoyé : destinataire invalide"}),
			model.KindWrite, model.OutcomeFailed, `refused (invalid) "Message n'a pas été envoyé : destinataire invalide": the email was not sent`},
		{"a clause placed before the send", execWith(send, "failed", 0, &model.ExecError{Message: "Validation failed before the message was sent"}),
			model.KindWrite, model.OutcomeFailed, `refused (validation) "Validation failed before the message was sent": the email was not sent`},
		{"a previous attempt's effect is no part of this one", execWith(send, "failed", 0,
			&model.ExecError{Message: "Duplicate message: this message was already sent"}), model.KindWrite, model.OutcomeFailed,
			`refused (duplicate) "Duplicate message: this message was already sent": the email was not sent`},
		{"an answer that says not found is still a refusal", execWith(send, "failed", 0, &model.ExecError{Message: "Error response: 404 Not Found"}),
			model.KindWrite, model.OutcomeFailed, `refused (not found) "Error response: 404 Not Found": the email was not sent`},
		{"a field named for the answer is the request's", execWith(send, "failed", 0, &model.ExecError{Message: "Missing required field 'response_text'"}),
			model.KindWrite, model.OutcomeFailed, `refused (required) "Missing required field 'response_text'": the email was not sent`},
		// a word that would prove a refusal proves it only as a word of its own, said of what the
		// request needs; inside another word, or said of the request's own time, it proves nothing
		{"a file named for a certificate", execWith(send, "failed", 0, &model.ExecError{Message: "Upload of certificate.pdf failed"}),
			model.KindWrite, model.OutcomeAmbiguous,
			`failed "Upload of certificate.pdf failed", an error that does not prove the email was not sent: the email may have been sent`},
		{"a resource not found is not a host not found", execWith(send, "failed", 0, &model.ExecError{Message: "Request_ResourceNotFound"}),
			model.KindWrite, model.OutcomeFailed, `refused (not found) "Request_ResourceNotFound": the email was not sent`},
		{"the request's own time expired", execWith(send, "failed", 0, &model.ExecError{Message: "execution expired"}),
			model.KindWrite, model.OutcomeAmbiguous, `timed out: the email may have been sent`},
		{"a token expired", execWith(send, "failed", 0, &model.ExecError{Message: "Access token expired"}),
			model.KindWrite, model.OutcomeFailed, `refused (expired) "Access token expired": the email was not sent`},
		{"no answer found", execWith(send, "failed", 0, &model.ExecError{Message: "Could not find a response for request req_8f2c"}),
			model.KindWrite, model.OutcomeAmbiguous, `the answer came back unreadable (could not find a response): the email may have been sent`},
		{"a need negated", execWith(send, "failed", 0, &model.ExecError{Message: "MailboxNotEnabledForRESTAPI"}),
			model.KindWrite, model.OutcomeFailed, `refused (not enabled) "MailboxNotEnabledForRESTAPI": the email was not sent`},
		// an error sent as a JSON body is quoted by its message, and read whole
		{"a JSON body's message quoted", execWith(send, "failed", 0, &model.ExecError{
			Message: `{"error":{"message":"Connected account not found","code":1803,"slug":"ConnectedAccount_NotFound","status":404}}`}),
			model.KindWrite, model.OutcomeFailed, `refused (not found) "Connected account not found": the email was not sent`},
		{"a framework's detail", execWith(send, "failed", 0, &model.ExecError{Message: `{"detail":"Not authenticated"}`}),
			model.KindWrite, model.OutcomeFailed, `refused (not authenticated) "Not authenticated": the email was not sent`},
		// a server's own failure names its own connections, not the request's
		{"a server's database it could not reach", execWith(send, "failed", 0, &model.ExecError{
			Message: "500 Internal Server Error: dial tcp 10.1.2.3:5432: connect: connection refused"}),
			model.KindWrite, model.OutcomeAmbiguous, `500 from provider: the email may have been sent`},
		{"a server's pool", execWith(send, "failed", 0, &model.ExecError{Message: "Internal server error: timed out waiting for a connection from the pool"}),
			model.KindWrite, model.OutcomeAmbiguous, `timed out: the email may have been sent`},
		// a text that says in words the request never left
		{"closed before the request was sent", execWith(send, "failed", 0, &model.ExecError{Message: "Connection closed before the request was sent"}),
			model.KindWrite, model.OutcomeFailed,
			`failed before the request was sent "Connection closed before the request was sent", the request was never sent: the email was not sent`},
		{"closed before the request completed", execWith(send, "failed", 0, &model.ExecError{Message: "Connection closed before the request completed"}),
			model.KindWrite, model.OutcomeAmbiguous, `connection dropped (connection closed): the email may have been sent`},
		{"waiting for a pooled connection", execWith(send, "failed", 0, &model.ExecError{Kind: model.ErrTimeout, Message: "net/http: request canceled while waiting for connection"}),
			model.KindWrite, model.OutcomeFailed,
			`failed waiting for a connection "net/http: request canceled while waiting for connection", the request was never sent: the email was not sent`},
		{"a TLS connection never established", execWith(send, "failed", 0, &model.ExecError{
			Message: "Client network socket disconnected before secure TLS connection was established"}), model.KindWrite, model.OutcomeFailed,
			`failed before its connection was established "Client network socket disconnected before secure TLS connec…", the request was never sent: the email was not sent`},
		{"a client's own name error says nothing of the send", execWith(send, "failed", 0, &model.ExecError{Message: "ReferenceError: fetch is not defined"}),
			model.KindWrite, model.OutcomeAmbiguous, `failed "ReferenceError: fetch is not defined", an error that does not prove the email was not sent: the email may have been sent`},
		{"a host lookup that failed", execWith(send, "failed", 0, &model.ExecError{Message: "SocketException: Failed host lookup: 'api.example.com'"}),
			model.KindWrite, model.OutcomeFailed, `connection failed to resolve the host, the request was never sent: the email was not sent`},
		{"curl's connect phase", execWith(send, "failed", 0, &model.ExecError{Message: "cURL error 28: Connection timed out after 10001 milliseconds"}),
			model.KindWrite, model.OutcomeFailed, `connection never opened (timed out while connecting) "cURL error 28: Connection timed out after 10001 milliseconds", the request was never sent: the email was not sent`},
		{"curl's transfer phase", execWith(send, "failed", 0, &model.ExecError{Message: "cURL error 28: Operation timed out after 30001 milliseconds with 0 bytes received"}),
			model.KindWrite, model.OutcomeAmbiguous, `timed out: the email may have been sent`},
		{"a dropped connection after the request went", execWith(send, "failed", 0, &model.ExecError{Message: "socket hang up"}), model.KindWrite, model.OutcomeAmbiguous,
			"connection dropped (socket hang up): the email may have been sent"},
		{"read timeout on an open connection", execWith(send, "failed", 0, &model.ExecError{Message: "read tcp 10.0.0.7:5122->10.0.0.5:443: i/o timeout"}), model.KindWrite, model.OutcomeAmbiguous,
			"timed out: the email may have been sent"},
		{"nginx's upstream timeout", execWith(send, "failed", 0, &model.ExecError{Message: "upstream timed out (110: Connection timed out) while reading response header from upstream"}), model.KindWrite, model.OutcomeAmbiguous,
			"timed out: the email may have been sent"},
		// an error kind in the log's own words is read as words are
		{"a kind in other words: a refusal", execWith(send, "failed", 0, &model.ExecError{Kind: "ValidationError"}), model.KindWrite, model.OutcomeFailed,
			`refused (validation) "ValidationError": the email was not sent`},
		{"a kind in other words: a rate limit", execWith(send, "failed", 0, &model.ExecError{Kind: "RATE_LIMIT"}), model.KindWrite, model.OutcomeRejected,
			"rate limited (429): the email was likely not sent; verify before retrying"},
		{"a kind in other words: an auth error", execWith(send, "failed", 0, &model.ExecError{Kind: "AuthenticationError", Message: "session could not continue"}), model.KindWrite, model.OutcomeFailed,
			`refused (authentication) "session could not continue": the email was not sent`},
		{"a kind in other words that names nothing", execWith(send, "failed", 0, &model.ExecError{Kind: "E42"}), model.KindWrite, model.OutcomeAmbiguous,
			`failed "E42", an error that does not prove the email was not sent: the email may have been sent`},
		// the same evidence gives a read the same outcome; its kind says what that asks of a person
		{"unknown failure of a read", execWith("GMAIL_FETCH_EMAILS", "failed", 0, &model.ExecError{Message: "Something odd"}), model.KindRead, model.OutcomeAmbiguous,
			`failed "Something odd", an error that does not say whether it ran: a read, safe to run again`},
		{"a read refused", execWith("GMAIL_FETCH_EMAILS", "failed", 0, &model.ExecError{HTTPStatus: 404, Message: "Not Found"}), model.KindRead, model.OutcomeFailed,
			`404 from provider "Not Found": a read`},
		{"failed with nothing recorded", execWith(send, "failed", 0, nil), model.KindWrite, model.OutcomeAmbiguous,
			"failed with no error recorded, which does not prove the email was not sent: the email may have been sent"},
		{"failed in another language, no word known", execWith(send, "failed", 0, &model.ExecError{Message: "发送失败"}), model.KindWrite, model.OutcomeAmbiguous,
			`failed "发送失败", an error that does not prove the email was not sent: the email may have been sent`},
		{"a timeout in German", execWith(send, "failed", 0, &model.ExecError{Message: "Zeitüberschreitung beim Senden der Anfrage"}), model.KindWrite, model.OutcomeAmbiguous,
			"timed out: the email may have been sent"},
		{"a timeout in Japanese", execWith(send, "failed", 0, &model.ExecError{Message: "リクエストがタイムアウトしました"}), model.KindWrite, model.OutcomeAmbiguous,
			"timed out: the email may have been sent"},
		{"a timeout in Russian", execWith(send, "failed", 0, &model.ExecError{Message: "Тайм-аут запроса"}), model.KindWrite, model.OutcomeAmbiguous,
			"timed out: the email may have been sent"},
		{"gRPC DEADLINE_EXCEEDED", execWith(send, "failed", 0, &model.ExecError{Message: "rpc error: code = DEADLINE_EXCEEDED desc = context deadline"}), model.KindWrite, model.OutcomeAmbiguous,
			"deadline exceeded: the email may have been sent"},
		{"gRPC UNAVAILABLE", execWith(send, "failed", 0, &model.ExecError{Message: "rpc error: code = Unavailable desc = transport is closing"}), model.KindWrite, model.OutcomeAmbiguous,
			"UNAVAILABLE from provider: the email may have been sent"},
		{"gRPC PERMISSION_DENIED", execWith(send, "failed", 0, &model.ExecError{Message: "PERMISSION_DENIED: caller lacks scope"}), model.KindWrite, model.OutcomeFailed,
			`refused (permission) "PERMISSION_DENIED: caller lacks scope": the email was not sent`},
		{"gRPC RESOURCE_EXHAUSTED", execWith(send, "failed", 0, &model.ExecError{Message: "RESOURCE_EXHAUSTED: quota"}), model.KindWrite, model.OutcomeRejected,
			"rate limited (429): the email was likely not sent; verify before retrying"},
		{"a provider's own rate-limit code", execWith(send, "failed", 0, &model.ExecError{Message: "SlowDown: Please reduce your request rate."}), model.KindWrite, model.OutcomeRejected,
			"rate limited (429): the email was likely not sent; verify before retrying"},
		{"a rate limit in German", execWith(send, "failed", 0, &model.ExecError{Message: "Zu viele Anfragen"}), model.KindWrite, model.OutcomeRejected,
			"rate limited (429): the email was likely not sent; verify before retrying"},
		{"a proxy's gateway timeout", execWith(send, "failed", 0, &model.ExecError{Message: "error code: 524"}), model.KindWrite, model.OutcomeAmbiguous,
			"524 from provider: the email may have been sent"},
		{"Envoy's reset", execWith(send, "failed", 0, &model.ExecError{Message: "upstream connect error or disconnect/reset before headers"}), model.KindWrite, model.OutcomeAmbiguous,
			"5xx from provider: the email may have been sent"},
		{"a provider's error code, not found", execWith("SLACK_SEND_MESSAGE", "failed", 0, &model.ExecError{Message: "channel_not_found"}), model.KindWrite, model.OutcomeFailed,
			`refused (not found) "channel_not_found": the message was not posted`},
		{"a refusal in German", execWith(send, "failed", 0, &model.ExecError{Message: "Ungültige E-Mail-Adresse"}), model.KindWrite, model.OutcomeFailed,
			`refused (ungültig) "Ungültige E-Mail-Adresse": the email was not sent`},
		{"a refusal in Chinese", execWith(send, "failed", 0, &model.ExecError{Message: "收件人地址无效"}), model.KindWrite, model.OutcomeFailed,
			`refused (无效) "收件人地址无效": the email was not sent`},
		{"an unreadable answer", execWith(send, "failed", 0, &model.ExecError{Message: "Unexpected token < in JSON at position 0"}), model.KindWrite, model.OutcomeAmbiguous,
			"the answer came back unreadable (unexpected token): the email may have been sent"},
		{"failed uses the log message when no error", &model.Execution{ToolSlug: send, Status: "failed", Message: "GMAIL_SEND_EMAIL failed: gateway timeout"}, model.KindWrite, model.OutcomeAmbiguous,
			"timed out: the email may have been sent"},
		{"a 499: the request closed before its answer", execWith(send, "failed", ms(30000), &model.ExecError{HTTPStatus: 499, Message: "client closed request"}),
			model.KindWrite, model.OutcomeAmbiguous, "499 from provider, the request closed before its answer after 30.0 s: the email may have been sent"},
		{"no terminal status", execWith(send, "", 0, nil), model.KindWrite, model.OutcomeAmbiguous,
			"no terminal status recorded: the email may have been sent"},
		{"running status", execWith("GMAIL_CREATE_EMAIL_DRAFT", "running", ms(5000), nil), model.KindWrite, model.OutcomeAmbiguous,
			`status "running", not a final one after 5.0 s: the email draft may have been created`},
		// a status that names what happened is read as a failure's text
		{"a timed-out status", execWith(send, "TIMED_OUT", ms(60000), nil), model.KindWrite, model.OutcomeAmbiguous,
			"timed out after 60.0 s: the email may have been sent"},
		{"a cancelled status", execWith(send, "cancelled", 0, nil), model.KindWrite, model.OutcomeAmbiguous,
			`status "cancelled", which does not say whether it ran: the email may have been sent`},
		{"a status still under way", execWith(send, "WAITING_FOR_APPROVAL", 0, nil), model.KindWrite, model.OutcomeAmbiguous,
			`status "WAITING_FOR_APPROVAL", not a final one: the email may have been sent`},
		{"done is a success", execWith(send, "done", ms(900), nil), model.KindWrite, model.OutcomeSucceeded, "succeeded in 0.9 s"},
		{"no status but an error", execWith(send, "", 0, &model.ExecError{Kind: model.ErrAuth}), model.KindWrite, model.OutcomeFailed,
			"auth error: the email was not sent"},
		{"read timeout", execWith("GMAIL_FETCH_EMAILS", "failed", ms(60000), &model.ExecError{Kind: model.ErrTimeout}), model.KindRead, model.OutcomeAmbiguous,
			"timed out after 60.0 s: a read, safe to run again"},
		{"unknown tool", execWith("ACME_FROB", "failed", 0, &model.ExecError{HTTPStatus: 503}), model.KindWrite, model.OutcomeAmbiguous,
			"503 from provider: the action may have taken effect"},
		{"success subject saying timeout is not an error", &model.Execution{ToolSlug: send, Status: "success", Message: "sent: re: timeout"}, model.KindWrite, model.OutcomeSucceeded,
			"succeeded"},
		{"label added", execWith("GMAIL_ADD_LABEL_TO_EMAIL", "failed", 0, &model.ExecError{HTTPStatus: 500}), model.KindIdempotentWrite, model.OutcomeAmbiguous,
			"500 from provider: the label may have been added"},
		{"linear issue drops the toolkit word", execWith("LINEAR_CREATE_LINEAR_ISSUE", "failed", 0, &model.ExecError{Kind: model.ErrTimeout}), model.KindWrite, model.OutcomeAmbiguous,
			"timed out: the issue may have been created"},
		{"slack real slug", execWith("SLACK_SENDS_A_MESSAGE_TO_A_CHANNEL", "failed", 0, &model.ExecError{HTTPStatus: 502}), model.KindWrite, model.OutcomeAmbiguous,
			"502 from provider: the message may have been posted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := Classify(tt.e, tt.kind, Options{})
			if got != tt.want {
				t.Errorf("outcome = %s, want %s (reason %q)", got, tt.want, reason)
			}
			if reason != tt.reason {
				t.Errorf("reason =\n  %q\nwant\n  %q", reason, tt.reason)
			}
		})
	}
}

func TestClassifyResponseUnsuccessful(t *testing.T) {
	resp, _ := json.Marshal(map[string]any{"data": map[string]any{}, "error": "Invalid To header", "successful": false})
	e := &model.Execution{ToolSlug: "GMAIL_SEND_EMAIL", Status: "success", Response: resp}
	got, reason := Classify(e, model.KindWrite, Options{})
	if got != model.OutcomeFailed || !strings.Contains(reason, "Invalid To header") {
		t.Errorf("200 with successful:false: got %s %q, want failed naming the tool's error", got, reason)
	}
	resp, _ = json.Marshal(map[string]any{"data": map[string]any{"id": "1"}, "error": nil, "successful": true})
	e = &model.Execution{ToolSlug: "GMAIL_SEND_EMAIL", Status: "success", Response: resp}
	if got, _ := Classify(e, model.KindWrite, Options{}); got != model.OutcomeSucceeded {
		t.Errorf("successful response: got %s", got)
	}
}

func TestClassifyCallerTimeoutOption(t *testing.T) {
	e := execWith("GMAIL_SEND_EMAIL", "success", 45*time.Second, nil)
	if got, _ := Classify(e, model.KindWrite, Options{}); got != model.OutcomeSucceeded {
		t.Errorf("45 s with the default 60 s timeout: %s", got)
	}
	got, reason := Classify(e, model.KindWrite, Options{CallerTimeout: 30 * time.Second})
	if got != model.OutcomeAmbiguous || !strings.Contains(reason, "past the caller's 30 s timeout") {
		t.Errorf("45 s with a 30 s timeout: %s %q", got, reason)
	}
	got, reason = Classify(e, model.KindWrite, Options{CallerTimeout: 2500 * time.Millisecond})
	if got != model.OutcomeAmbiguous || !strings.Contains(reason, "past the caller's 2.5 s timeout") {
		t.Errorf("fractional timeout: %s %q", got, reason)
	}
}

func TestFlaggedOnlyForWrites(t *testing.T) {
	mk := func(id, slug string, err *model.ExecError, status string) model.Execution {
		return model.Execution{ID: id, ToolSlug: slug, Status: status, Error: err, RetryCount: -1}
	}
	execs := []model.Execution{
		mk("w-amb", "GMAIL_SEND_EMAIL", &model.ExecError{Kind: model.ErrTimeout}, "failed"),
		mk("w-rej", "GMAIL_SEND_EMAIL", &model.ExecError{HTTPStatus: 429}, "failed"),
		mk("w-fail", "GMAIL_SEND_EMAIL", &model.ExecError{Kind: model.ErrAuth}, "failed"),
		mk("w-ok", "GMAIL_SEND_EMAIL", nil, "success"),
		mk("i-amb", "GMAIL_ADD_LABEL_TO_EMAIL", &model.ExecError{HTTPStatus: 503}, "failed"),
		mk("r-amb", "GMAIL_FETCH_EMAILS", &model.ExecError{Kind: model.ErrTimeout}, "failed"),
		mk("r-rej", "GMAIL_FETCH_EMAILS", &model.ExecError{HTTPStatus: 429}, "failed"),
	}
	k := NewKinds()
	k.Learn(model.Tool{Slug: "GMAIL_ADD_LABEL_TO_EMAIL", Tags: []string{"idempotentHint"}})
	res := Analyze(execs, k, Options{})
	want := map[string]bool{"w-amb": true, "w-rej": true, "i-amb": true}
	for i, tr := range res.Triage {
		if tr.Flagged != want[execs[i].ID] {
			t.Errorf("%s: flagged = %v, want %v (%s %s)", execs[i].ID, tr.Flagged, want[execs[i].ID], tr.Kind, tr.Outcome)
		}
	}
	if res.Flagged() != 3 {
		t.Errorf("Flagged() = %d", res.Flagged())
	}
}

func TestReasonNeverQuotesASecret(t *testing.T) {
	e := model.Execution{ID: "x", Status: model.StatusFailed, Error: &model.ExecError{
		Message: "Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789 timed out", Kind: model.ErrTimeout}}
	_, reason := Classify(&e, model.KindWrite, Options{})
	if strings.Contains(reason, "ghp_") {
		t.Fatalf("reason quotes the token: %s", reason)
	}
	if !strings.Contains(reason, "REDACTED") {
		t.Fatalf("reason lost the redaction marker: %s", reason)
	}
}

// TestFailureVocabulary: a log's failure is read in every spelling the platform and exports
// use, as its success is (mutant O02 narrowed the failure words to "failed" and survived).
func TestFailureVocabulary(t *testing.T) {
	for _, st := range []string{"failed", "FAILED", "failure", "fail", "error", "errored", " Error "} {
		e := &model.Execution{ToolSlug: "GMAIL_FETCH_EMAILS", Status: st}
		if o, reason := Classify(e, model.KindRead, Options{}); o != model.OutcomeAmbiguous || !strings.HasPrefix(reason, "failed with no error recorded") {
			t.Errorf("status %q: %s (%s), want a failure with no error, unclear", st, o, reason)
		}
		// a write's failure with nothing recorded is unclear, not a success nor "no status"
		e = &model.Execution{ToolSlug: "GMAIL_SEND_EMAIL", Status: st}
		if o, reason := Classify(e, model.KindWrite, Options{}); o != model.OutcomeAmbiguous || !strings.HasPrefix(reason, "failed with no error recorded") {
			t.Errorf("status %q of a write: %s (%s), want ambiguous, a failure with no error", st, o, reason)
		}
	}
	for _, st := range []string{"success", "succeeded", "successful", "ok", "completed", "complete"} {
		if !LogSucceeded(st) {
			t.Errorf("status %q does not read as success", st)
		}
	}
	if o, _ := Classify(&model.Execution{ToolSlug: "GMAIL_SEND_EMAIL", Status: "running"}, model.KindWrite, Options{}); o != model.OutcomeAmbiguous {
		t.Errorf("a status that is neither: %s, want ambiguous", o)
	}
}

// TestASessionExecutionThatRanNothing: result_type input_required or blocked means nothing ran:
// failed, never ambiguous, never flagged.
func TestASessionExecutionThatRanNothing(t *testing.T) {
	for _, rt := range []string{"input_required", "blocked"} {
		e := &model.Execution{ToolSlug: "GMAIL_SEND_EMAIL", Status: "failed", SessionID: "trs_1",
			Response: json.RawMessage(`{"data":{},"error":"x","successful":false,"result_type":"` + rt + `"}`),
			Error:    &model.ExecError{Message: "request timed out waiting for input"}}
		o, reason := Classify(e, model.KindWrite, Options{})
		if o != model.OutcomeFailed || !strings.Contains(reason, "nothing ran") || !strings.Contains(reason, rt) {
			t.Errorf("%s: %s %q", rt, o, reason)
		}
		if tr := Analyze([]model.Execution{*e}, NewKinds(), Options{}).Triage[0]; tr.Flagged {
			t.Errorf("%s is flagged", rt)
		}
	}
	e := &model.Execution{ToolSlug: "GMAIL_SEND_EMAIL", Status: "failed", Response: json.RawMessage(`{"result_type":"failed","error":"timed out"}`),
		Error: &model.ExecError{Kind: model.ErrTimeout}}
	if o, _ := Classify(e, model.KindWrite, Options{}); o != model.OutcomeAmbiguous {
		t.Errorf("a failed session execution that timed out: %s", o)
	}
}

// TestRecordsThatAreNotExecutions: a trigger delivery or an account event is shown with what it
// is, and is never a write: never flagged, never grouped, even when its slug reads like a write
// and it failed twice in a row.
func TestRecordsThatAreNotExecutions(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	mk := func(id string, d time.Duration) model.Execution {
		return model.Execution{ID: id, Type: model.TypeTriggerMessage, ToolSlug: "GMAIL_SEND_EMAIL", UserID: "u1", Status: "failed",
			Timestamp: at.Add(d), Arguments: json.RawMessage(`{"a":1}`), Detailed: true, Error: &model.ExecError{Kind: model.ErrTimeout}}
	}
	r := Analyze([]model.Execution{mk("log_1", 0), mk("log_2", time.Second)}, NewKinds(), Options{})
	for i, tr := range r.Triage {
		if tr.Flagged || tr.Kind != model.KindRead || tr.GroupID != "" || !strings.Contains(tr.Reason, "a trigger delivery (trigger.message)") {
			t.Errorf("record %d: %+v", i, tr)
		}
	}
	if len(r.Groups) != 0 {
		t.Errorf("trigger deliveries grouped as duplicate writes: %+v", r.Groups)
	}
}

// TestIdentifierWords: an identifier's joined words come apart (after a lower-case letter or
// a digit, and where an acronym meets a word); a text that joins none gives "".
func TestIdentifierWords(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Net::OpenTimeout", "Net::Open Timeout"},
		{"SignatureDoesNotMatch", "Signature Does Not Match"},
		{"HTTPConnectTimeoutException", "HTTP Connect Timeout Exception"},
		{"ComposioMultipleConnectedAccountsError", "Composio Multiple Connected Accounts Error"},
		{"utf8Error", "utf8 Error"},
		{"ETIMEDOUT", ""},
		{"connection refused", ""},
		{"Connection Refused", ""},
		{"请求超时", ""},
	} {
		if got := identifierWords(c.in); got != c.want {
			t.Errorf("identifierWords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestStackFramesAreNoAccount: a stack trace's frames say where the code ran; what happened is
// its exception's lines. A line that starts with "at" is a frame only with a place in it.
func TestStackFramesAreNoAccount(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Traceback (most recent call last):\n  File \"/app/auth/permissions.py\", line 31, in check\n    scopes = token['scopes']\nKeyError: 'scopes'",
			"KeyError: 'scopes'"},
		{"Error: boom\n    at validateRecipient (/app/src/validation.ts:42:11)\n    at /app/src/mail.js:10:3", "Error: boom"},
		{"java.lang.IllegalStateException: closed\n\tat com.acme.auth.Checker.check(Checker.java:42)\n\tat java.base/x.y(Native Method)\n\t... 12 more",
			"java.lang.IllegalStateException: closed"},
		{"panic: boom\n\ngoroutine 1 [running]:\nmain.send()\n\t/app/main.go:42 +0x1d", "panic: boom\n\nmain.send()"},
		{"NoMethodError: undefined method\n/app/app/controllers/unauthorized_controller.rb:12:in `create'", "NoMethodError: undefined method"},
		{"System.Exception: x\n   at Acme.Validation.Validator.Check() in /src/Validator.cs:line 42", "System.Exception: x"},
		{"Request failed:\nat least one recipient is invalid", "Request failed:\nat least one recipient is invalid"},
		{"Unauthorized at /v1/messages", "Unauthorized at /v1/messages"},
		{"TypeError: x\n    at new Mailer (/app/mail.js:3:9)\n    at async Promise.all (index 0)", "TypeError: x"},
	} {
		if got := withoutFrames(tt.in); got != tt.want {
			t.Errorf("withoutFrames(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzReadEvidence: any error text is read without a panic, the same way twice, and its frames
// are only left out: every line withoutFrames keeps is a line of the text.
func FuzzReadEvidence(f *testing.F) {
	for _, s := range []string{"Traceback (most recent call last):\n  File \"a.py\", line 1, in x\n    y()\nKeyError: 'k'",
		`{"ok":false,"error":"channel_not_found"}`, "{'status': 'sent'}", "'", "\"ok\"", "at x (y.js:1:2)\nat", "Unknown Channel",
		"Too many API calls", "A wait of 35 seconds is required", "Make sure it is shared. Email sent."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, b := readEvidence(s), readEvidence(s)
		if a != b {
			t.Fatalf("read twice, two answers: %+v / %+v", a, b)
		}
		lines := map[string]bool{}
		for l := range strings.SplitSeq(s, "\n") {
			lines[l] = true
		}
		kept := withoutFrames(s)
		for l := range strings.SplitSeq(kept, "\n") {
			if kept != "" && !lines[l] { // (a text of frames only says nothing: "")
				t.Fatalf("withoutFrames(%q) made a line %q", s, l)
			}
		}
	})
}

// TestOneReadingOfFramesOnBothPaths: a write's own answer (ClassifyAnswer) and a log's failure
// (Classify) read an error text without its stack frames alike: a frame's file named for a
// timeout is no timeout, so a 403 the provider answered stays a refusal on both.
func TestOneReadingOfFramesOnBothPaths(t *testing.T) {
	const text = "Forbidden: missing scope chat:write\n    at retryOnTimeout (/app/src/timeout.js:12:3)"
	if o, reason := ClassifyAnswer("SLACK_SEND_MESSAGE", model.KindWrite, 200, 403, text); o != model.OutcomeFailed {
		t.Errorf("the answer: %s (%s), want failed", o, reason)
	}
	e := execWith("SLACK_SEND_MESSAGE", "failed", 0, &model.ExecError{Message: text})
	if o, reason := Classify(e, model.KindWrite, Options{}); o != model.OutcomeFailed {
		t.Errorf("the log: %s (%s), want failed", o, reason)
	}
}

// TestAsidesAreNoAccount: an error's JSON body is read without the members beside its failure
// (warnings, metadata, identifiers, links, a suggested fix), at any depth, as it was written
// otherwise; a body with none, or any other text, is itself.
func TestAsidesAreNoAccount(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"ok":false,"error":"fatal_error","warning":"missing_charset"}`, `{"error":"fatal_error","ok":false}`},
		{`{"error":{"message":"<b>Bad Gateway</b>","request_id":"r1","suggested_fix":"Check the required fields"}}`,
			`{"error":{"message":"<b>Bad Gateway</b>"}}`},
		{`{"ok":false,"error":"channel_not_found"}`, `{"ok":false,"error":"channel_not_found"}`},
		{`Error: not JSON {"warning":"x"}`, `Error: not JSON {"warning":"x"}`},
	} {
		if got := withoutAsides(tt.in); got != tt.want {
			t.Errorf("withoutAsides(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
