package sandbox

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// world is the state of every simulated provider plus the accounts that reach them. It is
// not safe for concurrent use: the Server guards it with its mutex.
type world struct {
	ids         idSource
	companies   []*company
	users       []*user
	accounts    []*account // creation order
	accountByID map[string]*account
	// accountMade, when set, is told of each account made while the sandbox serves (the
	// server's lock is held): Config.Events logs it.
	accountMade func(*account)
}

// company is an organisation: users of one company share its Slack workspace, GitHub
// organisation and HubSpot portal. Gmail mailboxes are personal (per account).
type company struct {
	name, domain string
	slack        *workspace
	github       *ghOrg
	hubspot      *portal
}

type user struct {
	id          string
	first, last string
	company     *company
	profile     clientProfile
	sessions    []string
	accounts    map[string]*account // by toolkit
	toolkits    []string            // the keys of accounts, in a fixed order
}

func (u *user) email() string {
	return strings.ToLower(u.first + "." + u.last + "@" + u.company.domain)
}

// account is a connected account: one user's connection to one toolkit.
type account struct {
	id, userID, toolkit string
	authConfigID        string
	status              string // ACTIVE, EXPIRED, INACTIVE
	created, updated    time.Time
	expiredAt           time.Time // when status became EXPIRED/INACTIVE; zero when ACTIVE
	user                *user
	mailbox             *mailbox // gmail only
	login               string   // github only
	company             *company
	stable              bool // never expires: special scenarios pick these
}

// usableAt reports whether the account could execute at t.
func (a *account) usableAt(t time.Time) bool {
	return a.expiredAt.IsZero() || t.Before(a.expiredAt)
}

// call is one tool invocation handed to a provider.
type call struct {
	acct *account
	args map[string]any
	now  time.Time
}

// opResult is what a provider answered.
type opResult struct {
	data      any    // the tool's data object
	err       string // provider error, "" on success
	status    int    // provider HTTP status of an error (404, 409, ...)
	objectID  string // the object a committed write created or changed
	committed bool   // a write took effect
}

func fail(status int, format string, a ...any) opResult {
	return opResult{data: map[string]any{}, err: fmt.Sprintf(format, a...), status: status}
}

// idSource draws deterministic ids: a counter mixed with the seed (splitmix64), so the same
// seed gives the same ids in the same order, history and live alike.
type idSource struct{ key, n uint64 }

func (s *idSource) next() uint64 {
	s.n++
	z := s.key + s.n*0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

const urlSafe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
const upperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// chars returns n characters of alphabet drawn from the source.
func (s *idSource) chars(n int, alphabet string) string {
	b := make([]byte, n)
	var v uint64
	for i := range b {
		if i%8 == 0 {
			v = s.next()
		}
		b[i] = alphabet[int(v&0xff)%len(alphabet)]
		v >>= 8
	}
	return string(b)
}

func (s *idSource) logID() string         { return "log_" + s.chars(12, urlSafe) }
func (s *idSource) hex(n int) string      { return s.chars(n, "0123456789abcdef") }
func (s *idSource) accountID() string     { return "ca_" + s.chars(12, urlSafe) }
func (s *idSource) authConfig() string    { return "ac_" + s.chars(12, urlSafe) }
func (s *idSource) slackID(p byte) string { return string(p) + "0" + s.chars(9, upperAlnum) }

// uuid returns a version-4-shaped UUID string.
func (s *idSource) uuid() string {
	h := s.hex(32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + string("89ab"[s.next()%4]) + h[17:20] + "-" + h[20:]
}

// Argument helpers: arguments arrive as decoded JSON (numbers as float64 or json.Number).

func strArg(args map[string]any, key string) string {
	s, _ := args[key].(string)
	return strings.TrimSpace(s)
}

func intArg(v any) (int64, bool) {
	switch n := v.(type) {
	case float64:
		if n != math.Trunc(n) || math.IsInf(n, 0) {
			return 0, false
		}
		return int64(n), true
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case int:
		return int64(n), true
	case int64:
		return n, true
	case string: // a numeric string is accepted, as Composio coerces it
		i, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
		return i, err == nil
	}
	return 0, false
}

func intArgOr(args map[string]any, key string, def int64) int64 {
	if v, ok := args[key]; ok && v != nil {
		if i, ok := intArg(v); ok {
			return i
		}
	}
	return def
}

func boolArgOr(args map[string]any, key string, def bool) bool {
	if b, ok := args[key].(bool); ok {
		return b
	}
	return def
}

func stringsArg(v any) ([]string, bool) {
	switch t := v.(type) {
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	case []string:
		return t, true
	case string: // a single string or comma-separated list, as Composio coerces it
		if strings.TrimSpace(t) == "" {
			return nil, true
		}
		var out []string
		for p := range strings.SplitSeq(t, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, true
	}
	return nil, false
}

func stringsArgOf(args map[string]any, key string) []string {
	out, _ := stringsArg(args[key])
	return out
}

// page clamps a requested page size.
func pageSize(v int64, def, max int) int {
	if v <= 0 {
		return def
	}
	if v > int64(max) {
		return max
	}
	return int(v)
}

func iso(t time.Time) string { return t.UTC().Format(time.RFC3339) }
