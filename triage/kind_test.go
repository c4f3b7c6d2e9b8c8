package triage

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/exectriage/exectriage/model"
)

func TestKindFromTags(t *testing.T) {
	tests := []struct {
		name string
		tags []string
		want model.ToolKind
		ok   bool
	}{
		{"read only", []string{"readOnlyHint", "openWorldHint"}, model.KindRead, true},
		{"read only wins over idempotent", []string{"idempotentHint", "readOnlyHint"}, model.KindRead, true},
		{"idempotent alone", []string{"idempotentHint"}, model.KindIdempotentWrite, true},
		{"idempotent and destructive is a write", []string{"idempotentHint", "destructiveHint"}, model.KindWrite, true},
		{"destructive", []string{"destructiveHint"}, model.KindWrite, true},
		{"open world only is a write", []string{"openWorldHint"}, model.KindWrite, true},
		{"case-insensitive", []string{"READONLYHINT"}, model.KindRead, true},
		{"no hints says nothing", []string{"important", "gmail"}, "", false},
		{"no tags", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := KindFromTags(tt.tags)
			if got != tt.want || ok != tt.ok {
				t.Errorf("KindFromTags(%v) = %q, %v; want %q, %v", tt.tags, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestKindFromSlug(t *testing.T) {
	tests := []struct {
		slug string
		want model.ToolKind
	}{
		{"GMAIL_FETCH_EMAILS", model.KindRead},
		{"GMAIL_SEND_EMAIL", model.KindWrite},
		{"GMAIL_REPLY_TO_THREAD", model.KindWrite},
		{"GMAIL_CREATE_EMAIL_DRAFT", model.KindWrite},
		{"GMAIL_LIST_DRAFTS", model.KindRead},
		// verbs that only answer: a place's coordinates, completions, suggestions, a difference,
		// who or what something is
		{"GOOGLEMAPS_GEOCODE_ADDRESS", model.KindRead},
		{"GOOGLEMAPS_AUTOCOMPLETE_PLACES", model.KindRead},
		{"SPOTIFY_RECOMMEND_TRACKS", model.KindRead},
		{"LINKEDIN_SUGGEST_SKILLS", model.KindRead},
		{"GITHUB_DIFF_TWO_BRANCHES", model.KindRead},
		{"CLEARBIT_IDENTIFY_COMPANY", model.KindRead},
		{"ACME_EXPLORE_DATASET", model.KindRead},
		{"AWS_RECOGNIZE_TEXT_IN_IMAGE", model.KindRead},
		{"GMAIL_FETCH_MESSAGE_BY_MESSAGE_ID", model.KindRead},
		{"GITHUB_LIST_REPOSITORY_ISSUES", model.KindRead},
		{"GITHUB_GET_A_REPOSITORY", model.KindRead},
		{"GITHUB_CREATE_AN_ISSUE_COMMENT", model.KindWrite},
		{"GITHUB_LIST_ISSUE_COMMENTS", model.KindRead},
		{"GITHUB_ISSUES_CREATE", model.KindWrite},       // resource before verb
		{"GITHUB_ISSUES_LIST_FOR_REPO", model.KindRead}, // resource before verb
		{"GITHUB_CHECKS_CREATE", model.KindWrite},       // "checks" is a resource, not a read
		{"SLACK_CHAT_POST_MESSAGE", model.KindWrite},    // verb after a noun
		{"SLACK_SENDS_A_MESSAGE_TO_A_CHANNEL", model.KindWrite},
		{"SLACK_FETCH_CONVERSATION_HISTORY", model.KindRead},
		{"HUBSPOT_SEARCH_CONTACTS", model.KindRead},
		{"NOTION_SEARCH_NOTION_PAGE", model.KindRead},
		{"LINEAR_LIST_LINEAR_ISSUES", model.KindRead},
		{"GOOGLECALENDAR_FIND_EVENT", model.KindRead},
		{"GOOGLECALENDAR_EVENTS_LIST", model.KindRead},
		{"TRELLO_ADD_ITEM_TO_LIST", model.KindWrite},    // a write verb before a read word
		{"SLACK_SET_READ_CURSOR", model.KindWrite},      // same
		{"GMAIL_MARK_AS_READ", model.KindWrite},         // same
		{"TRELLO_LISTS_CREATE", model.KindWrite},        // plural read verb is a resource
		{"SLACK_CONVERSATIONS_HISTORY", model.KindRead}, // no verb, named for its answer: a read
		{"SLACK_USERS_INFO", model.KindRead},            // same
		{"STRIPE_BALANCE", model.KindRead},              // same
		{"SLACK_CONVERSATIONS_OPEN", model.KindWrite},   // no verb, not an answer: unknown → write
		{"LINEAR_ISSUES", model.KindWrite},              // same
		{"GMAIL_GETS_PROFILE", model.KindRead},          // third person right after the toolkit
		{"", model.KindWrite},
		{"gmail_fetch_emails", model.KindRead}, // case-insensitive
	}
	for _, tt := range tests {
		if got := KindFromSlug(tt.slug); got != tt.want {
			t.Errorf("KindFromSlug(%q) = %q, want %q", tt.slug, got, tt.want)
		}
	}
}

func TestKindsPrefersTagsOverVerb(t *testing.T) {
	k := NewKinds()
	k.Learn(
		model.Tool{Slug: "GMAIL_ADD_LABEL_TO_EMAIL", Tags: []string{"idempotentHint"}},
		model.Tool{Slug: "ACME_SEND_REPORT", Tags: []string{"readOnlyHint"}}, // verb says write, tags say read
		model.Tool{Slug: "GMAIL_SEND_EMAIL", Tags: []string{"important"}},    // no hint: verb decides
	)
	for slug, want := range map[string]model.ToolKind{
		"GMAIL_ADD_LABEL_TO_EMAIL": model.KindIdempotentWrite,
		"acme_send_report":         model.KindRead,
		"GMAIL_SEND_EMAIL":         model.KindWrite,
		"GMAIL_FETCH_EMAILS":       model.KindRead,
		"ZAPIER_DO_THE_THING":      model.KindWrite,
	} {
		if got := k.Kind(slug); got != want {
			t.Errorf("Kind(%s) = %s, want %s", slug, got, want)
		}
	}
	if !k.Known("ACME_SEND_REPORT") || k.Known("GMAIL_SEND_EMAIL") {
		t.Error("Known should be true only for tools whose tags carried a hint")
	}
	var nilKinds *Kinds
	if got := nilKinds.Kind("GMAIL_FETCH_EMAILS"); got != model.KindRead {
		t.Errorf("nil Kinds: got %s, want read from the verb", got)
	}
}

type fakeCatalog struct {
	tools map[string]model.Tool
	calls atomic.Int32
}

func (f *fakeCatalog) GetTool(_ context.Context, slug string) (model.Tool, error) {
	f.calls.Add(1)
	t, ok := f.tools[slug]
	if !ok {
		return model.Tool{}, errors.New("404 tool not found")
	}
	return t, nil
}

func TestPrefetchIsBestEffortAndCached(t *testing.T) {
	cat := &fakeCatalog{tools: map[string]model.Tool{
		"ACME_SEND_REPORT": {Slug: "ACME_SEND_REPORT", Tags: []string{"readOnlyHint"}},
		"ACME_GET_TOKEN":   {Slug: "ACME_GET_TOKEN", Tags: []string{"destructiveHint"}},
	}}
	k := NewKinds()
	err := k.Prefetch(context.Background(), cat, []string{"ACME_SEND_REPORT", "ACME_GET_TOKEN", "ACME_FETCH_MISSING", "ACME_SEND_REPORT"})
	if err == nil || !strings.Contains(err.Error(), "ACME_FETCH_MISSING") {
		t.Fatalf("Prefetch error = %v, want one naming the failed slug", err)
	}
	if got := k.Kind("ACME_SEND_REPORT"); got != model.KindRead {
		t.Errorf("ACME_SEND_REPORT = %s, want read from its tags", got)
	}
	if got := k.Kind("ACME_GET_TOKEN"); got != model.KindWrite {
		t.Errorf("ACME_GET_TOKEN = %s, want write from its tags", got)
	}
	if got := k.Kind("ACME_FETCH_MISSING"); got != model.KindRead {
		t.Errorf("failed lookup should leave the verb fallback (FETCH → read), got %s", got)
	}
	if n := cat.calls.Load(); n != 3 {
		t.Errorf("catalog called %d times, want 3 (duplicates skipped)", n)
	}
	if err := k.Prefetch(context.Background(), cat, []string{"ACME_SEND_REPORT", "ACME_GET_TOKEN"}); err != nil {
		t.Errorf("second prefetch of learned slugs: %v", err)
	}
	if n := cat.calls.Load(); n != 3 {
		t.Errorf("learned slugs fetched again: %d calls", n)
	}
}

func TestPrefetchStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cat := &fakeCatalog{tools: map[string]model.Tool{}}
	err := NewKinds().Prefetch(ctx, cat, []string{"A_GET_X", "B_GET_Y", "C_GET_Z", "D_GET_W", "E_GET_V", "F_GET_U"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestKindsConcurrentUse(t *testing.T) {
	k := NewKinds()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				if (i+j)%3 == 0 {
					k.Learn(model.Tool{Slug: "ACME_SEND_REPORT", Tags: []string{"readOnlyHint"}})
				}
				_ = k.Kind("ACME_SEND_REPORT")
			}
		})
	}
	wg.Wait()
	if k.Kind("ACME_SEND_REPORT") != model.KindRead {
		t.Error("learned kind lost")
	}
}

// The slug-verb fallback checked against Composio's own tool definitions (slugs and tags of
// 950+ GitHub, Google, Gmail and Notion tools, copied from shared/composio-tools into
// testdata): no write is ever taken for a read. The other way round (a read taken for a
// write) only costs a flag, and stays rare.
func TestSlugFallbackAgainstRealTools(t *testing.T) {
	b, err := os.ReadFile("testdata/real_tool_tags.json")
	if err != nil {
		t.Fatal(err)
	}
	var tools []struct {
		Slug string   `json:"slug"`
		Tags []string `json:"tags"`
	}
	if err := json.Unmarshal(b, &tools); err != nil {
		t.Fatal(err)
	}
	checked, readsAsWrites := 0, 0
	for _, x := range tools {
		k, ok := KindFromTags(x.Tags)
		if !ok {
			continue
		}
		checked++
		s := KindFromSlug(x.Slug)
		if s == model.KindRead && k != model.KindRead {
			t.Errorf("%s is a %s (tags %v) but its slug reads as a read", x.Slug, k, x.Tags)
		}
		if k == model.KindRead && s != model.KindRead {
			readsAsWrites++
		}
	}
	if checked < 850 {
		t.Fatalf("only %d tools with hints checked", checked)
	}
	if readsAsWrites*50 > checked {
		t.Errorf("%d of %d reads taken for writes", readsAsWrites, checked)
	}
	t.Logf("%d tools checked; %d reads taken for writes (flagged, never sent twice)", checked, readsAsWrites)
	if k, ok := KindFromTags([]string{"updateHint", "mcpIgnore"}); !ok || k != model.KindWrite {
		t.Errorf("updateHint alone: %s %v, want a write", k, ok)
	}
	for _, slug := range []string{"GITHUB_GET_OR_CREATE_ISSUE", "GITHUB_EXPORT_A_CODESPACE_FOR_THE_AUTHENTICATED_USER", "NOTION_FETCH_AND_DELETE_BLOCK",
		// CHECK acts as a phrasal verb, names the checks resource, or is a noun further on; a read
		// joined to a write by AND writes
		"ACME_CHECK_IN_GUEST", "ACME_CHECK_OUT_CART", "GITHUB_CHECK_RUNS_CREATE", "GITHUB_CHECK_SUITES_REREQUEST",
		"GITHUB_REREQUEST_A_CHECK_RUN", "ACME_CHECK_AND_UPDATE_INVENTORY", "ACME_GET_AND_ARCHIVE_THREAD"} {
		if KindFromSlug(slug) != model.KindWrite {
			t.Errorf("%s reads as a read", slug)
		}
	}
	// CHECK and COMPARE ask a question where a verb is expected
	for _, slug := range []string{"GITHUB_CHECK_IF_A_GIST_IS_STARRED", "GITHUB_CHECK_A_TOKEN", "GITHUB_COMPARE_TWO_COMMITS", "ACME_CHECK_STATUS"} {
		if KindFromSlug(slug) != model.KindRead {
			t.Errorf("%s reads as a write", slug)
		}
	}
}

// TestBuiltinKindsAreTheTags: the kinds built in for offline windows are those the tags of
// Composio's own definitions give (testdata/real_tool_tags.json), a readOnlyHint over a verb
// that looks like a write included (27 reads flagged), and a tool learned from the
// tools endpoint still goes by what it learned.
func TestBuiltinKindsAreTheTags(t *testing.T) {
	b, err := os.ReadFile("testdata/real_tool_tags.json")
	if err != nil {
		t.Fatal(err)
	}
	var tools []model.Tool
	if err := json.Unmarshal(b, &tools); err != nil {
		t.Fatal(err)
	}
	k := NewKinds()
	n := 0
	for _, tool := range tools {
		want, ok := KindFromTags(tool.Tags)
		if !ok {
			continue
		}
		n++
		if got := k.Kind(tool.Slug); got != want {
			t.Errorf("%s: built in %s, its tags say %s", tool.Slug, got, want)
		}
	}
	if n < 800 {
		t.Fatalf("only %d tools with hints", n)
	}
	for _, slug := range []string{"GOOGLEDRIVE_GENERATE_IDS", "GITHUB_RENDER_A_MARKDOWN_DOCUMENT"} {
		if KindFromSlug(slug).IsWrite() && k.Kind(slug) != model.KindRead {
			t.Errorf("%s: %s, its readOnlyHint says read", slug, k.Kind(slug))
		}
	}
	k.Learn(model.Tool{Slug: "GITHUB_RENDER_A_MARKDOWN_DOCUMENT", Tags: []string{TagDestructive}})
	if k.Kind("GITHUB_RENDER_A_MARKDOWN_DOCUMENT") != model.KindWrite {
		t.Error("a learned kind did not win over the built-in one")
	}
}

// TestKindFromTheDefinition: a tool's kind comes from its definition first: createHint is a
// write whatever else it says (a create makes a new thing each call), then the description's
// first verb when no hint is carried; a compute verb (run, execute, generate) is a read when
// its object is an answer, a write otherwise.
func TestKindFromTheDefinition(t *testing.T) {
	tags := []struct {
		tags []string
		want model.ToolKind
	}{
		{[]string{"createHint"}, model.KindWrite},
		{[]string{"createHint", "idempotentHint"}, model.KindWrite},
		{[]string{"readOnlyHint", "createHint"}, model.KindWrite},
		{[]string{"idempotentHint", "updateHint"}, model.KindIdempotentWrite},
		{[]string{"readOnlyHint"}, model.KindRead},
	}
	for _, tt := range tags {
		if got, ok := KindFromTags(tt.tags); !ok || got != tt.want {
			t.Errorf("tags %v: %s %v, want %s", tt.tags, got, ok, tt.want)
		}
	}
	descs := []struct {
		desc string
		want model.ToolKind
		ok   bool
	}{
		{"Retrieves the rows of a sheet.", model.KindRead, true},
		{"Lists every channel", model.KindRead, true},
		{"Searches messages.", model.KindRead, true},
		{"Sends an email to recipients.", model.KindWrite, true},
		{"Creates a new issue", model.KindWrite, true},
		{"Deletes a page", model.KindWrite, true},
		{"This tool does things", "", false},
		{"Runs a workflow", "", false}, // a compute verb: its object decides, not the description's first word
		{"", "", false},
	}
	for _, tt := range descs {
		if got, ok := KindFromDescription(tt.desc); ok != tt.ok || got != tt.want {
			t.Errorf("%q: %s %v, want %s %v", tt.desc, got, ok, tt.want, tt.ok)
		}
	}
	k := NewKinds()
	k.Learn(model.Tool{Slug: "ACME_PROCESS_ORDER", Description: "Retrieves the order's state."},
		model.Tool{Slug: "ACME_SYNC_LEDGER", Description: "Creates ledger entries."})
	if k.Kind("ACME_PROCESS_ORDER") != model.KindRead || k.Kind("ACME_SYNC_LEDGER") != model.KindWrite {
		t.Errorf("descriptions not learned: %s, %s", k.Kind("ACME_PROCESS_ORDER"), k.Kind("ACME_SYNC_LEDGER"))
	}
	// a built-in kind (from Composio's own tags) is not overridden by a tag-less description
	k.Learn(model.Tool{Slug: "GOOGLEDRIVE_GENERATE_IDS", Description: "Creates ids for new files."})
	if k.Kind("GOOGLEDRIVE_GENERATE_IDS") != model.KindRead {
		t.Errorf("GOOGLEDRIVE_GENERATE_IDS: %s, its built-in readOnlyHint says read", k.Kind("GOOGLEDRIVE_GENERATE_IDS"))
	}
	slugs := []struct {
		slug string
		want model.ToolKind
	}{
		{"SNOWFLAKE_EXECUTE_QUERY", model.KindRead},
		{"GOOGLEANALYTICS_RUN_REPORT", model.KindRead},
		{"EXA_RUN_A_SEARCH", model.KindRead},
		{"OPENAI_GENERATE_SUMMARY", model.KindRead},
		{"ACME_GENERATE_EMBEDDINGS", model.KindRead},
		{"ACME_RUN_WORKFLOW", model.KindWrite},
		{"ACME_EXECUTE_ACTION", model.KindWrite},
		{"ACME_RUN_CREATE_REPORT", model.KindWrite},
		{"ACME_GENERATE_INVOICE", model.KindWrite},
		{"ACME_EXECUTE", model.KindWrite},
		// the object's head is its last noun: modifiers come before it
		{"JIRA_EXECUTE_JQL_SEARCH", model.KindRead},
		{"SALESFORCE_EXECUTE_SOQL_QUERY", model.KindRead},
		{"POSTHOG_RUN_HOGQL_QUERY", model.KindRead},
		{"ACME_RUN_REPORT_FOR_A_WORKFLOW", model.KindRead},
		{"ACME_RUN_WORKFLOW_FOR_REPORT", model.KindWrite},
		{"LINEAR_RUN_QUERY_OR_MUTATION", model.KindWrite}, // either: it may write
		{"ACME_RUN_QUERY_AND_EXPORT_RESULTS", model.KindWrite},
		{"ACME_GENERATE_REPORT_AND_SEND", model.KindWrite},
		{"ACME_RUN_FOR_REPORT", model.KindWrite}, // no object
		// verbs that read and return: a page scraped, a text's summary or translation
		{"FIRECRAWL_SCRAPE", model.KindRead},
		{"ACME_EXTRACT_TEXT_FROM_PDF", model.KindRead},
		{"ACME_SUMMARIZE_THREAD", model.KindRead},
		{"ACME_TRANSLATE_TEXT", model.KindRead},
		{"ACME_EXTRACT_AND_SEND_REPORT", model.KindWrite},
	}
	for _, tt := range slugs {
		if got := KindFromSlug(tt.slug); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.slug, got, tt.want)
		}
	}
}
