package verify

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// documentedReads are read tools docs/platform.md documents (slug, arguments, result), beyond the
// definitions copied into testdata.
var documentedReads = map[string]struct {
	args  []string
	lists []string
}{
	"HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA": {[]string{"filterGroups", "properties", "limit", "after"}, []string{"results"}},
}

// The built-in verifiers against Composio's own tool definitions (testdata/read_tool_schemas.json,
// copied from shared/composio-tools): every read tool exists there or in docs/platform.md, or
// its verifier says it is best-effort; every argument a verifier sends is one of the read
// tool's input_parameters; its first result path is a property of the result's data; the read
// is tagged readOnlyHint.
func TestBuiltinVerifiersFitTheRealSchemas(t *testing.T) {
	b, err := os.ReadFile("testdata/read_tool_schemas.json")
	if err != nil {
		t.Fatal(err)
	}
	var schemas map[string]struct {
		Tags  []string `json:"tags"`
		Input struct {
			Properties map[string]any `json:"properties"`
		} `json:"input_parameters"`
		Output struct {
			Properties struct {
				Data struct {
					Properties map[string]any `json:"properties"`
				} `json:"data"`
			} `json:"properties"`
		} `json:"output_parameters"`
	}
	if err := json.Unmarshal(b, &schemas); err != nil {
		t.Fatal(err)
	}
	sample := map[string]any{
		"recipient_email": "bob@example.com", "subject": "s", "body": "b", "thread_id": "t1", "message_body": "m",
		"message_id": "m1", "add_label_ids": []any{"L1"}, "channel": "#c", "text": "hi", "owner": "o", "repo": "r",
		"title": "T", "issue_number": 3, "email": "a@b.c", "firstname": "A", "lastname": "B", "summary": "S",
		"start_datetime": "2026-03-02T10:00:00Z", "team_id": "tm", "parent": map[string]any{"page_id": "p"},
	}
	checked := 0
	for _, c := range builtinChecks() {
		args, err := c.args(sample, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
		if err != nil {
			t.Errorf("%s: arguments from the sample: %v", c.tool, err)
			continue
		}
		if sc, ok := schemas[c.readTool]; ok {
			checked++
			for k := range args {
				if _, known := sc.Input.Properties[k]; !known {
					t.Errorf("%s sends %s argument %q, which is not among its input_parameters", c.tool, c.readTool, k)
				}
			}
			if props := sc.Output.Properties.Data.Properties; len(props) > 0 && !c.single && len(c.lists) > 0 {
				if _, ok := props[strings.Split(c.lists[0], ".")[0]]; !ok {
					t.Errorf("%s reads %s's result at %q, not a property of its data", c.tool, c.readTool, c.lists[0])
				}
			}
			if kind, ok := triage.KindFromTags(sc.Tags); ok && kind != model.KindRead {
				t.Errorf("%s's read tool %s is tagged %v: not a read", c.tool, c.readTool, sc.Tags)
			}
			continue
		}
		if d, ok := documentedReads[c.readTool]; ok {
			checked++
			for k := range args {
				if !contains(d.args, k) {
					t.Errorf("%s sends %s argument %q, which docs/platform.md does not document", c.tool, c.readTool, k)
				}
			}
			if !contains(d.lists, strings.Split(c.lists[0], ".")[0]) {
				t.Errorf("%s reads %s's result at %q", c.tool, c.readTool, c.lists[0])
			}
			continue
		}
		if c.bestEffort == "" {
			t.Errorf("%s's read tool %s is neither in Composio's definitions nor documented, and its verifier does not say it is best-effort", c.tool, c.readTool)
		}
	}
	if checked < 8 {
		t.Errorf("only %d verifiers checked against a schema", checked)
	}
}

func contains(xs []string, x string) bool {
	return slices.Contains(xs, x)
}

// A successful GMAIL_FETCH_EMAILS without messages is an empty result (nothing was sent), not
// an answer that cannot be read; a best-effort verifier says so in its evidence.
func TestEmptyGmailResultAndBestEffortEvidence(t *testing.T) {
	r := &scriptedRunner{data: map[string]any{"resultSizeEstimate": 0}}
	e := &model.Execution{ToolSlug: "GMAIL_SEND_EMAIL", StartTime: t0, Detailed: true,
		Arguments: json.RawMessage(`{"recipient_email":"bob@x.io","subject":"S","body":"b"}`)}
	if st := NewVerifiers(r, nil).Verify(t.Context(), e); st.State != model.ProviderNotFound {
		t.Errorf("empty GMAIL_FETCH_EMAILS: %s (%s)", st.State, st.Reason)
	}
	cal := &model.Execution{ToolSlug: "GOOGLECALENDAR_CREATE_EVENT", StartTime: t0, Detailed: true,
		Arguments: json.RawMessage(`{"summary":"S","start_datetime":"2026-03-02T10:00:00Z"}`)}
	if st := NewVerifiers(&scriptedRunner{data: map[string]any{"items": []any{}}}, nil).Verify(t.Context(), cal); !strings.Contains(st.Reason, "best-effort") {
		t.Errorf("calendar evidence does not say best-effort: %s", st.Reason)
	}
}

// t0 is the tests' reference time.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
