package triage

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// approvalAsk is a session call that answered input_required with a request_state (nothing
// ran), as the sandbox and @composio/core 0.25.0 record it.
func approvalAsk(id string, at time.Duration, state string) model.Execution {
	e := attempt{id: id, at: at, dur: sec(0.3), session: "trs_1", err: &model.ExecError{Kind: model.ErrValidation,
		Message: "Approval required: GMAIL_SEND_EMAIL waits for a person's approval; the tool was not run"}}.exec()
	e.Response = json.RawMessage(`{"data":{},"error":"Approval required","successful":false,"result_type":"input_required",` +
		`"input_requests":[{"id":"ir_1","type":"approval","tool_slug":"GMAIL_SEND_EMAIL"}],"request_state":"` + state + `"}`)
	return e
}

// approvedReCall is the same call made again with the request_state and the person's answer.
func approvedReCall(id string, at time.Duration, state string) model.Execution {
	e := attempt{id: id, at: at, dur: sec(1.1), status: "success", session: "trs_1"}.exec()
	e.Response = json.RawMessage(`{"data":{"id":"m1"},"error":null,"successful":true,"result_type":"completed"}`)
	e.Approval = &model.Approval{RequestState: state, Responses: json.RawMessage(`[{"id":"ir_1","approved":true}]`)}
	return e
}

// TestApprovals: a call that asks for approval waits (not failed, not flagged, never a duplicate
// member); the approved re-call continues it (linked in the timeline); a second re-call with the
// same request_state is a duplicate, named as one approval sent twice; an input_required without
// a state (an account to connect) stays a failure that ran nothing. Every path groups alike.
func TestApprovals(t *testing.T) {
	noState := attempt{id: "conn", at: sec(500), dur: sec(0.2), session: "trs_2", args: `{"recipient_email":"zed@example.com","subject":"x","body":"y"}`,
		err: &model.ExecError{Kind: model.ErrValidation, Message: "Input required: connect an account"}}.exec()
	noState.Response = json.RawMessage(`{"data":{},"error":"Input required","result_type":"input_required"}`)
	tests := []struct {
		name    string
		execs   []model.Execution
		groups  [][]string
		because string // in the group's reason
	}{
		{"asked, then approved", []model.Execution{approvalAsk("ask", 0, "rs_1"), approvedReCall("re1", sec(40), "rs_1")}, nil, ""},
		{"approved re-call sent twice", []model.Execution{approvalAsk("ask", 0, "rs_1"), approvedReCall("re1", sec(40), "rs_1"), approvedReCall("re2", sec(45), "rs_1")},
			[][]string{{"re1", "re2"}}, `2 approved re-calls with one approval (request_state "rs_1")`},
		{"asked twice, each approved once", []model.Execution{approvalAsk("ask", 0, "rs_1"), approvalAsk("ask2", sec(1), "rs_2"), approvedReCall("re1", sec(40), "rs_1")}, nil, ""},
		{"an account to connect stays a failure", []model.Execution{noState}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Analyze(tt.execs, nil, Options{})
			var got [][]string
			for _, g := range res.Groups {
				got = append(got, g.ExecutionIDs)
				if !strings.Contains(g.Reason, tt.because) {
					t.Errorf("group %v: reason %q, want it to say %q", g.ExecutionIDs, g.Reason, tt.because)
				}
			}
			if strings.Join(flat(got), ",") != strings.Join(flat(tt.groups), ",") {
				t.Errorf("groups %v, want %v", got, tt.groups)
			}
			if cg, _ := GroupCandidates(tt.execs, NewKinds(), Options{}); len(cg) != len(res.Groups) {
				t.Errorf("GroupCandidates found %d groups, Analyze %d", len(cg), len(res.Groups))
			}
			for i, e := range tt.execs {
				tr := res.Triage[i]
				switch {
				case e.ID == "conn":
					if tr.Outcome != model.OutcomeFailed || !strings.Contains(tr.Reason, "account to connect") {
						t.Errorf("%s: %s %q", e.ID, tr.Outcome, tr.Reason)
					}
				case strings.HasPrefix(e.ID, "ask"):
					if tr.Outcome != model.OutcomeWaiting || tr.Flagged || tr.GroupID != "" || !strings.Contains(tr.Reason, "approval") {
						t.Errorf("%s: %s flagged=%v group=%q %q", e.ID, tr.Outcome, tr.Flagged, tr.GroupID, tr.Reason)
					}
				default:
					if tr.Outcome != model.OutcomeSucceeded || !strings.Contains(tr.Reason, "approved re-call") {
						t.Errorf("%s: %s %q", e.ID, tr.Outcome, tr.Reason)
					}
				}
			}
			for _, ts := range Timeline(tt.execs) {
				e := tt.execs[ts.Index]
				want := ""
				if e.Approval != nil {
					want = map[string]string{"rs_1": "ask", "rs_2": "ask2"}[e.Approval.RequestState]
				}
				if ts.Continues != want {
					t.Errorf("timeline: %s continues %q, want %q", e.ID, ts.Continues, want)
				}
			}
		})
	}
}

func flat(gs [][]string) []string {
	var out []string
	for _, g := range gs {
		out = append(out, strings.Join(g, "+"))
	}
	return out
}

// TestTheGuardRefusesACallWaitingForApproval: a retry of a call that waits for approval would
// run it without the approval a person has not given.
func TestTheGuardRefusesACallWaitingForApproval(t *testing.T) {
	e := approvalAsk("ask", 0, "rs_1")
	o, why := Classify(&e, model.KindWrite, Options{})
	d := CheckRetry(GuardInput{Execution: &e, Kind: model.KindWrite, Outcome: o, OutcomeReason: why})
	if d.Allowed || !strings.Contains(d.Reason, "approval") {
		t.Fatalf("retry of a call waiting for approval: %+v", d)
	}
}
