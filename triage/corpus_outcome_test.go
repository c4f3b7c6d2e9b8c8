package triage_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// The outcome corpus: failures as other systems word them, written from what those systems print
// (servers, proxies, gRPC, providers, in many languages) before any rule read them, each family
// with the outcome its principle gives: a write's failure is definite only on evidence that
// nothing took effect (a refusal: validation, auth, not found, nothing connected); a rate limit is
// a refusal to verify; anything else (a timeout in any words, a gateway's page, a status no rule
// knows) leaves the write unclear. Reads fail the same ways and are never flagged.

type outcomeFamily struct {
	name string
	want model.Outcome
	// draw is one failure: the log's status, its error, how long it ran
	draw func(r *rand.Rand) (string, *model.ExecError, time.Duration)
}

func msg(texts ...string) func(r *rand.Rand) (string, *model.ExecError, time.Duration) {
	return func(r *rand.Rand) (string, *model.ExecError, time.Duration) {
		return "failed", &model.ExecError{Message: texts[r.IntN(len(texts))]}, time.Duration(200+r.IntN(60000)) * time.Millisecond
	}
}

func withStatus(codes []int, texts ...string) func(r *rand.Rand) (string, *model.ExecError, time.Duration) {
	return func(r *rand.Rand) (string, *model.ExecError, time.Duration) {
		e := &model.ExecError{HTTPStatus: codes[r.IntN(len(codes))]}
		if len(texts) > 0 && r.IntN(3) > 0 {
			e.Message = texts[r.IntN(len(texts))]
		}
		return "failed", e, time.Duration(100+r.IntN(30000)) * time.Millisecond
	}
}

// statuses is a log whose status is the only account: no error recorded.
func statuses(ss ...string) func(r *rand.Rand) (string, *model.ExecError, time.Duration) {
	return func(r *rand.Rand) (string, *model.ExecError, time.Duration) {
		return ss[r.IntN(len(ss))], nil, time.Duration(100+r.IntN(30000)) * time.Millisecond
	}
}

func kinds(ks ...string) func(r *rand.Rand) (string, *model.ExecError, time.Duration) {
	return func(r *rand.Rand) (string, *model.ExecError, time.Duration) {
		return "failed", &model.ExecError{Kind: model.ErrorKind(ks[r.IntN(len(ks))])}, time.Duration(100+r.IntN(60000)) * time.Millisecond
	}
}

// body is a log that says success and a response that says the call failed: the status is
// "success"; the error is nil and the response is put on the execution by the test.
func body(responses ...string) func(r *rand.Rand) (string, *model.ExecError, time.Duration) {
	return func(r *rand.Rand) (string, *model.ExecError, time.Duration) {
		return "success", &model.ExecError{Message: "\x00" + responses[r.IntN(len(responses))]}, time.Duration(100+r.IntN(5000)) * time.Millisecond
	}
}

func outcomeFamilies() []outcomeFamily {
	return []outcomeFamily{
		// unclear: the request may have been carried out
		{"a timeout in another language", model.OutcomeAmbiguous, msg(
			"Tempo scaduto per la richiesta", "Przekroczono limit czasu żądania", "İstek zaman aşımına uğradı",
			"Time-out van het verzoek", "Begäran tog för lång tid och avbröts", "요청 시간이 초과되었습니다",
			"Yêu cầu đã hết thời gian chờ", "Permintaan habis waktu", "انتهت مهلة الطلب", "תם הזמן הקצוב לבקשה",
			"Λήξη χρονικού ορίου αιτήματος", "Vypršel časový limit požadavku", "Час очікування запиту вичерпано",
			"अनुरोध का समय समाप्त हो गया", "คำขอหมดเวลา", "Tiempo de espera agotado", "Die Zeit für die Anfrage ist abgelaufen",
			"La requête a expiré", "A solicitação expirou", "Превышено время ожидания запроса", "请求超时", "要求がタイムアウトしました",
		)},
		{"a gRPC status that settles nothing", model.OutcomeAmbiguous, msg(
			"rpc error: code = DeadlineExceeded desc = context deadline exceeded",
			"rpc error: code = Unavailable desc = transport is closing",
			"14 UNAVAILABLE: Connection dropped",
			"4 DEADLINE_EXCEEDED: Deadline exceeded after 29.998s",
			"rpc error: code = Internal desc = stream terminated by RST_STREAM with error code: INTERNAL_ERROR",
			"rpc error: code = Unknown desc = unexpected EOF",
			"13 INTERNAL: Received RST_STREAM with code 2",
			"1 CANCELLED: Cancelled on client",
		)},
		{"a proxy's own page", model.OutcomeAmbiguous, msg(
			"<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1></center><hr><center>nginx</center></body></html>",
			"upstream request timeout",
			"upstream connect error or disconnect/reset before headers. reset reason: connection termination",
			"Error 524: A timeout occurred",
			`{"message": "Endpoint request timed out"}`,
			"at=error code=H12 desc=\"Request timeout\" method=POST path=\"/api/send\"",
			"Error 503 first byte timeout",
			"FUNCTION_INVOCATION_TIMEOUT",
			"<html><body><h1>502 Bad Gateway</h1>The server returned an invalid or incomplete response.</body></html>",
			"The server encountered a temporary error and could not complete your request. Please try again in 30 seconds.",
		)},
		{"words no rule knows", model.OutcomeAmbiguous, msg(
			"Something went wrong on our end", "Unexpected error occurred (ref: 8a1f22)", "Oops! Please try again later.",
			"unhandled exception in worker", "E_UNKNOWN", "Internal Server Error", "Es ist ein Fehler aufgetreten",
			"Une erreur inattendue s'est produite", "發生未預期的錯誤", "Ha ocurrido un error",
		)},
		{"a status that names no end", model.OutcomeAmbiguous, func(r *rand.Rand) (string, *model.ExecError, time.Duration) {
			return []string{"TIMEOUT", "timed_out", "CANCELLED", "aborted", "expired", "interrupted", "UNKNOWN", "lost"}[r.IntN(8)], nil,
				time.Duration(1000+r.IntN(60000)) * time.Millisecond
		}},
		{"an HTTP status that settles nothing", model.OutcomeAmbiguous, withStatus([]int{500, 502, 503, 504, 520, 522, 524, 598, 599, 499, 408})},
		// a refusal to verify
		{"a provider's rate limit in its own words", model.OutcomeRejected, msg(
			"ratelimited", "Rate limit exceeded", "RESOURCE_EXHAUSTED: Quota exceeded for quota metric 'Queries'",
			"8 RESOURCE_EXHAUSTED: Too many requests", "Too Many Requests", "リクエストが多すぎます", "Trop de requêtes",
			"API rate limit exceeded for installation ID 4412", "You have exceeded your rate limit. Try again in 20 seconds.",
			"Límite de solicitudes excedido",
		)},
		// definite: nothing took effect
		{"a refusal under its HTTP status", model.OutcomeFailed, withStatus([]int{400, 401, 403, 404, 422},
			"Validation Failed", "Bad credentials", "Resource not accessible by integration", "Not Found",
			"Invalid To header", "Parámetro inválido: channel", "Ungültige E-Mail-Adresse")},
		{"a provider's refusal code", model.OutcomeFailed, msg(
			"channel_not_found", "not_in_channel", "invalid_auth", "not_authed", "token_revoked", "missing_scope",
			"user_not_found", "invalid_arguments", "account_inactive", "is_archived",
		)},
		{"a gRPC refusal", model.OutcomeFailed, msg(
			"rpc error: code = InvalidArgument desc = recipient is required",
			"rpc error: code = PermissionDenied desc = caller lacks scope",
			"16 UNAUTHENTICATED: Request had invalid authentication credentials.",
			"5 NOT_FOUND: Requested entity was not found.",
			"3 INVALID_ARGUMENT: Invalid value at 'message.to'",
		)},
		// what client libraries raise, written after the families above had been scored
		{"a client library's timeout", model.OutcomeAmbiguous, msg(
			"ReadTimeout: HTTPSConnectionPool(host='backend.composio.dev', port=443): Read timed out. (read timeout=60)",
			"httpx.ReadTimeout: The read operation timed out", "AbortError: This operation was aborted",
			"TimeoutError: The operation was aborted due to timeout", "ESOCKETTIMEDOUT",
			"java.net.SocketTimeoutException: Read timed out",
			"net/http: request canceled (Client.Timeout exceeded while awaiting headers)", "asyncio.exceptions.TimeoutError",
			"ChunkedEncodingError: ('Connection broken: IncompleteRead(0 bytes read)', IncompleteRead(0 bytes read))",
			"RemoteDisconnected('Remote end closed connection without response')",
			"ProtocolError: ('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))",
		)},
		{"a client library's status error", model.OutcomeAmbiguous, msg(
			"Request failed with status code 503", "HTTPError: 502 Server Error: Bad Gateway for url: https://api.example.com/v1/send",
			"APIStatusError: Error code: 500", "InternalServerError: Error code: 529 - {'type': 'error', 'error': {'type': 'overloaded_error'}}",
			"AxiosError: Request failed with status code 504",
		)},
		{"a client library's refusal", model.OutcomeFailed, msg(
			"Request failed with status code 400", "HTTPError: 401 Client Error: Unauthorized for url: https://api.example.com/v1/send",
			"NotFoundError: Error code: 404 - {'error': {'message': 'Not found'}}", "422 Unprocessable Entity",
			"BadRequestError: Error code: 400 - {'error': {'message': 'Invalid recipient'}}",
			"AxiosError: Request failed with status code 403",
		)},
		{"a connection that never opened", model.OutcomeFailed, msg(
			"ConnectTimeout: HTTPSConnectionPool(host='api.example.com', port=443): Max retries exceeded with url: /v1/send (Caused by ConnectTimeoutError(<urllib3.connection.HTTPSConnection object at 0x7f>, 'Connection to api.example.com timed out. (connect timeout=10)'))",
			"connect ETIMEDOUT 10.0.0.5:443", "dial tcp 10.0.0.5:443: i/o timeout", "java.net.ConnectException: Connection timed out",
			"httpx.ConnectTimeout: timed out while connecting", "ConnectionRefusedError: [Errno 111] Connection refused",
			"[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate",
		)},
		// a third batch, written after the second was scored: an error kind in the log's own words
		// (no message), and a provider's 200 whose body says the call failed
		{"an error kind that names a timeout or a dropped call", model.OutcomeAmbiguous, kinds("ProviderTimeout", "TIMEOUT", "TimeoutError",
			"NetworkError", "UPSTREAM_ERROR", "GatewayTimeout", "ServiceUnavailable", "deadline_exceeded")},
		{"an error kind that names a refusal", model.OutcomeFailed, kinds("VALIDATION_ERROR", "ValidationError", "AUTH_ERROR",
			"Unauthorized", "NOT_FOUND", "InvalidArgument", "PermissionDenied", "BadRequest")},
		{"an error kind that names a rate limit", model.OutcomeRejected, kinds("RATE_LIMIT", "RateLimitError", "TooManyRequests",
			"THROTTLED", "QuotaExceeded")},
		{"a 200 whose body says it failed unclearly", model.OutcomeAmbiguous, body(`{"successful":false,"error":"Request timed out","data":{}}`,
			`{"successful":false,"error":"upstream connect error or disconnect/reset before headers","data":null}`,
			`{"successful":false,"error":"Unexpected error","data":{}}`, `{"successful":false,"data":{"status_code":502}}`)},
		{"a 200 whose body says it was refused", model.OutcomeFailed, body(`{"successful":false,"error":"channel_not_found","data":{}}`,
			`{"successful":false,"error":"Invalid To header","data":{"status_code":400}}`,
			`{"successful":false,"error":"Not Found","data":{"status_code":404}}`)},
		// a fourth batch, written after the third was scored: a connection dropped after the
		// request went, a request that never went, a client that cancelled, a server's words of
		// overload, a provider refusing the content
		{"a connection dropped after the request went", model.OutcomeAmbiguous, msg(
			"socket hang up", "read ECONNRESET", "write EPIPE", "SocketError: other side closed", "UND_ERR_SOCKET", "Premature close",
			"stream error: stream ID 3; INTERNAL_ERROR", "http2: server sent GOAWAY and closed the connection; LastStreamID=1999, ErrCode=NO_ERROR",
			"aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected", "urllib3.exceptions.ProtocolError: Response ended prematurely",
			"net::ERR_EMPTY_RESPONSE", "curl: (52) Empty reply from server", "curl: (56) Recv failure: Connection reset by peer",
			"java.io.IOException: unexpected end of stream on https://api.example.com/...", "hyper::Error(IncompleteMessage)",
			"Connection closed before full header was received", "The network connection was lost.",
		)},
		{"a request that never went", model.OutcomeFailed, msg(
			"NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno 111] Connection refused')",
			"curl: (7) Failed to connect to api.example.com port 443 after 3 ms: Couldn't connect to server",
			"curl: (6) Could not resolve host: api.example.com", "java.net.UnknownHostException: api.example.com",
			"System.Net.Http.HttpRequestException: No such host is known. (api.example.com:443)", "connect ENETUNREACH 10.0.0.5:443",
			"connect EHOSTUNREACH 10.0.0.5:443", "dial tcp 10.0.0.5:443: connect: network is unreachable", "net::ERR_NAME_NOT_RESOLVED",
			"net::ERR_CONNECTION_REFUSED", "Could not connect to the server.", "A server with the specified hostname could not be found.",
			"aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host api.example.com:443 ssl:default [Connection refused]",
			"ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: 407 Proxy Authentication Required'))",
			"[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)", "remote error: tls: handshake failure",
			"Hostname/IP does not match certificate's altnames: Host: api.example.com. is not in the cert's altnames",
			"certificate has expired",
		)},
		{"a client that cancelled", model.OutcomeAmbiguous, msg(
			"context canceled", "asyncio.exceptions.CancelledError", "System.OperationCanceledException: The operation was canceled.",
			"System.Threading.Tasks.TaskCanceledException: The request was canceled due to the configured HttpClient.Timeout of 100 seconds elapsing.",
			"Request aborted", "net::ERR_ABORTED", "cancelled",
		)},
		{"a server's words of overload", model.OutcomeAmbiguous, msg(
			"Service Unavailable", "The server is overloaded, please retry", "Backend unavailable", "The service is currently unavailable.",
			"Service Temporarily Unavailable", "Application Error", "Bad Gateway", "server busy", "upstream overloaded",
			"El servicio no está disponible temporalmente", "Dienst vorübergehend nicht verfügbar", "服务暂时不可用",
		)},
		{"a provider refusing the content", model.OutcomeFailed, msg(
			"Request Entity Too Large", "PayloadTooLargeError: request entity too large", "msg_too_long", "too_many_attachments",
			"invalid_blocks", "Message is too long", "Unsupported Media Type", "A resource with this name already exists",
			"Conflict: issue already exists", "duplicate_channel_name", "restricted_action", "cannot_dm_bot",
		)},
		// a fifth batch, written after the fourth was scored: the platform's own words, around a
		// provider's failure and for what it refused before running the tool
		{"the platform's wrapper around an unclear failure", model.OutcomeAmbiguous, msg(
			"Error executing action GMAIL_SEND_EMAIL: HTTPSConnectionPool(host='gmail.googleapis.com', port=443): Read timed out.",
			"Tool SLACK_SEND_MESSAGE execution failed: 503 Service Unavailable", "ComposioSDKTimeoutError: Request timed out after 60000ms",
			"Execution failed: upstream provider returned an error", "ActionExecutionError: the provider did not respond in time",
			"Tool execution failed with an internal error", "Error while executing tool: socket hang up",
		)},
		{"the platform's refusal before running the tool", model.OutcomeFailed, msg(
			"Connected account ca_8Jd2 is not active (status EXPIRED)", "No connected account found for user default and toolkit gmail",
			"ToolNotFoundError: Tool GMAIL_SEND_EMAL not found",
			"Invalid request data provided - Following fields are missing: {'recipient_email'}", "Insufficient credits",
			"Toolkit version is required: pass a version or dangerously skip the version check",
			"The connected account does not belong to this user",
		)},
		// a sixth batch, written after the fifth was scored: the SDK's and its API client's own
		// error names, other languages' HTTP clients, a provider's XML errors, rarer statuses
		{"the SDK's error names that settle nothing", model.OutcomeAmbiguous, msg(
			"APIConnectionError: Connection error.", "APIConnectionTimeoutError: Request timed out.",
			"InternalServerError: 502 Bad Gateway", "ComposioRequestCancelledError: The request was cancelled",
			"ComposioToolExecutionError: Error executing tool GMAIL_SEND_EMAIL: Request timed out",
			"ComposioError: fetch failed", "TypeError: fetch failed",
			"APIError: 500 {\"error\":{\"message\":\"Internal server error\"}}",
		)},
		{"the SDK's error names for a refusal", model.OutcomeFailed, msg(
			"ComposioToolNotFoundError: Tool GMAIL_SEND not found", "ComposioConnectedAccountNotFoundError: Connected account not found",
			"ComposioNoAPIKeyError: API key is required", "ComposioInvalidToolArgumentsError: Invalid tool arguments",
			"ComposioToolVersionRequiredError: Toolkit version not specified",
			"ComposioMultipleConnectedAccountsError: Multiple connected accounts found for user default",
			"AuthenticationError: 401 Invalid API key", "PermissionDeniedError: 403 Forbidden", "NotFoundError: 404 Tool not found",
			"BadRequestError: 400 {\"error\":{\"message\":\"Invalid request\"}}", "UnprocessableEntityError: 422 Unprocessable Entity",
			"ComposioFileNotFoundError: File not found: ./report.pdf",
		)},
		{"another language's client timed out after sending", model.OutcomeAmbiguous, msg(
			"Net::ReadTimeout with #<TCPSocket:(closed)>", "Faraday::TimeoutError: timeout",
			"cURL error 28: Operation timed out after 30001 milliseconds with 0 bytes received",
			"error sending request for url (https://api.example.com/v1/send): operation timed out",
			"java.net.http.HttpTimeoutException: request timed out", "%Mint.TransportError{reason: :timeout}",
			"TimeoutException after 0:00:30.000000: Future not completed", "java.io.InterruptedIOException: timeout",
			"read tcp 10.0.0.2:51234->10.0.0.5:443: read: connection reset by peer",
		)},
		{"another language's client never connected", model.OutcomeFailed, msg(
			"Errno::ECONNREFUSED: Failed to open TCP connection to api.example.com:443 (Connection refused - connect(2) for \"api.example.com\" port 443)",
			"Net::OpenTimeout: execution expired",
			"Faraday::ConnectionFailed: Failed to open TCP connection to api.example.com:443 (getaddrinfo: Name or service not known)",
			"cURL error 6: Could not resolve host: api.example.com", "cURL error 7: Failed to connect to api.example.com port 443: Connection refused",
			"cURL error 28: Connection timed out after 10001 milliseconds", "java.net.http.HttpConnectTimeoutException: HTTP connect timed out",
			"org.apache.http.conn.HttpHostConnectException: Connect to api.example.com:443 failed: Connection refused",
			"%Mint.TransportError{reason: :econnrefused}", "SocketException: Failed host lookup: 'api.example.com'",
			"SocketException: Connection refused (OS Error: Connection refused, errno = 111)",
		)},
		{"a provider's XML error that settles nothing", model.OutcomeAmbiguous, msg(
			"<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>",
			"<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>ServiceUnavailable</Code><Message>Service is unable to handle request.</Message></Error>",
			"<Error><Code>RequestTimeout</Code><Message>Your socket connection to the server was not read from or written to within the timeout period.</Message></Error>",
		)},
		{"a provider's XML rate limit", model.OutcomeRejected, msg(
			"<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>",
			"<ErrorResponse><Error><Code>Throttling</Code><Message>Rate exceeded</Message></Error></ErrorResponse>",
		)},
		{"a provider's XML refusal", model.OutcomeFailed, msg(
			"<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>",
			"<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>",
			"<Error><Code>InvalidArgument</Code><Message>Invalid argument.</Message></Error>",
			"<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error>",
		)},
		{"a refusal under a rarer status", model.OutcomeFailed, withStatus([]int{405, 406, 409, 410, 413, 415, 451})},
		{"nothing connected", model.OutcomeFailed, msg(
			"connect ECONNREFUSED 10.0.0.5:443", "dial tcp 10.0.0.5:443: connect: connection refused",
			"getaddrinfo ENOTFOUND api.example.com", "dial tcp: lookup api.example.com: no such host",
			"x509: certificate signed by unknown authority", "self signed certificate in certificate chain",
			"[Errno -2] Name or service not known",
		)},
		// seventh batch: what went missing was the answer (the request was carried: unclear),
		// and texts that say in words that the request never left (definite)
		{"the answer is what went missing", model.OutcomeAmbiguous, msg(
			"Response missing from upstream", "missing response body", "Response not found in provider reply",
			"result not found after execution", "No result returned by the tool", "Tool returned no output",
			"Error: reply not received from Gmail API", "output missing: the provider closed the stream",
			"Could not find a response for request req_8f2c", "The response could not be found",
			"Missing 'data' in response", "expected a response but got none", "no reply from the provider",
			"Unable to retrieve the result of the operation", "Response payload missing",
		)},
		{"the words say the request never left", model.OutcomeFailed, msg(
			"Connection closed before the request was sent", "socket closed before the connection was established",
			"Error: Client network socket disconnected before secure TLS connection was established",
			"net/http: request canceled while waiting for connection",
			"Request aborted before it was sent", "The request could not be sent: no network connection",
			"connection lost before the request could be written", "Failed to send request: connection not established",
			"Timed out waiting for a connection from the pool", "httpx.PoolTimeout",
		)},
		// eighth batch: a word that would prove a refusal inside another word or said of the
		// request's own time (unclear), and refusals in providers' own words (definite)
		{"a refusal's word where it proves nothing", model.OutcomeAmbiguous, msg(
			"Upload of certificate.pdf failed", "Failed while attaching certificate_of_insurance.pdf", "execution expired",
			"Operation expired before completion", "The wait for the provider expired", "Response too long to read",
			"Response too large: truncated at 10 MB", "renewal job for the SSL-free plan crashed", "Error in worker: task expired",
		)},
		{"a refusal in a provider's own words", model.OutcomeFailed, msg(
			"Mail service not enabled", "team_access_not_granted", "Property values were not valid",
			"The 'To' number +15005550001 is not a valid phone number.", "Could not find page with ID: 1234.",
			"Field 'summary' cannot be set. It is not on the appropriate screen, or unknown.", "Product handle has already been taken",
			"Your card was declined.", "Amount must be at least 50 cents", "MailboxNotEnabledForRESTAPI", "Email address is already in use",
			"Unable to locate the requested record", "Title can't be blank",
		)},
		// ninth batch: the write took effect and a step after it failed (unclear at best: never
		// "not sent"); refusals with their HTTP status in another language; timeouts said only by
		// their limit; a schema's or a model's validation, as validators print it; providers'
		// words for a credential that no longer works
		{"the write went and a step after it failed", model.OutcomeAmbiguous, msg(
			"Email sent, but applying the label 'Followed-up' failed", "Issue created but could not be added to project board 3",
			"Message posted; pinning it failed: not_pinnable", "Event created, however sending the invitations failed",
			"Contact saved. Error while enrolling in sequence 42", "Page created but the icon upload failed (413)",
			"The refund was issued but the confirmation email bounced", "Draft sent; failed to move thread to 'Done'",
		)},
		{"a refusal with its status in another language", model.OutcomeFailed, msg(
			"Erreur 400 : requête invalide", "HTTP-Fehler 401: Nicht autorisiert", "Error 403: acceso denegado",
			"Ошибка 404: ресурс не найден", "Erro 422: entidade não processável", "エラー 400: 不正なリクエスト",
			"错误 403：禁止访问", "Errore 404: risorsa non trovata",
		)},
		{"a timeout said only by its limit", model.OutcomeAmbiguous, msg(
			"deadline of 30s exceeded", "took longer than 30000ms", "exceeded the 60 second limit", "no response within 30 s",
			"waited 25s for a reply", "still running after 120 seconds", "Execution exceeded 300000 ms",
		)},
		{"a validator's refusal", model.OutcomeFailed, msg(
			"data/to must match format \"email\"", "'recipient_email' is a required property",
			"Additional properties are not allowed ('subjet' was unexpected)", "None is not of type 'string'",
			"instance.amount is not of a type(s) number",
			"1 validation error for SendEmailRequest\nrecipient_email\n  field required (type=value_error.missing)",
			"Expected string, received number at \"channel\"", "body.start_datetime: Input should be a valid datetime",
			"Invalid enum value. Expected 'public' | 'private', received 'team'",
		)},
		{"a credential that no longer works, in a provider's words", model.OutcomeFailed, msg(
			"invalid_grant: Token has been expired or revoked.", "Bad credentials", "invalid_auth", "not_authed", "account_inactive",
			"Unauthenticated.", "Request had insufficient authentication scopes.",
			"The access token provided is expired, revoked, malformed, or invalid for other reasons.",
			"AADSTS700082: The refresh token has expired due to inactivity.",
		)},
		// tenth batch: a mail server's replies (a refusal in its codes; a connection lost after the
		// message was handed over settles nothing), a circuit breaker or a bulkhead that never let
		// the call out, and a rate limit said only in a JSON body's own code
		{"a mail server's refusal", model.OutcomeFailed, msg(
			"550 5.1.1 The email account that you tried to reach does not exist.",
			"554 5.7.1 Message rejected: Email address is not verified.", "553 5.1.3 Invalid address",
			"552 5.3.4 Message size exceeds fixed limit", "530 5.7.0 Authentication Required",
			"SMTPRecipientsRefused: {'dana@acme.test': (550, b'5.1.1 User unknown')}",
		)},
		{"a mail server lost after the message was handed over", model.OutcomeAmbiguous, msg(
			"Connection closed after DATA before the 250 reply", "SMTP timeout waiting for the reply to end of data",
			"lost connection with mx.acme.test[203.0.113.5] while sending end of data -- message may be sent more than once",
			"SMTPServerDisconnected: Connection unexpectedly closed",
		)},
		{"a breaker or a bulkhead that never let the call out", model.OutcomeFailed, msg(
			"Circuit breaker is open for gmail.googleapis.com", "CircuitBreakerOpenException: CircuitBreaker 'slack' is OPEN and does not permit further calls",
			"Hystrix circuit short-circuited and is OPEN", "Breaker is open", "BulkheadFullException: Bulkhead 'crm' is full and does not permit further calls",
			"pybreaker.CircuitBreakerError: Timeout not elapsed yet, circuit breaker still open",
		)},
		{"a rate limit in a body's own code", model.OutcomeRejected, body(
			`{"successful":false,"error":"ratelimited","data":{"ok":false,"error":"ratelimited"}}`,
			`{"successful":false,"error":"{\"errors\":[{\"code\":88,\"message\":\"Rate limit exceeded\"}]}","data":{}}`,
			`{"successful":false,"error":"API rate limit exceeded for user ID 1.","data":{}}`,
			`{"successful":false,"error":"Quota exceeded for quota metric 'Queries' and limit 'Queries per minute'","data":{}}`,
		)},
		// eleventh batch: a refusal of a part of the write, the rest of which took effect
		// (unclear: the write happened in part, never "not sent"); and refusals that say nothing
		// took effect, beside them
		{"a refusal of a part, the rest done", model.OutcomeAmbiguous, msg(
			"1 of 3 recipients rejected: lee@acme.test does not exist", "Batch partially failed: rows 4 and 7 invalid",
			"Some recipients were rejected (invalid address)", "3 rows inserted, 2 failed validation",
			"Invalid recipient in cc; message sent to the others", "Request failed after the file was uploaded: invalid metadata",
			"2 of 5 events conflict with existing events; the others were created", "Partially applied: label 'urgent' not found",
		)},
		{"a refusal of the whole, beside them", model.OutcomeFailed, msg(
			"Message could not be sent: invalid recipient", "The email was not sent: recipient address rejected",
			"Duplicate message: this message was already sent", "No rows inserted: the sheet is protected",
			"Event not created: calendar not found", "0 of 3 recipients accepted: all addresses invalid",
		)},
		{"a part done, in the error's own order of events", model.OutcomeAmbiguous, msg(
			"Rate limit exceeded after 40 of 100 messages", "Permission denied writing the audit log; email queued",
			"Validation error: 'due_date' must be in the future. Task created without a due date.",
			"Message delivered to 2 of 3 recipients; 1 bounced: invalid address",
		)},
		{"a part done, in another language", model.OutcomeAmbiguous, msg(
			"E-Mail gesendet, aber der Anhang ist ungültig", "Correo enviado, pero la etiqueta no existe",
			"Message envoyé, mais le libellé est introuvable", "Mensagem enviada, mas o anexo é inválido",
			"Messaggio inviato, ma l'allegato non è valido",
		)},
		{"done said in any voice, beside a refusal of a step", model.OutcomeAmbiguous, msg(
			"Created issue #42; invalid label 'bug' ignored", "Sent the email, but the label 'done' does not exist",
			"Uploaded report.pdf; sharing failed: permission denied", "Success: message id 18c2f; warning: invalid header dropped",
			"Message id 18c2f returned, but the thread was not found", "The event exists now, but inviting bob@acme.test was forbidden",
			"Draft saved as r-1234 but send failed: invalid recipient", "Charge succeeded; receipt email invalid",
			"Completed with errors: 2 invalid rows skipped", "Done, but 1 invalid recipient was skipped",
			"POST /v1/messages returned 200, then GET /v1/messages/123 returned 404",
			"HTTP 201 from the provider, then 403 on the attachment upload",
		)},
		{"the callback made after the write failed", model.OutcomeAmbiguous, msg(
			"Callback to https://app.example/hook failed: 404 Not Found", "Webhook delivery failed (410 Gone)",
			"Failed to notify callback URL: connection refused", "Status callback returned 500",
			"Could not POST the result to the callback: ECONNREFUSED", "Notification webhook responded 401 Unauthorized",
		)},
		{"a callback refused before the write", model.OutcomeFailed, msg(
			"Invalid callback URL", "callback_url is required", "Webhook URL must use https", "The callback URL is not a valid URL",
		)},
		{"none of it done, in another language", model.OutcomeFailed, msg(
			"E-Mail nicht gesendet: Empfänger ungültig", "Correo no enviado: destinatario inválido",
			"Message non envoyé : destinataire invalide", "Mensagem não enviada: destinatário inválido",
			"Messaggio non inviato: destinatario non valido",
		)},
		// the twelfth batch, written before the rules read it
		{"the answer's protocol broken", model.OutcomeAmbiguous, msg(
			"Parse Error: Invalid header value char (HPE_INVALID_HEADER_TOKEN)", "Parse Error: Expected HTTP/ (HPE_INVALID_CONSTANT)",
			`net/http: HTTP/1.x transport connection broken: malformed HTTP response "\x00\x00"`, "http.client.BadStatusLine: ''",
			"h11._util.RemoteProtocolError: illegal status line: bytearray(b'garbage')",
			"httpx.RemoteProtocolError: Server disconnected without sending a response.",
			"The server committed a protocol violation. Section=ResponseStatusLine", "hyper::Error(Parse(Header(Token)))",
			"java.io.IOException: Invalid Http response", "Parse Error: Invalid character in chunk size (HPE_INVALID_CHUNK_SIZE)",
		)},
		{"a target gone or unwilling to receive", model.OutcomeFailed, msg(
			"ENTITY_IS_DELETED: entity is deleted", "Attempt to send to unsubscribed recipient", "Cannot send messages to this user",
			"Unknown Channel", "Unknown Member", "Unknown Message", "The recipient has opted out of messages from this sender",
			"This contact has unsubscribed", "Can't edit block that is archived. You must unarchive the block before editing.",
			"That message no longer exists", "The thread was deleted", "cannot_dm_bot",
		)},
		{"a limit of the account, not of the rate", model.OutcomeFailed, msg(
			"The user has exceeded their Gmail storage quota", "Mailbox full", "Insufficient storage",
			"Your Google Drive storage is full", "Disk quota exceeded", "Storage limit reached for this workspace",
			"Plan limit reached: upgrade to add more contacts", "You have reached the maximum number of projects on your plan",
		)},
		{"access the caller lacks, in the provider's words", model.OutcomeFailed, msg(
			"You need to have writer access to this calendar.", "Resource protected by organization SAML enforcement.",
			"This action requires the 'chat:write' scope", "Requires admin privileges",
			"Protected branch update failed for refs/heads/main.", "You must be a member of this workspace to post",
			"Only owners can invite members", "Write access to repository not granted.",
		)},
		{"a rate limit said of its usage or its concurrency", model.OutcomeRejected, msg(
			"Calendar usage limits exceeded.", "Too many concurrent requests", "Too many concurrent connections",
			"Usage limit exceeded for this API key", "You have exceeded your daily usage limit", "Concurrency limit exceeded",
			"Max concurrent requests reached", "Too many simultaneous requests",
		)},
		// the thirteenth batch, written before the rules read it: the languages the timeouts are
		// read in, for refusals and rate limits
		{"a refusal in the timeouts' other languages", model.OutcomeFailed, msg(
			"Ongeldig e-mailadres", "Kanaal niet gevonden", "Toegang geweigerd", "Nieprawidłowy adres e-mail", "Nie znaleziono kanału",
			"Odmowa dostępu", "Geçersiz e-posta adresi", "Kanal bulunamadı", "Erişim reddedildi", "Ogiltig e-postadress",
			"Kanalen hittades inte", "Åtkomst nekad", "Alamat email tidak valid", "Saluran tidak ditemukan", "Akses ditolak",
			"Địa chỉ email không hợp lệ", "Không tìm thấy kênh", "Truy cập bị từ chối", "Недійсна адреса електронної пошти",
			"Канал не знайдено", "Доступ заборонено", "Neplatná e-mailová adresa", "Kanál nebyl nalezen", "Přístup odepřen",
			"Μη έγκυρη διεύθυνση email", "Το κανάλι δεν βρέθηκε", "Δεν επιτρέπεται η πρόσβαση", "عنوان البريد الإلكتروني غير صالح",
			"لم يتم العثور على القناة", "تم رفض الوصول", "כתובת הדוא\"ל אינה חוקית", "הערוץ לא נמצא", "הגישה נדחתה",
			"अमान्य ईमेल पता", "चैनल नहीं मिला", "पहुंच अस्वीकृत", "ที่อยู่อีเมลไม่ถูกต้อง", "ไม่พบช่อง", "การเข้าถึงถูกปฏิเสธ",
		)},
		{"a rate limit in the timeouts' other languages", model.OutcomeRejected, msg(
			"För många förfrågningar", "Terlalu banyak permintaan", "Quá nhiều yêu cầu", "Забагато запитів", "Příliš mnoho požadavků",
			"Πάρα πολλά αιτήματα", "طلبات كثيرة جدًا", "יותר מדי בקשות", "बहुत अधिक अनुरोध", "คำขอมากเกินไป",
			"Limit żądań został przekroczony", "İstek sınırı aşıldı",
		)},
		// the fourteenth batch, written before the rules read it
		{"a value the request lacks, said as a state", model.OutcomeFailed, msg(
			"ApiKeyNotProvidedError: API Key not provided", "Recipient not specified", "Subject not provided",
			"The 'channel' argument is not set", "API key is not set", "Parameter 'to' is empty", "Body is empty",
			"to: field cannot be null", "Value for 'start_time' is in the past",
		)},
		{"a target locked, a content refused, a billing limit", model.OutcomeFailed, msg(
			"Spreadsheet is locked", "Resource is locked", "File is locked by another user", "Document is read-only",
			"Workspace is read only", "Billing hard limit reached", "Your message was flagged as spam", "Content violates policy",
			"Content policy violation", "You have run out of credits",
		)},
		// the fifteenth batch, written before the rules read it: providers' JSON error bodies as the
		// error's text
		{"a provider's JSON refusal as the error's text", model.OutcomeFailed, msg(
			`{"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED"}}`,
			`{"errors":[{"message":"Bad credentials"}]}`, `{"ok":false,"error":"channel_not_found"}`,
			`{"error":{"code":"ErrorItemNotFound","message":"The specified object was not found in the store."}}`,
			`{"error":{"type":"card_error","code":"card_declined","message":"Your card was declined."}}`,
			`{"code":21211,"message":"The 'To' number +15005550001 is not a valid phone number.","status":400}`,
			`{"status":"error","message":"Contact already exists. Existing ID: 901","category":"CONFLICT"}`,
			`{"object":"error","status":404,"code":"object_not_found","message":"Could not find page with ID: 2f1c."}`,
			`{"message":"Validation Failed","errors":[{"resource":"Issue","field":"title","code":"missing_field"}]}`,
			`{"error":{"code":400,"message":"Invalid value at 'message.raw'","status":"INVALID_ARGUMENT"}}`,
		)},
		{"a provider's JSON failure that settles nothing", model.OutcomeAmbiguous, msg(
			`{"error":{"code":503,"message":"The service is currently unavailable.","status":"UNAVAILABLE"}}`,
			`{"status":500,"message":"Internal error"}`, `{"error":"upstream timeout"}`,
			`{"error":{"code":500,"message":"Backend Error","status":"INTERNAL"}}`,
			`{"ok":false,"error":"fatal_error"}`, `{"errors":[{"message":"Something went wrong while executing your query."}]}`,
			`{"error":{"code":"ServiceNotAvailable","message":"Service unavailable, try again later"}}`,
			`{"message":"Endpoint request timed out"}`,
		)},
		{"a provider's JSON rate limit", model.OutcomeRejected, msg(
			`{"error":{"code":429,"message":"Quota exceeded for quota metric 'Queries'","status":"RESOURCE_EXHAUSTED"}}`,
			`{"ok":false,"error":"ratelimited"}`, `{"message":"API rate limit exceeded for user ID 1."}`,
			`{"error":{"code":"TooManyRequests","message":"Too many requests"}}`,
			`{"status":"error","message":"You have reached your secondly limit.","category":"RATE_LIMITS"}`,
		)},
		// the sixteenth batch, written before the rules read it: stack traces, whose frames name
		// where the code ran, and programs that crashed
		{"a crash whose stack frames name a refusal's word", model.OutcomeAmbiguous, msg(
			"Traceback (most recent call last):\n  File \"/app/auth/permissions.py\", line 31, in check_scope\n    scopes = token['scopes']\nKeyError: 'scopes'",
			"Error: something broke\n    at validateRecipient (/app/src/validation/recipients.ts:42:11)\n    at sendEmail (/app/src/mail.ts:10:3)",
			"java.lang.NullPointerException\n\tat com.acme.auth.PermissionChecker.check(PermissionChecker.java:42)\n\tat com.acme.mail.Sender.send(Sender.java:10)",
			"panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a2b3c]\ngoroutine 1 [running]:\nmain.send()\n\t/app/main.go:42 +0x1d",
			"NoMethodError: undefined method `[]' for nil:NilClass\n/app/app/controllers/unauthorized_controller.rb:12:in `create'",
			"System.NullReferenceException: Object reference not set to an instance of an object.\n   at Acme.Validation.Validator.Check() in /src/Validator.cs:line 42",
			"Segmentation fault (core dumped)", "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
			"RecursionError: maximum recursion depth exceeded", "java.lang.StackOverflowError",
		)},
		{"a refusal under its stack trace", model.OutcomeFailed, msg(
			"Traceback (most recent call last):\n  File \"/app/mail.py\", line 3, in send\n    r.raise_for_status()\nrequests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://gmail.googleapis.com/",
			"AxiosError: Request failed with status code 403\n    at settle (/app/node_modules/axios/lib/core/settle.js:19:12)\n    at IncomingMessage.handleStreamEnd (/app/node_modules/axios/lib/adapters/http.js:599:11)",
			"com.acme.ApiException: 404 Not Found: channel does not exist\n\tat com.acme.Client.post(Client.java:88)",
		)},
		// the seventeenth batch, written before the rules read it
		{"a rate limit in words the tables lacked", model.OutcomeRejected, msg(
			"FLOOD_WAIT_35", "A wait of 35 seconds is required (caused by SendMessageRequest)", "Too Many Attempts.",
			"Too many API calls, please wait", "You are sending messages too fast", "Rate exceeded", "Over query limit",
			"OVER_QUERY_LIMIT", "Request limit reached", "Too many queries",
		)},
		{"advice beside a refusal", model.OutcomeFailed, msg(
			"Could not find database with ID: 2f1c. Make sure the relevant pages and databases are shared with your integration.",
			"Channel not found. Ensure the bot has been added to the channel.",
			"Permission denied: check that the calendar is shared with the service account",
			"Spreadsheet not found; verify it has been created and shared with this account",
			"Not authorized. If the app was installed recently, reinstall it",
			"Invalid API key. Please make sure the key is enabled and try again",
		)},
		// the eighteenth batch, written before the rules read it: validators that say what a value
		// should be (Ajv's first wording, Notion's, Python's "expected ..., got ..."), a balance
		// too low to spend, and, beside them, advice and states worded with "should"
		{"a validator's should and expected", model.OutcomeFailed, msg(
			"body.parent.page_id should be defined, instead was `undefined`.", "data.title should be string",
			"data should have required property 'channel'", "data.attendees should NOT have fewer than 1 items",
			`data.to should match format "email"`, "title should not be empty",
			"The 'to' parameter should be a phone number in E.164 format", "start should be before end",
			"expected a list of strings, got str", "Expected an array of objects but got null",
			"due_date should be a date in YYYY-MM-DD format", "priority should be one of: low, medium, high",
			"amount should be greater than 0",
		)},
		{"a balance too low to spend", model.OutcomeFailed, msg(
			"Your credit balance is too low to access the API.", "balance too low",
			"You exceeded your current quota, please check your plan and billing details.", "Low balance: please top up your account",
			"Account balance is insufficient", "Your prepaid balance has run out", "Please add funds to continue",
		)},
		// the nineteenth batch, written before the rules read it: a write that took effect, in
		// whole or in part, said in the languages the refusals are read in and in participles the
		// table lacked, with a refusal of what followed; and beside it, the write said not done
		{"a part done, said in another language", model.OutcomeAmbiguous, msg(
			"メッセージは送信されましたが、ラベルが見つかりません", "消息已发送，但标签未找到", "訊息已發送，但找不到標籤",
			"메시지가 전송되었습니다. 라벨을 찾을 수 없습니다", "Сообщение отправлено, но метка не найдена",
			"Повідомлення надіслано, але мітку не знайдено", "Wiadomość wysłano, ale nie znaleziono etykiety",
			"Zpráva odeslána, štítek nenalezen", "Bericht verzonden, maar label niet gevonden", "Meddelandet har skickats men etiketten hittades inte",
			"Mesaj gönderildi ancak etiket bulunamadı", "Tin nhắn đã gửi nhưng không tìm thấy nhãn", "Pesan terkirim, tetapi label tidak ditemukan",
			"تم إرسال الرسالة ولكن لم يتم العثور على التصنيف", "ההודעה נשלחה אך התווית לא נמצאה", "Το μήνυμα στάλθηκε αλλά η ετικέτα δεν βρέθηκε",
			"संदेश भेजा गया, लेकिन लेबल नहीं मिला", "ส่งข้อความแล้ว แต่ไม่พบป้ายกำกับ",
		)},
		{"a write said done in participles the table lacked", model.OutcomeAmbiguous, msg(
			"Invoice 1001 was finalized but emailing it failed: invalid recipient", "Payment captured; receipt email rejected by the mail server",
			"Row appended. Formatting request failed: invalid range", "Order placed, but the confirmation SMS was rejected",
			"Refund processed; notification failed: invalid phone number", "Form submitted; attachment rejected (file too large)",
			"Pull request merged, but deleting the branch was forbidden", "Email forwarded; the label could not be found",
			"Funds transferred. Memo field invalid", "Webhook registered, but the test ping returned 401",
			"Invoice paid; receipt could not be generated: template not found", "Package shipped; tracking update denied",
		)},
		{"a write said not done, in another language", model.OutcomeFailed, msg(
			"メッセージは送信されませんでした：宛先が無効です", "消息未发送：收件人无效", "메시지가 전송되지 않았습니다: 잘못된 수신자",
			"Сообщение не отправлено: недопустимый адрес", "Wiadomość nie została wysłana: nieprawidłowy adres",
			"Bericht niet verzonden: ongeldig adres", "Mesaj gönderilmedi: geçersiz adres", "Tin nhắn chưa được gửi: địa chỉ không hợp lệ",
			"لم يتم إرسال الرسالة: العنوان غير صالح", "ההודעה לא נשלחה: כתובת לא חוקית", "संदेश नहीं भेजा गया: पता अमान्य है",
			"ส่งข้อความไม่สำเร็จ: ที่อยู่ไม่ถูกต้อง", "Το μήνυμα δεν στάλθηκε: μη έγκυρη διεύθυνση", "Meddelandet skickades inte: ogiltig adress",
			"Pesan tidak terkirim: alamat tidak valid", "Zpráva nebyla odeslána: neplatná adresa", "Повідомлення не надіслано: недійсна адреса",
		)},
		// a status in words: a rate limit, a refusal (the log's status is all it says)
		{"a status that says a rate limit", model.OutcomeRejected, statuses("rate_limited", "RATE_LIMITED", "throttled",
			"too_many_requests", "RateLimited")},
		{"a status that says a refusal", model.OutcomeFailed, statuses("unauthorized", "forbidden", "invalid_request", "not_found",
			"validation_failed", "permission_denied", "bad_request", "not_sent")},
		{"a status that says it was done", model.OutcomeSucceeded, statuses("sent", "delivered", "posted", "message_sent", "EMAIL_DELIVERED",
			"created")},
		{"a status that says it was not done, or in part", model.OutcomeAmbiguous, statuses("partially_sent", "partial_success",
			"undelivered", "bounced")},
		{"advice and states worded with should", model.OutcomeAmbiguous, msg(
			"This should be resolved shortly. Please try again.", "Your message should be delivered soon",
			"It should be a temporary problem", "You should have received the invite already",
			"The server should be back shortly", "Error contacting the billing service", "Billing service unavailable",
		)},
		// a twentieth batch: Composio recorded a success (successful:true) whose data is the
		// provider's own answer, a failure (a proxy passing the body through, a tool that returns
		// the provider's flag): Slack's ok:false, a success flag false, an error member, Google's
		// and GraphQL's error bodies, a status member of an error; errors beside results; beside
		// them successes whose data merely carries such members, empty or true, or deeper down
		{"a success whose data is the provider's refusal", model.OutcomeFailed, body(
			`{"successful":true,"error":null,"data":{"ok":false,"error":"channel_not_found","warning":"missing_charset"}}`,
			`{"successful":true,"data":{"ok":false,"error":"not_in_channel"},"error":null}`,
			`{"data":{"ok":false,"error":"invalid_auth"},"successful":true}`,
			`{"successful":true,"data":{"success":false,"message":"Invalid API key provided"}}`,
			`{"successful":true,"data":{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND"}}}`,
			`{"successful":true,"data":{"errors":[{"message":"Could not resolve to a Repository with the name 'acme/x'.","type":"NOT_FOUND"}],"data":null}}`,
			`{"successful":true,"data":{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}}`,
			`{"successful":true,"data":{"error":"Insufficient funds"}}`,
			`{"successful":true,"data":{"Success":false,"ErrorMessage":"Recipient address rejected: user unknown"}}`,
		)},
		{"a success whose data is the provider's failure, unclear", model.OutcomeAmbiguous, body(
			`{"successful":true,"data":{"ok":false,"error":"internal_error"}}`,
			`{"successful":true,"data":{"ok":false,"error":"request_timeout"}}`,
			`{"successful":true,"data":{"error":{"code":503,"message":"The service is currently unavailable.","status":"UNAVAILABLE"}}}`,
			`{"successful":true,"data":{"success":false,"message":"Upstream timed out"}}`,
			`{"successful":true,"data":{"ok":false}}`,
			`{"successful":true,"data":{"message":"Server Error","status":502}}`,
			`{"successful":true,"data":{"succeeded":false,"reason":"Something went wrong, please retry"}}`,
		)},
		{"a success whose data reports errors beside results", model.OutcomeAmbiguous, body(
			`{"successful":true,"data":{"status":"COMPLETE","results":[{"id":"101"}],"errors":[{"status":"error","category":"VALIDATION_ERROR",`+
				`"message":"Property values were not valid"}],"numErrors":1}}`,
			`{"successful":true,"data":{"id":"msg_8812","error":"attachment could not be added"}}`,
			`{"successful":true,"data":{"updatedRows":3,"errors":["row 4: invalid date"]}}`,
			`{"successful":true,"data":{"data":{"createIssue":{"id":"I_1"}},"errors":[{"message":"Field 'labels' is not valid"}]}}`,
		)},
		// a twenty-first batch: a request's own condition not met (a conditional write, an
		// If-Match, S3's and Azure's preconditions), and a wait for a lock that ran out before the
		// work began (Stripe's lock_timeout, MySQL's and Postgres's lock waits); beside them,
		// timeouts of work that had begun (a statement, a response read while a lock was held)
		{"a condition of the request not met", model.OutcomeFailed, msg(
			"ConditionalCheckFailedException: The conditional request failed",
			"PreconditionFailed: At least one of the pre-conditions you specified did not hold",
			"ConditionNotMet: The condition specified using HTTP conditional header(s) is not met.",
			"If-Match condition failed: the item's version has changed", "The conditional write was not applied: condition not met",
			"Precondition Failed (412): etag does not match",
		)},
		{"a wait for a lock that ran out", model.OutcomeFailed, msg(
			"lock_timeout: This object cannot be accessed right now because another API request or Stripe process is currently accessing it.",
			"Error 1205 (HY000): Lock wait timeout exceeded; try restarting transaction",
			"could not obtain lock on row in relation \"orders\"", "LockNotAvailable: the record is locked by another operation",
			"Timed out waiting for a lock on the document", "ERROR: lock timeout (SQLSTATE 55P03)",
		)},
		{"a timeout of work that had begun", model.OutcomeAmbiguous, msg(
			"canceling statement due to statement timeout", "Timed out while holding the lock on the document; the write may have completed",
			"Read timed out after the lock was acquired", "Timeout waiting for the response from the mail server",
			"The operation timed out after the conditional check passed",
		)},
		// a proxy's answer ({status, data, headers}: the provider's HTTP status relayed) recorded
		// as a success
		{"a proxy's answer relaying a refusal", model.OutcomeFailed, body(
			`{"status":404,"data":{"message":"Not Found","documentation_url":"https://docs.github.com/rest"},"headers":{}}`,
			`{"status":403,"data":{"error":{"code":403,"message":"Insufficient Permission"}},"headers":{"content-type":"application/json"}}`,
			`{"status":"422","data":{"message":"Validation Failed","errors":[{"code":"missing_field"}]},"headers":{}}`,
			`{"status":400,"data":"Bad Request","headers":{}}`,
		)},
		{"a proxy's answer relaying a failure that settles nothing", model.OutcomeAmbiguous, body(
			`{"status":502,"data":"<html><body>Bad Gateway</body></html>","headers":{}}`,
			`{"status":503,"data":{"message":"Service Unavailable"},"headers":{}}`,
			`{"status":504,"data":null,"headers":{}}`,
		)},
		{"a proxy's answer relaying a success", model.OutcomeSucceeded, body(
			`{"status":200,"data":{"ok":true,"ts":"1712345678.000100"},"headers":{}}`,
			`{"status":201,"data":{"id":42,"state":"open"},"headers":{}}`,
			`{"status":204,"data":null,"headers":{}}`,
		)},
		{"a success whose data names errors and flags, none failing", model.OutcomeSucceeded, body(
			`{"successful":true,"data":{"ok":true,"channel":"C123","ts":"1712345678.000100"}}`,
			`{"successful":true,"data":{"id":"m1","error":null,"errors":[]}}`,
			`{"successful":true,"data":{"success":true,"letter_id":"178","error":""}}`,
			`{"successful":true,"data":{"draft":false,"locked":false,"number":42,"state":"open"}}`,
			`{"successful":true,"data":{"messages":[{"ok":false,"error":"x"}],"ok":true}}`,
			`{"successful":true,"data":{"response_data":{"id":"18c2","labelIds":["SENT"]},"error_count":0}}`,
			`{"successful":true,"data":{"status":200,"message":"Created"}}`,
			`{"successful":true,"error":null,"data":{"success":true,"response_dict":{"errors":["none"]}}}`,
		)},
	}
}

// TestOutcomeCorpus: every family drawn on writes and reads; flag recall and precision, the
// outcome, and reads flagged, per family and in all (the targets of issue 40).
func TestOutcomeCorpus(t *testing.T) {
	writes := []string{"GMAIL_SEND_EMAIL", "SLACK_SEND_MESSAGE", "GITHUB_CREATE_AN_ISSUE", "HUBSPOT_CREATE_CONTACT",
		"GOOGLECALENDAR_CREATE_EVENT", "NOTION_CREATE_PAGE"}
	reads := []string{"GMAIL_FETCH_EMAILS", "SLACK_LIST_ALL_CHANNELS", "GITHUB_GET_A_REPOSITORY", "HUBSPOT_SEARCH_CONTACTS"}
	r := rand.New(rand.NewPCG(40, 46))
	var execs []model.Execution
	want := map[string]model.Outcome{}
	famOf := map[string]string{}
	read := map[string]bool{}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, fam := range outcomeFamilies() {
		for i := range 120 {
			status, err, d := fam.draw(r)
			slug := writes[r.IntN(len(writes))]
			if i%4 == 3 {
				slug = reads[r.IntN(len(reads))]
			}
			id := fmt.Sprintf("log_o%05d", len(execs))
			e := model.Execution{ID: id, ToolSlug: slug, Status: status, Error: err, RetryCount: -1,
				UserID: fmt.Sprintf("user_%d", len(execs)), StartTime: at, Timestamp: at, Arguments: fmt.Appendf(nil, `{"n":%d}`, len(execs))}
			if r.IntN(2) == 0 {
				e.Duration, e.HasDuration = d, true
			}
			if err != nil && strings.HasPrefix(err.Message, "\x00") { // body: the response says it
				e.Response, e.Error = []byte(err.Message[1:]), nil
			}
			at = at.Add(time.Minute)
			execs = append(execs, e)
			want[id], famOf[id], read[id] = fam.want, fam.name, i%4 == 3
		}
	}
	res := triage.Analyze(execs, triage.NewKinds(), triage.Options{})
	type score struct{ n, right, flagWant, flagGot, flagRight, readsFlagged int }
	per := map[string]*score{}
	all := &score{}
	for i, tr := range res.Triage {
		e := execs[i]
		s := per[famOf[e.ID]]
		if s == nil {
			s = &score{}
			per[famOf[e.ID]] = s
		}
		flagWant := !read[e.ID] && want[e.ID] != model.OutcomeFailed && want[e.ID] != model.OutcomeSucceeded
		for _, x := range []*score{s, all} {
			x.n++
			if tr.Outcome == want[e.ID] {
				x.right++
			}
			if flagWant {
				x.flagWant++
			}
			if tr.Flagged {
				x.flagGot++
				if flagWant {
					x.flagRight++
				}
				if read[e.ID] {
					x.readsFlagged++
				}
			}
		}
		if tr.Outcome != want[e.ID] && testing.Verbose() {
			t.Logf("%s: %s %q on %s: %s (%s), want %s", famOf[e.ID], e.Status, errText(e.Error), e.ToolSlug, tr.Outcome, tr.Reason, want[e.ID])
		}
	}
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 1
		}
		return float64(a) / float64(b)
	}
	names := make([]string, 0, len(per))
	for n := range per {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := per[n]
		t.Logf("family %-44s outcome %.3f  flags %d/%d wanted, %d given, reads flagged %d", n, ratio(s.right, s.n), s.flagRight, s.flagWant, s.flagGot, s.readsFlagged)
	}
	recall, precision, outcome := ratio(all.flagRight, all.flagWant), ratio(all.flagRight, all.flagGot), ratio(all.right, all.n)
	t.Logf("all: %d executions; flag recall %.3f, precision %.3f; outcome %.3f; reads flagged %d", all.n, recall, precision, outcome, all.readsFlagged)
	if recall < 0.99 || precision < 0.95 || outcome < 0.97 || all.readsFlagged > 0 {
		t.Errorf("below the targets (flag recall >= 0.99, precision >= 0.95, outcome >= 0.97, no read flagged)")
	}
}

func errText(e *model.ExecError) string {
	if e == nil {
		return ""
	}
	return fmt.Sprintf("%d %s", e.HTTPStatus, e.Message)
}
