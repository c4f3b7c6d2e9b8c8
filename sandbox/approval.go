package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Approvals, as a tool-router session that requires them runs a call (docs/platform.md, "Tool-router sessions"):
//
//	POST …/session/{id}/execute {tool_slug, arguments}
//	  → 200 {data:{}, error, log_id, result_type:"input_required",
//	         input_requests:[{id, type:"approval", tool_slug, message, expires_at}], request_state}
//	    nothing runs; the log says failed with that answer
//	POST …/session/{id}/execute {tool_slug, arguments, request_state, input_responses:[{id, approved}]}
//	  → the call runs (faults apply) and its log's data.request carries the state and the answers
//
// A state answers for one session, tool, account and arguments; it is refused once it expired,
// for another call, or with a request left unanswered. It is not used up: the platform runs a
// second approved re-call as it runs the first (what makes it a duplicate).

// DefaultApprovalTTL is how long an approval request stays open.
const DefaultApprovalTTL = 10 * time.Minute

// approvalState is one open approval request.
type approvalState struct {
	session, tool, account string
	args                   []byte // the arguments, compacted
	requests               []string
	expires                time.Time
}

// asked is what an execution that waits for approval answered: its requests and state.
type asked struct {
	requests []map[string]any
	state    string
}

// needsApproval reports whether the sandbox's approval rules cover tool.
func (s *Server) needsApproval(tool *toolDef) bool {
	for _, rule := range s.cfg.Approvals {
		rule = strings.TrimSpace(rule)
		if rule != "" && (strings.EqualFold(rule, tool.slug) || strings.EqualFold(rule, tool.toolkit) || slices.Contains(tool.tags, rule)) {
			return true
		}
	}
	return false
}

// inputResponse is one answer of input_responses.
type inputResponse struct {
	ID       string `json:"id"`
	Approved *bool  `json:"approved"`
}

// approvalReply is a re-call's request_state and input_responses ("" and nil: a first call).
type approvalReply struct {
	state     string
	responses json.RawMessage
}

// approve decides a session execution under the approval rules, before anything runs: a first
// call of a tool that needs approval asks for it (answered here, true); a re-call with a
// request_state is checked (refused here, true) or, approved, marked on the attempt to run
// (false). Calls the rules do not cover, without a state, run as they are (false).
func (s *Server) approve(w http.ResponseWriter, r *http.Request, a *attempt, reply approvalReply) bool {
	if reply.state == "" && reply.responses == nil {
		if !s.needsApproval(a.tool) {
			return false
		}
		s.askApproval(w, a)
		return true
	}
	if reply.state == "" {
		s.writeError(
			w,
			r,
			http.StatusBadRequest,
			1400,
			"ToolRouter_MissingRequestState",
			"input_responses were sent without the request_state they answer",
			"Send the request_state of the input_required answer with the input_responses.",
		)
		return true
	}
	s.mu.Lock()
	st := s.approvals[reply.state]
	now := s.clock()
	s.mu.Unlock()
	args := compactJSON(a.args)
	switch {
	case st == nil:
		s.writeError(w, r, http.StatusBadRequest, 1400, "ToolRouter_InvalidRequestState", "request_state "+reply.state+" is unknown",
			"Send the request_state of an input_required answer of this session.")
		return true
	case !now.Before(st.expires):
		s.writeError(
			w,
			r,
			http.StatusBadRequest,
			1400,
			"ToolRouter_RequestStateExpired",
			"request_state "+reply.state+" expired at "+st.expires.UTC().Format(time.RFC3339),
			"Make the call again without request_state to ask for approval anew.",
		)
		return true
	case st.session != a.sessionID || st.tool != a.tool.slug || st.account != a.acct.id || !bytes.Equal(st.args, args):
		s.writeError(
			w,
			r,
			http.StatusBadRequest,
			1400,
			"ToolRouter_RequestStateMismatch",
			"request_state "+reply.state+" was given for another call",
			"Repeat the same call (tool, account and arguments) that answered input_required.",
		)
		return true
	}
	var answers []inputResponse
	if reply.responses != nil && json.Unmarshal(reply.responses, &answers) != nil {
		s.writeError(
			w,
			r,
			http.StatusBadRequest,
			1400,
			"ToolRouter_InvalidInputResponses",
			"input_responses must be a list of {id, approved}",
			"Answer each input request: [{\"id\": …, \"approved\": true}].",
		)
		return true
	}
	approved := true
	for _, id := range st.requests {
		i := slices.IndexFunc(answers, func(x inputResponse) bool { return x.ID == id })
		if i < 0 || answers[i].Approved == nil {
			s.writeError(w, r, http.StatusBadRequest, 1400, "ToolRouter_InputResponsesMissing", "input request "+id+" has no answer",
				"Answer every input request of the input_required answer.")
			return true
		}
		approved = approved && *answers[i].Approved
	}
	a.approval = &model.Approval{RequestState: reply.state, Responses: reply.responses}
	if !approved { // a person said no: nothing runs
		a.failure = &model.ExecError{Kind: model.ErrValidation, Message: "Denied by the approver: the tool was not run"}
		s.finish(a)
		writeJSON(
			w,
			http.StatusOK,
			map[string]any{"data": map[string]any{}, "error": a.failure.Message, "log_id": a.logID, "result_type": "failed"},
		)
		return true
	}
	return false
}

// askApproval answers a first call that needs approval: input_required, with one approval
// request and a new request_state; nothing runs.
func (s *Server) askApproval(w http.ResponseWriter, a *attempt) {
	ttl := orDefault(s.cfg.ApprovalTTL, DefaultApprovalTTL)
	var b [12]byte
	_, _ = rand.Read(b[:])
	state := "rs_" + hex.EncodeToString(b[:])
	_, _ = rand.Read(b[:8])
	reqID := "ir_" + hex.EncodeToString(b[:8])
	s.mu.Lock()
	expires := s.clock().Add(ttl)
	s.approvals[state] = &approvalState{session: a.sessionID, tool: a.tool.slug, account: a.acct.id, args: compactJSON(a.args),
		requests: []string{reqID}, expires: expires}
	s.mu.Unlock()
	a.resultType = ResultInputRequired
	a.asked = &asked{state: state, requests: []map[string]any{{"id": reqID, "type": "approval", "tool_slug": a.tool.slug,
		"message": "Approve " + a.tool.slug + " for user " + a.userID + "?", "expires_at": expires.UTC().Format(time.RFC3339Nano)}}}
	a.failure = &model.ExecError{
		Kind:    model.ErrValidation,
		Message: "Approval required: " + a.tool.slug + " waits for a person's approval; the tool was not run",
	}
	s.finish(a)
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{}, "error": a.failure.Message, "log_id": a.logID,
		"result_type": a.resultType, "input_requests": a.asked.requests, "request_state": state})
}

// compactJSON is raw without insignificant space (raw itself when it is not JSON).
func compactJSON(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
