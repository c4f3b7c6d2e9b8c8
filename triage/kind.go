package triage

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/exectriage/exectriage/model"
)

// MCP tool annotations as Composio carries them in a tool's tags.
const (
	TagReadOnly    = "readOnlyHint"
	TagIdempotent  = "idempotentHint"
	TagDestructive = "destructiveHint"
	TagOpenWorld   = "openWorldHint"
	TagUpdate      = "updateHint" // Composio's own: the tool changes something
	TagCreate      = "createHint" // Composio's own: the tool creates something, anew each call
)

// ToolCatalog looks up a tool's definition; *client.Client satisfies it.
type ToolCatalog interface {
	GetTool(ctx context.Context, slug string) (model.Tool, error)
}

// Kinds remembers the kind of each tool learned from its tags and falls back to the slug's
// verb for the others. It is safe for concurrent use; a nil *Kinds uses the verb fallback only.
type Kinds struct {
	mu    sync.RWMutex
	known map[string]model.ToolKind // upper-case slug -> kind from tags
	roles map[string]Roles          // upper-case slug -> its arguments' roles, from its input schema
	// anyRoles: some definition gave roles (a file's scan learns none: its grouping asks no lock)
	anyRoles atomic.Bool
}

// NewKinds returns an empty cache.
func NewKinds() *Kinds {
	return &Kinds{known: make(map[string]model.ToolKind), roles: make(map[string]Roles)}
}

// Roles are the roles the tool's definition gives its arguments (roles.go); nil when no
// definition was learned or it says none.
func (k *Kinds) Roles(slug string) Roles {
	if k == nil || !k.anyRoles.Load() {
		return nil
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.roles[strings.ToUpper(slug)]
}

// Learn records the kind of each tool its definition tells: its hint tags first, else (for a
// tool whose kind is not built in from Composio's own tags) its description's first verb
// ("Retrieves…", "Sends…"). A definition that tells neither says
// nothing about the tool, so its slug's verb keeps deciding. It records the roles its input
// schema gives its arguments too (RolesOf).
func (k *Kinds) Learn(tools ...model.Tool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, t := range tools {
		if t.Slug == "" {
			continue
		}
		u := strings.ToUpper(t.Slug)
		if r := RolesOf(t.InputParameters, Created(t.Slug)); r != nil {
			k.roles[u] = r
			k.anyRoles.Store(true)
		} else {
			delete(k.roles, u)
		}
		if kind, ok := KindFromTags(t.Tags); ok {
			k.known[u] = kind
		} else if _, builtin := builtinKind(u); !builtin {
			// a description says less than the tags Composio's own definition carries
			if kind, ok := KindFromDescription(t.Description); ok {
				k.known[u] = kind
			}
		}
	}
}

// KindFromDescription reads a tool's kind from the first word of its description, when that
// word is a verb that says it: "Retrieves", "Lists", "Searches" a read; "Creates", "Sends",
// "Deletes" a write. ok is false for any other opening ("This tool…", "Use to…").
func KindFromDescription(desc string) (model.ToolKind, bool) {
	f := strings.Fields(desc)
	if len(f) == 0 {
		return "", false
	}
	w := strings.ToUpper(strings.Trim(f[0], ".,:;!"))
	for _, v := range []string{w, strings.TrimSuffix(w, "S"), strings.TrimSuffix(w, "ES")} {
		if v == "" {
			continue
		}
		switch {
		case isWriteVerb(v) && !isComputeVerb(v):
			return model.KindWrite, true
		case isReadVerb(v) && v != "EXPORT":
			return model.KindRead, true
		}
	}
	return "", false
}

// Known reports whether slug's kind came from its tags rather than from its verb.
func (k *Kinds) Known(slug string) bool {
	if k == nil {
		return false
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	_, ok := k.known[strings.ToUpper(slug)]
	return ok
}

// Kind returns the tool's kind: from its tags when learned (the tools endpoint), else from the
// tags of Composio's own definition when the tool is one of those built in (tool_kinds.txt: a
// window read offline judges GOOGLEDRIVE_GENERATE_IDS a read, as its readOnlyHint says), else
// from its slug's verb, else write (the safe guess: an unknown tool may change the world).
func (k *Kinds) Kind(slug string) model.ToolKind {
	u := strings.ToUpper(slug)
	if k != nil {
		k.mu.RLock()
		kind, ok := k.known[u]
		k.mu.RUnlock()
		if ok {
			return kind
		}
	}
	if kind, ok := builtinKind(u); ok {
		return kind
	}
	return KindFromSlug(slug)
}

//go:embed tool_kinds.txt
var toolKindsText string

// builtinKind is the kind tool_kinds.txt gives an upper-case slug.
func builtinKind(slug string) (model.ToolKind, bool) {
	i := strings.Index(toolKindsText, "\n"+slug+" ")
	if i < 0 {
		return "", false
	}
	rest := toolKindsText[i+len(slug)+2:]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	return model.ToolKind(rest), true
}

// prefetchWorkers bounds concurrent catalog lookups; a scan names tens of tools at most.
const prefetchWorkers = 4

// Prefetch asks the catalog for every slug not learned yet and learns what it can. It is best
// effort: a lookup that fails leaves that slug on the verb fallback, and the failures come back
// joined in the error (which callers may log and otherwise ignore).
func (k *Kinds) Prefetch(ctx context.Context, cat ToolCatalog, slugs []string) error {
	if cat == nil {
		return errors.New("prefetch tool kinds: no tool catalog")
	}
	seen := make(map[string]bool, len(slugs))
	var todo []string
	for _, s := range slugs {
		u := strings.ToUpper(strings.TrimSpace(s))
		if u == "" || seen[u] || k.Known(u) {
			continue
		}
		seen[u] = true
		todo = append(todo, s)
	}
	if len(todo) == 0 {
		return nil
	}
	work := make(chan string)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for range min(prefetchWorkers, len(todo)) {
		wg.Go(func() {
			for slug := range work {
				t, err := cat.GetTool(ctx, slug)
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("tool %s: %w", slug, err))
					mu.Unlock()
					continue
				}
				t.Slug = cmp.Or(t.Slug, slug)
				k.Learn(t)
			}
		})
	}
	for _, s := range todo {
		if ctx.Err() != nil {
			break
		}
		select {
		case work <- s:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("prefetch tool kinds: %w", errors.Join(errs...))
	}
	return nil
}

// KindFromTags applies the tag rule: readOnlyHint → read; idempotentHint without
// destructiveHint or createHint → idempotent write; any other hint (createHint, updateHint,
// destructiveHint, openWorldHint) → write. ok is false when the tags carry
// no MCP hint at all. A destructive tool stays a write even when it says idempotent: repeating a
// delete can remove something created in between. Tags match case-insensitively.
func KindFromTags(tags []string) (kind model.ToolKind, ok bool) {
	var ro, idem, destr, create, any bool
	for _, t := range tags {
		switch {
		case strings.EqualFold(t, TagReadOnly):
			ro, any = true, true
		case strings.EqualFold(t, TagIdempotent):
			idem, any = true, true
		case strings.EqualFold(t, TagDestructive):
			destr, any = true, true
		case strings.EqualFold(t, TagCreate):
			create, any = true, true
		case strings.EqualFold(t, TagOpenWorld), strings.EqualFold(t, TagUpdate):
			any = true
		}
	}
	switch {
	case !any:
		return "", false
	case ro && !create:
		return model.KindRead, true
	case idem && !destr && !create: // a create makes a new thing each call, whatever else it says
		return model.KindIdempotentWrite, true
	}
	return model.KindWrite, true
}

// Verbs that make a slug a read. CHECK and COMPARE are not among them: they ask a question only
// where a verb is expected (questionVerb); further on CHECK is a noun (GITHUB_REREQUEST_A_CHECK_RUN,
// a status check), and a write taken for a read would never be flagged.
func isReadVerb(w string) bool {
	switch w {
	case "FETCH", "GET", "LIST", "SEARCH", "READ", "FIND", "RETRIEVE", "QUERY", "LOOKUP", "VIEW",
		"DESCRIBE", "SHOW", "COUNT", "DOWNLOAD", "EXPORT", "PREVIEW", "INSPECT", "BROWSE",
		"SCRAPE", "EXTRACT", "SUMMARIZE", "TRANSLATE", "ANALYZE", "PARSE", "CLASSIFY", "DETECT", "VALIDATE",
		"GEOCODE", "AUTOCOMPLETE", "SUGGEST", "RECOMMEND", "EXPLORE", "DIFF", "IDENTIFY", "RECOGNIZE":
		return true
	}
	return false
}

// questionVerb reports whether toks[i] asks a question and returns its answer: CHECK (CHECK_IF_…,
// CHECK_A_TOKEN, CHECK_…_PERMISSIONS) or COMPARE, right after the toolkit, where a verb is
// expected; not the phrasal verbs that act (CHECK_IN, CHECK_OUT) nor the checks resource named
// before its verb (CHECK_RUNS_CREATE, CHECK_SUITE_…).
func questionVerb(toks []string, i int) bool {
	if i > 1 || i >= len(toks) {
		return false
	}
	switch toks[i] {
	case "COMPARE":
		return true
	case "CHECK":
		if i+1 < len(toks) {
			switch toks[i+1] {
			case "IN", "OUT", "RUN", "RUNS", "SUITE", "SUITES":
				return false
			}
		}
		return true
	}
	return false
}

func isThirdPersonRead(w string) bool {
	switch w {
	case "GET", "FETCH", "FIND", "RETRIEVE", "READ":
		return true
	}
	return false
}

// Verbs that make a slug a write; listed so that a later read word (ADD_ITEM_TO_LIST,
// SET_READ_CURSOR) cannot turn a write into a read.
func isWriteVerb(w string) bool {
	switch w {
	case "SEND", "CREATE", "POST", "REPLY", "UPDATE", "DELETE", "ADD", "REMOVE", "INSERT",
		"PATCH", "PUT", "MODIFY", "EDIT", "SET", "UPSERT", "ARCHIVE", "UNARCHIVE", "MOVE", "COPY",
		"MERGE", "CLOSE", "REOPEN", "ASSIGN", "UNASSIGN", "INVITE", "FORWARD", "UPLOAD", "SHARE",
		"STAR", "UNSTAR", "PIN", "UNPIN", "MARK", "TRASH", "UNTRASH", "RENAME", "SCHEDULE", "CANCEL",
		"APPROVE", "REJECT", "PUBLISH", "SUBSCRIBE", "UNSUBSCRIBE", "ENABLE", "DISABLE", "START",
		"STOP", "RUN", "EXECUTE", "TRIGGER", "REACT", "COMMENT", "BLOCK", "UNBLOCK", "FOLLOW",
		"UNFOLLOW", "LIKE", "REPLACE", "CLEAR", "RESET", "REVOKE", "TRANSFER", "DUPLICATE", "IMPORT",
		"SUBMIT", "INVOKE", "APPEND", "WRITE", "EMPTY", "MUTE":
		return true
	}
	return false
}

// KindFromSlug guesses a tool's kind from the first verb in its slug, skipping the toolkit
// (GMAIL_FETCH_EMAILS, GITHUB_LIST_REPOSITORY_ISSUES, SLACK_CHAT_POST_MESSAGE,
// GITHUB_ISSUES_CREATE). A third-person verb right after the toolkit counts too
// (SLACK_SENDS_A_MESSAGE_TO_A_CHANNEL). No verb → write, unless the slug ends with the answer it
// returns (viewNoun).
func KindFromSlug(slug string) model.ToolKind {
	v, at := SlugVerb(slug)
	if toks := SlugTokens(slug); at < 0 && len(toks) > 1 && viewNoun(toks[len(toks)-1]) {
		// no verb, and the slug ends with what it returns (SLACK_CONVERSATIONS_HISTORY,
		// SLACK_USERS_INFO, STRIPE_BALANCE: an API method named for its answer): a read
		return model.KindRead
	}
	if isComputeVerb(v) && computesAnAnswer(SlugTokens(slug)[at+1:]) {
		// a verb that runs something, on an object that is an answer (RUN_REPORT,
		// EXECUTE_SEARCH_QUERY, GENERATE_SUMMARY): it computes and returns, and changes nothing
		return model.KindRead
	}
	if !isReadVerb(v) && (at < 0 || !questionVerb(SlugTokens(slug), at)) || v == "EXPORT" {
		// EXPORT starts writes too (GITHUB_EXPORT_A_CODESPACE... is tagged updateHint)
		return model.KindWrite
	}
	// A read verb joined to a write verb is a write: GITHUB_GET_OR_CREATE_ISSUE creates,
	// CHECK_AND_UPDATE updates.
	toks := SlugTokens(slug)
	for i := at + 1; i < len(toks); i++ {
		if (toks[i] == "OR" || toks[i] == "AND") && i+1 < len(toks) && isWriteVerb(toks[i+1]) || strongWriteVerb(toks[i]) {
			return model.KindWrite
		}
	}
	return model.KindRead
}

// viewNoun is a noun that names an answer a call returns about a thing: its history, its
// details, its members, its status, its balance. A slug with no verb that ends with one names
// what it returns (an API method named for its answer, Slack's conversations.history).
func viewNoun(w string) bool {
	switch w {
	case "HISTORY", "INFO", "DETAILS", "PROFILE", "MEMBERS", "REPLIES", "STATUS", "STATS", "STATISTICS", "BALANCE", "SUMMARY",
		"METADATA", "USAGE", "INSIGHTS", "ANALYTICS":
		return true
	}
	return false
}

// isComputeVerb is a verb that says a tool runs something, not what the run changes: its object
// decides (RUN_REPORT reads, RUN_WORKFLOW may write).
func isComputeVerb(w string) bool {
	switch w {
	case "RUN", "EXECUTE", "GENERATE", "PERFORM", "INVOKE", "CALCULATE", "COMPUTE":
		return true
	}
	return false
}

// computesAnAnswer reports whether the words after a compute verb name only an answer: a
// query, a search, a report, a summary... The object is a noun phrase whose head is its last
// noun, its modifiers before it (EXECUTE_JQL_SEARCH, EXECUTE_SOQL_QUERY, RUN_HOGQL_QUERY: a
// search and queries), ended by a preposition (RUN_REPORT_FOR_ACCOUNT); phrases joined by OR or
// AND must each be an answer (RUN_QUERY_OR_MUTATION may write), and a write verb or a strong
// write noun anywhere makes it a write.
func computesAnAnswer(words []string) bool {
	head, ended, answers := "", false, 0
	phraseEnd := func() bool {
		if head == "" {
			return false
		}
		if !answerNoun(head) {
			return false
		}
		answers++
		head = ""
		return true
	}
	for _, w := range words {
		if isWriteVerb(w) || strongWriteVerb(w) {
			return false
		}
		switch w {
		case "A", "AN", "THE":
			continue
		case "OR", "AND":
			if !ended && !phraseEnd() {
				return false
			}
			ended = false
			continue
		case "FOR", "BY", "IN", "ON", "FROM", "OF", "WITH", "TO", "USING", "VIA", "AT", "WITHIN", "ACROSS", "OVER", "AGAINST", "INTO":
			if !ended && !phraseEnd() {
				return false
			}
			ended = true // the rest qualifies the object
			continue
		}
		if !ended {
			head = w
		}
	}
	if !ended && !phraseEnd() {
		return false
	}
	return answers > 0
}

// answerNoun is a noun that names an answer a tool computes and returns.
func answerNoun(w string) bool {
	switch strings.TrimSuffix(w, "S") {
	case "QUERY", "QUERIE", "SEARCH", "SEARCHE", "REPORT", "LOOKUP", "ANALYSI", "ANALYTIC", "SUMMARY", "SUMMARIE",
		"COMPLETION", "EMBEDDING", "TRANSLATION", "PREVIEW", "ESTIMATE", "FORECAST",
		"PREDICTION", "CLASSIFICATION", "ID", "SELECT", "ANSWER", "INSIGHT", "STAT", "STATISTIC", "METRIC":
		return true
	}
	return false
}

// strongWriteVerb is a verb that makes a slug a write wherever it stands (the nouns of reads
// never are these words).
func strongWriteVerb(w string) bool {
	switch w {
	case "CREATE", "SEND", "DELETE", "UPSERT", "INSERT":
		return true
	}
	return false
}

// SlugVerb returns the slug's first verb and its index in the tokens ("" and -1 when none).
func SlugVerb(slug string) (string, int) {
	toks := SlugTokens(slug)
	try := func(i int) string {
		t := toks[i]
		if isReadVerb(t) || isWriteVerb(t) || isComputeVerb(t) || questionVerb(toks, i) {
			return t
		}
		// SENDS, GETS, FETCHES: only right after the toolkit, where a verb is expected; further
		// on a plural is usually a noun (LIST_POSTS, LIST_ISSUE_COMMENTS). Read verbs whose
		// plural is also a resource (LISTS, VIEWS, EXPORTS) are not stripped: a write must not
		// pass for a read.
		if i <= 1 {
			for _, suf := range []string{"ES", "S"} {
				if b, ok := strings.CutSuffix(t, suf); ok && (isWriteVerb(b) || isThirdPersonRead(b)) {
					return b
				}
			}
		}
		return ""
	}
	for i := 1; i < len(toks); i++ {
		if v := try(i); v != "" {
			return v, i
		}
	}
	if len(toks) > 0 {
		if v := try(0); v != "" {
			return v, 0
		}
	}
	return "", -1
}

// SlugTokens splits a tool slug into its upper-case words.
func SlugTokens(slug string) []string {
	return strings.FieldsFunc(strings.ToUpper(slug), func(r rune) bool {
		return r == '_' || r == '-' || r == '.' || r == ' ' || r == '/'
	})
}
