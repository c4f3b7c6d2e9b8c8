package model

import "net/http"

// ProvesNoEffect reports whether an HTTP status, answered to a write by Composio or by the
// provider behind it, proves that the action did not run: the request was refused as a whole
// before anything was done (malformed, unauthenticated, forbidden, not found, gone, too large,
// unprocessable). Every other status leaves the outcome open: 3xx (a redirect is not followed,
// and 303 says the request was processed), 408, 409 (a conflict may be with the effect itself),
// 412, 423, 425, other 4xx, and every 5xx. 429 is a refusal too, but it has its own outcome
// (rejected).
func ProvesNoEffect(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusPaymentRequired, http.StatusForbidden,
		http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotAcceptable, http.StatusGone,
		http.StatusLengthRequired, http.StatusRequestEntityTooLarge, http.StatusRequestURITooLong,
		http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity, http.StatusRequestHeaderFieldsTooLarge:
		return true
	}
	return false
}
