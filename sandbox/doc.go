// Package sandbox is an embedded, Composio-compatible HTTP server for demos, tests and
// reproducing ambiguous writes with a real SDK. It serves the tools, execute, proxy, logs and
// connected-accounts endpoints of docs/platform.md (under /api/v3.1 and /api/v3) over simulated
// Gmail, Slack, GitHub and HubSpot providers that keep state, so a write leaves an object that
// a read tool can find; it starts from a deterministic seeded history (thousands of executions
// over days: ordinary traffic, SDK auto-retry bursts, application retries, double submits,
// committed and uncommitted timeouts, 429 bursts, 5xx, validation and auth failures) whose
// ground truth is known (Truth, Effects); and it injects faults per tool (Config.Faults,
// ArmFault or POST /_sandbox/faults) to make a client see a timeout, a 5xx, a 429 or a dropped
// connection while the action did or did not happen.
//
// # Faults
//
// A fault applies to an execution that passed the platform's checks (API key, JSON, tool,
// connected account, arguments); the log record always says what the platform saw:
//
//	mode                        effect  client sees                          log record
//	timeout_after_commit        yes     no answer: held, then closed         success, duration = time held
//	timeout_before_commit       no      no answer: held, then closed         failed, error.kind timeout
//	5xx_after_commit            yes     502 (or http_status) error body      failed, kind upstream_5xx, http_status 502
//	5xx_before_commit           no      503 (or http_status) error body      failed, kind upstream_5xx, http_status 503
//	429                         no      429 error body, retry-after: 1       failed, kind rate_limited, http_status 429
//	drop_connection_after_read  no      body read, connection closed         failed, kind connection
//	latency                     yes     normal answer after latency_ms (1 s)  as normal, longer duration
//	200_failure_after_commit    yes     200 successful:false, provider timeout failed, kind timeout
//	200_provider_error          no      200 successful:true, data ok:false     success, data the provider's refusal
//
// "Held" lasts latency_ms when given, else Config.HoldTimeout, or until the client goes away
// or the server closes. Every request to tools/execute/* counts in ExecuteCount and
// GET /_sandbox/stats; GET /_sandbox/effects lists committed effects (filters request_id,
// tool_slug, log_id, connected_account_id); GET /_sandbox/truth the generated truth.
//
// # Webhooks
//
// POST /api/v3.1/webhook_endpoints {"url"} registers a handler on this machine (webhook.go);
// POST /_sandbox/triggers/fire {"user_id", "connected_account_id", "trigger_slug", "payload"}
// delivers an event to every handler with the platform's headers (webhook-id, webhook-timestamp,
// webhook-signature, x-composio-webhook-version, x-composio-delivery-attempt) and delivers it
// again after a non-2xx answer or none within Config.WebhookTimeout, up to
// Config.MaxDeliveryAttempts; each delivery is a trigger.message record in the logs.
//
// # Read tools a verifier can use
//
// Every write tool has a read tool on the same connected account that shows its effect:
//
//	GMAIL_SEND_EMAIL → GMAIL_FETCH_EMAILS
//	    arguments: query `in:sent to:ADDR subject:"S" after:EPOCH`
//	    the effect is there when: data.messages[] has to/subject (messageId, threadId, messageTimestamp)
//	GMAIL_REPLY_TO_THREAD → GMAIL_FETCH_MESSAGE_BY_THREAD_ID
//	    arguments: thread_id
//	    the effect is there when: data.messages[] has a SENT message with messageText = message_body
//	GMAIL_CREATE_EMAIL_DRAFT → GMAIL_LIST_DRAFTS
//	    arguments: max_results (verbose true)
//	    the effect is there when: data.drafts[].message has to/subject/body
//	GMAIL_ADD_LABEL_TO_EMAIL → GMAIL_FETCH_MESSAGE_BY_MESSAGE_ID
//	    arguments: message_id
//	    the effect is there when: data.labelIds contains every add_label_ids
//	GMAIL_DELETE_MESSAGE → GMAIL_FETCH_MESSAGE_BY_MESSAGE_ID
//	    arguments: message_id
//	    the effect is there when: the read fails: successful false, error "Requested entity was not found"
//	SLACK_SEND_MESSAGE → SLACK_FETCH_CONVERSATION_HISTORY
//	    arguments: channel, oldest/latest (ts or epoch seconds)
//	    the effect is there when: data.messages[].text = text (or markdown_text); ts
//	GITHUB_CREATE_AN_ISSUE → GITHUB_LIST_REPOSITORY_ISSUES
//	    arguments: owner, repo, state "all", since (ISO 8601)
//	    the effect is there when: data.issues[] has title/body; number, created_at
//	GITHUB_CREATE_AN_ISSUE_COMMENT → GITHUB_LIST_ISSUE_COMMENTS
//	    arguments: owner, repo, issue_number, since
//	    the effect is there when: data.comments[].body = body; id, created_at
//	HUBSPOT_CREATE_CONTACT → HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA
//	    arguments: filterGroups (email EQ) or query
//	    the effect is there when: data.results[].properties.email; id, createdAt
//
// GMAIL_FETCH_EMAILS understands to:, from:, cc:, bcc:, subject: (quoted phrases),
// label:, in:sent|inbox|anywhere, is:unread|read, after:/before: (epoch seconds or YYYY/MM/DD),
// newer_than:/older_than: (h d m y), -negation and plain words; it returns newest first,
// max_results 10 by default. HUBSPOT_CREATE_CONTACT refuses an existing email with 409, as
// HubSpot does, so a duplicate create fails instead of taking effect.
//
// # Proxy
//
// POST /tools/execute/proxy maps these provider endpoints onto the tools above (same effect,
// log, faults; a rule's tool_slug may also be "proxy"): Gmail GET/POST
// /gmail/v1/users/me/messages[/send|/{id}] (send takes {raw} or {to, subject, body}), DELETE
// .../messages/{id}; Slack /chat.postMessage and /conversations.history; GitHub
// /repos/{o}/{r}/issues and /repos/{o}/{r}/issues/{n}/comments; HubSpot POST
// /crm/v3/objects/contacts and /crm/v3/objects/contacts/search. Other endpoints answer status
// 404 and are not logged.
//
// # Accounts and callers
//
// An execution names a connected account, or a user_id whose account for the toolkit is
// used; an unknown user gets an ACTIVE account on the spot so an SDK can run with any user id.
// A non-ACTIVE account is refused (400) and logged as an auth failure. The headers a real SDK
// sends are recorded: x-request-id (context.request_id), x-source (source.language; host
// "sdk", else "api"), x-sdk-version (metadata.sdk_version), x-framework (source.framework),
// x-stainless-retry-count (metadata.retry_count), and x-session-id (context.session_id, a
// sandbox extension).
package sandbox
