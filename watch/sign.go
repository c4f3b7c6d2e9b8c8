package watch

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Signing as Standard Webhooks (standardwebhooks.com): the secret is "whsec_" and the
// base64 of its bytes; a message is signed over "<webhook-id>.<webhook-timestamp>.<body>" with
// HMAC-SHA256, and webhook-signature is "v1," and the base64 of that.

// ErrBadSecret is wrapped by ParseSecret's error. The message never repeats the secret.
var ErrBadSecret = errors.New("the webhook signing secret must be whsec_ followed by base64 (at least 16 bytes)")

// Secret is a webhook signing key. Its String and GoString never show it.
type Secret struct{ key []byte }

// String hides the key wherever a Secret is printed.
func (Secret) String() string { return "whsec_[hidden]" }

// GoString hides the key from %#v.
func (s Secret) GoString() string { return s.String() }

// ParseSecret reads a Standard Webhooks secret ("whsec_" prefix optional, as the libraries
// take it).
func ParseSecret(text string) (Secret, error) {
	t := strings.TrimPrefix(strings.TrimSpace(text), "whsec_")
	key, err := base64.StdEncoding.DecodeString(t)
	if err != nil || len(key) < 16 {
		return Secret{}, ErrBadSecret
	}
	return Secret{key: key}, nil
}

// Sign is the webhook-signature header's value for one message.
func (s Secret) Sign(id string, at time.Time, body []byte) string {
	m := hmac.New(sha256.New, s.key)
	fmt.Fprintf(m, "%s.%d.", id, at.Unix())
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Verify checks a message's headers as a receiver does: one of the space-separated v1
// signatures matches, and the timestamp is within tolerance of now.
func (s Secret) Verify(id, timestamp, signatures string, body []byte, now time.Time, tolerance time.Duration) error {
	sec, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fmt.Errorf("webhook-timestamp %q: not unix seconds", timestamp)
	}
	at := time.Unix(sec, 0)
	if d := now.Sub(at); d > tolerance || d < -tolerance {
		return fmt.Errorf("webhook-timestamp %s is %s from now", at.UTC().Format(time.RFC3339), d.Round(time.Second))
	}
	want := s.Sign(id, at, body)
	for sig := range strings.FieldsSeq(signatures) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return errors.New("no webhook-signature matches")
}
