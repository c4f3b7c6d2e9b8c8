package detail

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/data"
	"github.com/exectriage/exectriage/ui/styles"
	"github.com/exectriage/exectriage/ui/theme"
	"github.com/exectriage/exectriage/window"
)

// store holds the executions with their full records fetched, as the pane sees them once a
// row has been opened.
func store(execs ...model.Execution) *data.Store {
	s := data.NewStore()
	s.DS = window.Build(execs, nil, nil)
	for _, e := range execs {
		s.PutDetail(e.ID, e)
	}
	return s
}

// TestHugeValuesAreCutNotRendered builds executions whose response, arguments or error
// message is 9 MiB and checks that the pane gets the first 64 KiB of each with a marker
// naming the real size, not megabytes of text.
func TestHugeValuesAreCutNotRendered(t *testing.T) {
	const size = 9 << 20
	hugeString, err := json.Marshal(map[string]string{"body": strings.Repeat("x", size)})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 2, 11, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		e       model.Execution
		markers int
	}{
		{"9 MiB response string", model.Execution{ID: "log_1", Timestamp: at, Detailed: true, Response: hugeString}, 1},
		{"9 MiB arguments", model.Execution{ID: "log_2", Timestamp: at, Detailed: true,
			Arguments: json.RawMessage(`{"to":[` + strings.Repeat(`"someone@example.com",`, size/22) + `"last@example.com"]}`)}, 1},
		{"9 MiB error message and response", model.Execution{ID: "log_3", Timestamp: at, Detailed: true, Response: hugeString,
			Error: &model.ExecError{Message: strings.Repeat("stack frame\n", size/12)}}, 2},
		{"a 100 KB tool slug", model.Execution{ID: "log_4", Timestamp: at, Detailed: true, ToolSlug: strings.Repeat("T", 100_000)}, 0},
		{"small", model.Execution{ID: "log_5", Timestamp: at, Detailed: true, Arguments: json.RawMessage(`{"a":1}`), Response: json.RawMessage(`{"ok":true}`)}, 0},
	}
	st := styles.New(theme.Default())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Renderer
			out := ansi.Strip(r.Content(st, store(tt.e), 0, false, false))
			if n := strings.Count(out, "… [truncated: 9 MiB, showing the first 64 KiB"); n != tt.markers {
				t.Errorf("%d markers, want %d", n, tt.markers)
			}
			if limit := max(tt.markers*(common.MaxShown+4096), 8<<10); len(out) > limit {
				t.Errorf("the pane content is %d bytes", len(out))
			}
			for l := range strings.SplitSeq(out, "\n") {
				if common.Width(l) > common.MaxShown {
					t.Fatalf("a line of %d cells", common.Width(l))
				}
			}
			// The same inputs are served from the cache: the same text.
			if again := ansi.Strip(r.Content(st, store(tt.e), 0, false, false)); again != out {
				t.Error("a second render differs")
			}
		})
	}
}

// TestCacheFollowsTheRecordAndTheReveal checks that the cached bodies are not served for a
// changed record (a list entry replaced by its full detail) or a changed reveal.
func TestCacheFollowsTheRecordAndTheReveal(t *testing.T) {
	const tok = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	st := styles.New(theme.Default())
	e := model.Execution{ID: "log_1", Detailed: true, Arguments: json.RawMessage(`{"q":"one"}`)}
	r := Renderer{Secrets: redact.NewPolicy()}
	if out := r.Content(st, store(e), 0, false, false); !strings.Contains(out, `"one"`) {
		t.Fatalf("content = %q", out)
	}
	e.Arguments = json.RawMessage(`{"q":"two ` + tok + `"}`)
	s := store(e)
	if out := r.Content(st, s, 0, false, false); !strings.Contains(out, "two") || strings.Contains(out, tok) {
		t.Errorf("changed arguments: %q", out)
	}
	if out := r.Content(st, s, 0, false, true); !strings.Contains(out, tok) {
		t.Errorf("revealed: %q", out)
	}
	if out := r.Content(st, s, 0, false, false); strings.Contains(out, tok) {
		t.Errorf("hidden again: %q", out)
	}
}

// TestRowWithoutItsRecord: before its full record is fetched a row shows what the list knows
// and says the record is coming; a source that has only the list entry says so once fetched.
func TestRowWithoutItsRecord(t *testing.T) {
	st := styles.New(theme.Default())
	e := model.Execution{ID: "log_1", ToolSlug: "GMAIL_SEND_EMAIL", Timestamp: time.Date(2026, 3, 2, 11, 0, 0, 0, time.UTC),
		Status: "success", Arguments: json.RawMessage(`{"to":"x@example.com"}`), Detailed: true}
	s := data.NewStore()
	s.DS = window.Build([]model.Execution{e}, nil, nil)
	var r Renderer
	tests := []struct {
		name    string
		loading bool
		put     *model.Execution
		want    string
	}{
		{"not fetched yet", false, nil, "loads when the selection rests"},
		{"being fetched", true, nil, "loading the full record…"},
		{"the source has only the list entry", false, &model.Execution{ID: "log_1", ToolSlug: "GMAIL_SEND_EMAIL"}, "the source has only this list entry"},
		{"fetched", false, &e, "── arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.put != nil {
				s.PutDetail("log_1", *tt.put)
			}
			out := ansi.Strip(r.Content(st, s, 0, tt.loading, false))
			if !strings.Contains(out, tt.want) || !strings.Contains(out, "GMAIL_SEND_EMAIL") {
				t.Errorf("content lacks %q:\n%s", tt.want, out)
			}
		})
	}
}

// TestARecordWithoutStoredData: a full tool-execution record with neither arguments nor
// response (a project with "Don't store data" on) says why nothing can be checked or retried;
// a record with either, and a record that is not a tool execution, do not.
func TestARecordWithoutStoredData(t *testing.T) {
	st := styles.New(theme.Default())
	at := time.Date(2026, 3, 2, 11, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		e    model.Execution
		says bool
	}{
		{"no stored data", model.Execution{ID: "log_1", ToolSlug: "GMAIL_SEND_EMAIL", Timestamp: at, Status: "failed", Detailed: true}, true},
		{"arguments kept", model.Execution{ID: "log_2", ToolSlug: "GMAIL_SEND_EMAIL", Timestamp: at, Detailed: true, Arguments: json.RawMessage(`{"to":"a"}`)}, false},
		{"response kept", model.Execution{ID: "log_3", ToolSlug: "GMAIL_FETCH_EMAILS", Timestamp: at, Detailed: true, Response: json.RawMessage(`{"ok":true}`)}, false},
		{"an account event", model.Execution{ID: "log_4", Type: model.TypeAccountCreated, Timestamp: at, Detailed: true}, false},
		{"a trigger delivery", model.Execution{ID: "log_5", Type: model.TypeTriggerMessage, ToolSlug: "GMAIL_NEW_GMAIL_MESSAGE", Timestamp: at, Detailed: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Renderer
			out := strings.Join(strings.Fields(ansi.Strip(r.Content(st, store(tt.e), 0, false, false))), " ")
			if got := strings.Contains(out, NoStoredData); got != tt.says {
				t.Errorf("says %v, want %v: %q", got, tt.says, out)
			}
		})
	}
}

// TestATriggerDeliveryAndItsRedelivery: the pane says what identifies a trigger
// delivery (its event, attempt and trigger, and the handler's error), and a redelivery's write
// names the deliveries it came from.
func TestATriggerDeliveryAndItsRedelivery(t *testing.T) {
	st := styles.New(theme.Default())
	t0 := time.Date(2026, 3, 2, 11, 0, 0, 0, time.UTC)
	deliver := func(id string, attempt int, at time.Duration, err string) model.Execution {
		e := model.Execution{ID: id, Type: model.TypeTriggerMessage, ToolSlug: "GMAIL_NEW_GMAIL_MESSAGE", UserID: "u1", ConnectedAccountID: "ca_1", Timestamp: t0.Add(at),
			StartTime: t0.Add(at), Detailed: true, Status: "success", RetryCount: -1,
			Delivery: &model.Delivery{EventID: "msg_1", Attempt: attempt, TriggerID: "ti_1", Error: err}}
		return e
	}
	write := func(id string, at time.Duration) model.Execution {
		e := model.Execution{ID: id, ToolSlug: "SLACK_SEND_MESSAGE", UserID: "u1", ConnectedAccountID: "ca_1", Status: "success", RetryCount: -1,
			Detailed: true, Arguments: json.RawMessage(`{"channel":"#sales","text":"New lead"}`), Timestamp: t0.Add(at), StartTime: t0.Add(at),
			EndTime: t0.Add(at + time.Second), Duration: time.Second, HasDuration: true}
		return e
	}
	late := write("w3", 20*time.Second) // the same user and account, but 20 s after: no tie
	late.Arguments = json.RawMessage(`{"channel":"#ops","text":"Daily digest"}`)
	execs := []model.Execution{deliver("d1", 1, 0, "handler timed out"), write("w1", time.Second), late, deliver("d2", 2, 40*time.Second, ""), write("w2", 41*time.Second)}
	// the TUI's way: the builder (its triage, its deliveries), records newest first
	b := window.NewBuilder(nil, triage.Options{})
	newest := slices.Clone(execs)
	slices.Reverse(newest)
	b.Add(newest)
	byID := map[string]model.Execution{}
	for _, e := range execs {
		byID[e.ID] = e
	}
	if err := b.Groups(context.Background(), func(_ context.Context, id string) (model.Execution, error) { return byID[id], nil }); err != nil {
		t.Fatal(err)
	}
	s := data.NewStore()
	s.DS = b.Snapshot()
	for _, e := range execs {
		s.PutDetail(e.ID, e)
	}
	var r Renderer
	if out := ansi.Strip(r.Content(st, s, s.DS.Index("w3"), false, false)); strings.Contains(out, "trigger ") {
		t.Errorf("w3 is tied to a delivery 20 s before it:\n%s", out)
	}
	for id, want := range map[string][]string{
		"d1": {"delivery event msg_1 attempt 1 trigger ti_1", "the handler failed: handler timed out"},
		"w2": {"trigger_redelivery", "trigger deliveries: d1 → d2", "trigger d2 event msg_1 attempt 2 (the same user and account, seconds before)"},
		"w1": {"trigger d1 event msg_1 attempt 1"},
	} {
		out := strings.Join(strings.Fields(ansi.Strip(r.Content(st, s, s.DS.Index(id), false, false))), " ")
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the pane lacks %q:\n%s", id, w, out)
			}
		}
	}
}
