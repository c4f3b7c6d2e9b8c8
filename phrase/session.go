package phrase

import "fmt"

// What a session uses, in words: where its key came from, why it reads the source it does,
// whom its journal guards. app returns these records; the fronts print them (and a record's
// JSON is its words, so `info --json` says what `info` says).

// KeyFrom is where a session's API key came from: an environment variable (Env:
// COMPOSIO_API_KEY, or a profile's api_key_env under Profile), or the Composio CLI's login file
// (Login). The zero KeyFrom is no key.
type KeyFrom struct {
	Env     string
	Profile string
	Login   string
}

// None says there is no key.
func (k KeyFrom) None() bool { return k == KeyFrom{} }

// String names where the key came from ("" for none): "COMPOSIO_API_KEY", "$COMPOSIO_API_KEY_PROD
// (profile prod)", "the Composio CLI login (PATH)".
func (k KeyFrom) String() string {
	switch {
	case k.Login != "":
		return "the Composio CLI login (" + k.Login + ")"
	case k.Profile != "":
		return fmt.Sprintf("$%s (profile %s)", k.Env, k.Profile)
	}
	return k.Env
}

// Label is String, or what none means.
func (k KeyFrom) Label() string {
	if k.None() {
		return "none (no COMPOSIO_API_KEY, no Composio CLI login)"
	}
	return k.String()
}

// MarshalText is Label.
func (k KeyFrom) MarshalText() ([]byte, error) { return []byte(k.Label()), nil }

// SourceWhy is why a session reads the source it does: the flag or variable that names it
// (By: --file, --base-url, --demo, COMPOSIO_BASE_URL), the demo for want of a key and a local
// sandbox (NoKey), or the public API by default (PublicAPI); a live source's key says where it
// came from.
type SourceWhy struct {
	By        string
	NoKey     bool
	PublicAPI bool
	Key       KeyFrom
}

// String says it: "--demo", "COMPOSIO_BASE_URL, key from COMPOSIO_API_KEY"...
func (w SourceWhy) String() string {
	s := w.By
	switch {
	case w.NoKey:
		s = "no API key and no local sandbox at COMPOSIO_BASE_URL"
	case w.PublicAPI:
		s = "the public API"
	}
	if !w.Key.None() {
		s += ", key from " + w.Key.String()
	}
	return s
}

// MarshalText is String.
func (w SourceWhy) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

// Guards is whom a journal keeps from retrying one execution twice: a PostgreSQL journal
// everyone who uses it, a SQLite file this machine's processes that use it. Two journals do not
// know of each other. Unguarded is why it guards nothing (its one-claim index could not be
// verified), nil when it guards.
type Guards struct {
	Postgres  bool
	Unguarded error
}

// String says whom, for info (which opens no journal): "everyone who uses it".
func (g Guards) String() string {
	if g.Postgres {
		return "everyone who uses it"
	}
	return "this machine's processes that use the same file"
}

// MarshalText is String.
func (g Guards) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// Sentence says it of a journal named where, for a retry: "guards this machine only; …".
func (g Guards) Sentence() string {
	switch {
	case g.Unguarded != nil:
		return "guards nothing: " + g.Unguarded.Error()
	case g.Postgres:
		return "guards everyone who uses it"
	}
	return "guards this machine only; teammates on other journals are not guarded (share one PostgreSQL journal)"
}

// ReadOnlyWrites is why a read-only session refuses a retry, a verdict or any journal write, the
// one wording every front gives.
const ReadOnlyWrites = "this session is read-only (--readonly or [defaults] readonly in the config): no retry, verdict or journal write"

// ReadOnlyChecks is why a read-only session refuses a provider check.
const ReadOnlyChecks = "no provider check: this session is read-only and a check runs a read tool (--allow-reads lets checks through)"

// Recovered says that opening the journal found n attempts left in flight by a process that is
// gone, now indeterminate, and how to list and settle them (hint: a command line of the
// session, app.App.Hint).
func Recovered(n int, hint Hint) string {
	return fmt.Sprintf("%d retry attempt(s) left in flight by a process that is gone are now indeterminate: %s lists them, %s settles each",
		n, hint("journal"), hint("resolve", "ATTEMPT"))
}

// Preamble is what a command says about its session before its own output, the same lines in
// the CLI (on stderr) and the TUI (its first notice): the Composio CLI login's key in use on a
// live source (it is a person's, for every project they can see), a team index that could not
// be read (indexErr; the session reads the API instead).
func Preamble(live bool, key KeyFrom, indexErr error) []string {
	var out []string
	if live && key.Login != "" {
		out = append(out, "using the API key of "+key.String()+" (COMPOSIO_API_KEY is not set)")
	}
	if indexErr != nil {
		out = append(out, indexErr.Error()+": reading the API instead")
	}
	return out
}
