package triage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/exectriage/exectriage/model"
	"pgregory.net/rapid"
)

// analyzeReference is Analyze as first written: every groupable write's arguments hashed and
// bucketed, no pre-filtering by caller and window. Analyze must give exactly its result.
func analyzeReference(execs []model.Execution, kinds *Kinds, opt Options) *Result {
	opt = opt.WithDefaults()
	res := &Result{Triage: make([]model.Triage, len(execs)), byID: map[string]int{}}
	outcomes := make([]model.Outcome, len(execs))
	buckets := map[string][]int{}
	var members [][]int // each group's members, as indices
	for i := range execs {
		e := &execs[i]
		k := kinds.Kind(e.ToolSlug)
		out, reason := Classify(e, k, opt)
		outcomes[i] = out
		res.Triage[i] = model.Triage{Kind: k, Outcome: out, Flagged: k.IsWrite() && (out == model.OutcomeAmbiguous || out == model.OutcomeRejected), Reason: reason, OldSDK: OldSDK(e)}
		if key, _, ok := effectKey(e, k, opt.VolatileKeys, skipSet(opt.VolatileKeys), kinds.Roles(e.ToolSlug)); ok {
			buckets[key] = append(buckets[key], i)
		}
	}
	for key, idx := range buckets {
		if len(idx) < 2 {
			continue
		}
		slices.SortFunc(idx, func(a, b int) int { return execOrder(&execs[a], &execs[b]) })
		parts := map[int]effectArgs{}
		for _, i := range idx {
			_, parts[i], _ = effectKey(&execs[i], res.Triage[i].Kind, opt.VolatileKeys, skipSet(opt.VolatileKeys), kinds.Roles(execs[i].ToolSlug))
		}
		groups, in := groupBucket(key, execs, outcomes, idx, parts, opt)
		for k, g := range groups {
			for _, i := range in[k] {
				res.Triage[i].GroupID = g.ID
			}
			res.Groups = append(res.Groups, g)
			members = append(members, in[k])
		}
	}
	sentDraftsRef(res, execs, outcomes, members, opt)
	batchReplaysRef(res, execs, members)
	orderGroupsRef(res, execs)
	return res
}

// sentDraftsRef is attachSentDrafts over finished groups: each group whose draft followed an
// attempt that did not succeed takes, drafts in time order, the first GMAIL_SEND_DRAFT of the
// draft's account after it, within the window, in no group, naming no other draft.
func sentDraftsRef(res *Result, execs []model.Execution, outcomes []model.Outcome, members [][]int, opt Options) {
	grouped := map[int]bool{}
	for _, in := range members {
		for _, i := range in {
			grouped[i] = true
		}
	}
	type drafted struct{ g, d int }
	var ds []drafted
	for g, in := range members {
		for j := len(in) - 1; j > 0; j-- {
			if strings.ToUpper(execs[in[j]].ToolSlug) == "GMAIL_CREATE_EMAIL_DRAFT" && outcomes[in[j-1]] != model.OutcomeSucceeded {
				ds = append(ds, drafted{g, in[j]})
				break
			}
		}
	}
	sort.Slice(ds, func(a, b int) bool { return execOrder(&execs[ds[a].d], &execs[ds[b].d]) < 0 })
	for _, x := range ds {
		draft := &execs[x.d]
		best := -1
		for i := range execs {
			e := &execs[i]
			if grouped[i] || strings.ToUpper(e.ToolSlug) != "GMAIL_SEND_DRAFT" || !res.Triage[i].Kind.IsWrite() || !isGroupable(e, res.Triage[i].Kind) ||
				e.ConnectedAccountID != draft.ConnectedAccountID || e.UserID != draft.UserID || e.Start().Before(draft.Start()) || e.Start().Sub(lastSeen(draft)) > opt.Window {
				continue
			}
			if best < 0 || execOrder(e, &execs[best]) < 0 {
				best = i
			}
		}
		if best < 0 {
			continue
		}
		grouped[best] = true
		in := append(members[x.g], best)
		sort.Slice(in, func(a, b int) bool { return execOrder(&execs[in[a]], &execs[in[b]]) < 0 })
		members[x.g] = in
		g := &res.Groups[x.g]
		ms := make([]member, len(in))
		g.ExecutionIDs = nil
		for j, i := range in {
			ms[j] = member{e: &execs[i], outcome: outcomes[i]}
			g.ExecutionIDs = append(g.ExecutionIDs, execs[i].ID)
			res.Triage[i].GroupID = g.ID
		}
		g.Gaps = make([]time.Duration, len(in)-1)
		for j := 1; j < len(in); j++ {
			g.Gaps[j-1] = gapAfter(ms[j-1].e, ms[j].e, opt.CallerTimeout)
		}
		g.Pattern, g.Reason, g.OtherCauses = patternOf(ms, g.Gaps, true, causeContext{deliveries: opt.Deliveries, runs: opt.MetaRuns,
			timeout: opt.CallerTimeout, window: opt.Window, th: opt.Thresholds})
	}
}

// batchReplaysRef is nameBatchReplays over finished groups: a caller's pairs (groups of two,
// the second send at least batchReplayAfter after the first), by second send; a run of three or
// more whose second sends are each within batchReplaySpread of the one before is a replayed
// batch, and its double submits are the app's retry.
func batchReplaysRef(res *Result, execs []model.Execution, members [][]int) {
	type pair struct {
		g             int
		first, second time.Time
	}
	byCaller := map[string][]pair{}
	for gi, g := range res.Groups {
		if len(g.ExecutionIDs) != 2 {
			continue
		}
		a, b := &execs[members[gi][0]], &execs[members[gi][1]]
		if b.Start().Sub(a.Start()) < batchReplayAfter {
			continue
		}
		who := "account:" + a.ConnectedAccountID
		if a.ConnectedAccountID == "" {
			who = "user:" + a.UserID
		}
		byCaller[who] = append(byCaller[who], pair{gi, a.Start(), b.Start()})
	}
	for _, ps := range byCaller {
		sort.Slice(ps, func(i, j int) bool {
			if !ps[i].second.Equal(ps[j].second) {
				return ps[i].second.Before(ps[j].second)
			}
			return res.Groups[ps[i].g].ID < res.Groups[ps[j].g].ID
		})
		for lo := 0; lo < len(ps); {
			hi := lo + 1
			for hi < len(ps) && ps[hi].second.Sub(ps[hi-1].second) <= batchReplaySpread {
				hi++
			}
			if hi-lo >= batchReplayMin {
				first := ps[lo].first
				for _, p := range ps[lo:hi] {
					if p.first.Before(first) {
						first = p.first
					}
				}
				for _, p := range ps[lo:hi] {
					if g := &res.Groups[p.g]; g.Pattern == model.PatternDoubleSubmit {
						nameBatchReplay(g, hi-lo, first, ps[lo].second)
					}
				}
			}
			lo = hi
		}
	}
}

// orderGroupsRef sorts groups by their oldest member's start, then id, and indexes them.
func orderGroupsRef(r *Result, execs []model.Execution) {
	first := make(map[string]time.Time, 2*len(r.Groups))
	for i := range execs {
		if r.Triage[i].GroupID != "" {
			if t, ok := first[r.Triage[i].GroupID]; !ok || execs[i].Start().Before(t) {
				first[r.Triage[i].GroupID] = execs[i].Start()
			}
		}
	}
	slices.SortFunc(r.Groups, func(a, b model.DuplicateGroup) int {
		if c := first[a.ID].Compare(first[b.ID]); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	for i, g := range r.Groups {
		r.byID[g.ID] = i
	}
}

func sameResult(t interface {
	Helper()
	Fatalf(string, ...any)
}, got, want *Result) {
	t.Helper()
	if !reflect.DeepEqual(got.Triage, want.Triage) {
		for i := range got.Triage {
			if got.Triage[i] != want.Triage[i] {
				t.Fatalf("triage[%d] = %+v, reference %+v", i, got.Triage[i], want.Triage[i])
			}
		}
	}
	// Groups with the same id (from executions with the same id) have no defined order
	// between them: compare those as sets.
	canon := func(gs []model.DuplicateGroup) []model.DuplicateGroup {
		gs = slices.Clone(gs)
		slices.SortStableFunc(gs, func(a, b model.DuplicateGroup) int {
			if a.ID != b.ID {
				return 0
			}
			return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
		})
		return gs
	}
	if !reflect.DeepEqual(canon(got.Groups), canon(want.Groups)) {
		t.Fatalf("groups differ:\n got %+v\nwant %+v", got.Groups, want.Groups)
	}
}

func TestAnalyzeMatchesReferenceOnSyntheticHistory(t *testing.T) {
	execs := syntheticHistory(40_000, 3) // two classifying goroutines or more, where there are cores
	for _, w := range []time.Duration{0, time.Second, 10 * time.Minute, 24 * time.Hour} {
		opt := Options{Window: w}
		sameResult(t, Analyze(execs, NewKinds(), opt), analyzeReference(execs, NewKinds(), opt))
	}
}

// TestAnalyzeMatchesReference draws small histories crowded onto a few callers, tools and
// argument sets, with ties, missing ends, user-only callers and duplicate ids.
func TestAnalyzeMatchesReference(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		execs, opt := crowdedHistory(rt)
		sameResult(rt, Analyze(execs, NewKinds(), opt), analyzeReference(execs, NewKinds(), opt))
	})
}

// crowdedHistory draws a small history crowded onto a few callers, tools and argument sets.
func crowdedHistory(rt *rapid.T) ([]model.Execution, Options) {
	seed := rapid.Uint64().Draw(rt, "seed")
	n := rapid.IntRange(0, 60).Draw(rt, "n")
	window := time.Duration(rapid.IntRange(-2, 120).Draw(rt, "window_s")) * time.Second
	r := rand.New(rand.NewPCG(seed, 7))
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	slugs := []string{"GMAIL_SEND_EMAIL", "gmail_send_email", "SLACK_SEND_MESSAGE", "GMAIL_FETCH_EMAILS", "OUTLOOK_SEND_EMAIL", "GMAIL_CREATE_EMAIL_DRAFT", "GMAIL_SEND_DRAFT"}
	bodies := []string{"", `,"body":"Your order A-78274 shipped on March 14, tracking 1Z999AA10123456784"`,
		`,"body":"Seu pedido A-78274 foi enviado em 14 de março, rastreamento 1Z999AA10123456784"`, `,"body":"Your order A-78275 shipped on March 14"`}
	execs := make([]model.Execution, n)
	for i := range execs {
		start := base.Add(time.Duration(r.IntN(600)) * time.Second / 2)
		e := model.Execution{
			ID: fmt.Sprintf("log_%d", r.IntN(n+1)), ToolSlug: slugs[r.IntN(len(slugs))], StartTime: start, Timestamp: start,
			Status: []string{"success", "failed", ""}[r.IntN(3)], RetryCount: r.IntN(4) - 1, Detailed: r.IntN(5) > 0,
			Arguments: json.RawMessage(fmt.Sprintf(`{"to":"u%d@example.com","timestamp":"%d"%s}`, r.IntN(2), r.IntN(99), bodies[r.IntN(len(bodies))])),
		}
		switch r.IntN(4) {
		case 0:
			e.ConnectedAccountID = fmt.Sprintf("ca_%d", r.IntN(2))
		case 1:
			e.UserID = fmt.Sprintf("user_%d", r.IntN(2))
		case 2: // both: an email family's caller is the user, its accounts kept apart in the bucket
			e.ConnectedAccountID, e.UserID = fmt.Sprintf("ca_%d", r.IntN(3)), fmt.Sprintf("user_%d", r.IntN(2))
		}
		if r.IntN(2) == 0 {
			e.Duration, e.HasDuration = time.Duration(r.IntN(90))*time.Second, true
		}
		if r.IntN(3) == 0 {
			e.EndTime = start.Add(time.Duration(r.IntN(120)-10) * time.Second)
		}
		if r.IntN(4) == 0 {
			e.Error = &model.ExecError{Kind: model.ErrTimeout}
		}
		if r.IntN(6) == 0 {
			e.Arguments = json.RawMessage(`not json`)
		}
		execs[i] = e
	}
	return execs, Options{Window: window}
}

// responseSaysFailed is responseFailure's and responseDataFailure's decoding without the
// shortcut: successful:false, or data that is the provider's failure.
func responseSaysFailed(resp []byte) bool {
	var r struct {
		Successful *bool           `json:"successful"`
		Data       json.RawMessage `json:"data"`
		Status     json.RawMessage `json:"status"`
	}
	if json.Unmarshal(resp, &r) != nil {
		return false
	}
	_, inData := ReadDataFailure(r.Data)
	relayed := r.Successful == nil && httpCode(r.Status) >= 400 // a proxy's answer
	return r.Successful != nil && !*r.Successful || inData || relayed
}

func TestResponseMayFailNeverMissesAFailure(t *testing.T) {
	for _, resp := range []string{
		`{"successful":false}`, `{"Successful" : false}`, `{"SUCCESSFUL":	false,"error":"x"}`, `{"data":{"ok":false},"successful":true}`,
		`{"\u0073uccessful":false}`, `{"ſuccessful":false}`, `{"data":"successful: false","successful":false}`, `{"successful":true}`,
		`{"a":"\"successful\":false"}`, `{"successful":"false"}`, `{"successful":null,"x":false}`, `{"successful":false`,
	} {
		if responseSaysFailed([]byte(resp)) && !ResponseMayFail([]byte(resp)) {
			t.Errorf("ResponseMayFail(%s) = false, but it says successful:false", resp)
		}
	}
	for _, resp := range []string{`{"data":{"has_more":false},"error":null,"successful":true}`, `{"data":{"archived":false}}`,
		// what providers answer: false flags and escaped, non-ASCII text below the top level
		`{"data":{"user":{"site_admin":false,"successful":false},"body":"caf\u00e9 “quoted” \"x\"\n\tnaïve","labels":[{"a":false}],"ok":true},"error":null,"successful":true}`,
		// a data's own envelope members, empty or saying no failure
		`{"data":{"error":null,"errors":[ ],"error_message":"","status":"COMPLETE","code":200,"success":true},"successful":true}`,
		`{"data":[false,"\\",{"ſuccessful":false}],"successful":true}`} {
		if ResponseMayFail([]byte(resp)) {
			t.Errorf("ResponseMayFail(%s) = true: a plain success response should need no decoding", resp)
		}
	}
	// a session's result_type is read too (nothingRan): a call that ran nothing, or waits for approval
	for _, resp := range []string{`{"data":{},"error":null,"result_type":"blocked"}`, `{"data":{},"resultType":"input_required","request_state":"rs_1"}`,
		`{"RESULT_type":"input_required"}`} {
		e := model.Execution{Response: json.RawMessage(resp)}
		if why, _ := nothingRan(e.Response); why != "" && !ResponseMayFail([]byte(resp)) {
			t.Errorf("ResponseMayFail(%s) = false, but triage reads its result_type", resp)
		}
	}
	if ResponseMayFail([]byte(`{"data":{"results":[1,2]},"error":null,"successful":true}`)) {
		t.Error("a success whose data holds results needs no decoding")
	}
	rapid.Check(t, func(rt *rapid.T) {
		key := rapid.SampledFrom([]string{`"successful"`, `"Successful"`, `"sUcCeSsFuL"`, `"\u0073uccessful"`, `"ſuccessful"`, `"success"`, `"data"`}).Draw(rt, "key")
		val := rapid.SampledFrom([]string{"false", "true", "null", `"false"`, "0", `{"x":false}`}).Draw(rt, "val")
		ws := rapid.SampledFrom([]string{"", " ", "\n\t", "\r "}).Draw(rt, "ws")
		other := rapid.SampledFrom([]string{"", `"data":{"ok":false},`, `"error":"boom",`, `"n":"successful",`,
			`"data":{"t":"caf\u00e9 \"}\" ]","x":[false,{"successful":false}]},`, `"n":-1.5e3,`, `"ſ":"\\",`, `"d":"}",`,
			`"data":{"error":"x"},`, `"DATA":{"Error_Message":{"m":1}},`, `"data":{"status":"404"},`, `"data":{"errors":[ ]},`,
			`"data":{"code":503,"n":[1]},`, `"data":{"ſuccess":false},`, `"data":{"\u006fk":false},`, `"data":{"error":"","ok":true},`,
			`"status":404,`, `"Status":"503",`, `"\u0073tatus":502,`, `"status":200,`}).Draw(rt, "other")
		resp := "{" + other + key + ws + ":" + ws + val + "}"
		if responseSaysFailed([]byte(resp)) && !ResponseMayFail([]byte(resp)) {
			rt.Fatalf("ResponseMayFail(%s) = false, but it says successful:false", resp)
		}
	})
}

// The one-pass parser's decision from a response's keys (ResponseKeyMayFail) keeps every
// response ResponseMayFail keeps, the failures and the sessions' results among them.
func TestResponseKeysKeepWhatTheWalkKeeps(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		key := rapid.SampledFrom([]string{`"successful"`, `"Successful"`, `"sUcCeSsFuL"`, `"\u0073uccessful"`, `"ſuccessful"`, `"success"`,
			`"data"`, `"result_type"`, `"resultType"`, `"RESULT_type"`, `"résult"`}).Draw(rt, "key")
		val := rapid.SampledFrom([]string{"false", "true", "null", `"false"`, `"blocked"`, "0", `{"x":false}`}).Draw(rt, "val")
		other := rapid.SampledFrom([]string{"", `"data":{"ok":false},`, `"error":"boom",`, `"n":"successful",`,
			`"data":{"t":"caf\u00e9 \"}\" ]","x":[false,{"successful":false}]},`, `"ſ":"\\",`, `"error":null,`,
			`"data":{"error":"x"},`, `"DATA":{"Error_Message":{"m":1}},`, `"data":{"status":"404"},`, `"data":{"errors":[ ]},`,
			`"data":{"code":503,"n":[1]},`, `"data":{"ſuccess":false},`, `"data":{"\u006fk":false},`, `"data":{"error":"","ok":true},`,
			`"status":404,`, `"Status":"503",`, `"\u0073tatus":502,`, `"status":200,`}).Draw(rt, "other")
		resp := "{" + other + key + ":" + val + "}"
		rec := []byte(`{"id":"log_1","status":"failed","data":{"response":` + resp + `}}`)
		walk := model.Parser{KeepResponse: ResponseMayFail}
		keys := model.Parser{KeepResponse: ResponseMayFail, KeepResponseKey: ResponseKeyMayFail}
		a, errA := walk.Parse(rec)
		b, errB := keys.Parse(rec)
		if errA != nil || errB != nil {
			rt.Fatalf("%s: %v, %v", rec, errA, errB)
		}
		if a.Response != nil && b.Response == nil {
			rt.Fatalf("%s: the walk keeps the response, the keys drop it", resp)
		}
		e := model.Execution{Response: json.RawMessage(resp)}
		if why, _ := nothingRan(e.Response); (responseSaysFailed([]byte(resp)) || why != "") && b.Response == nil {
			rt.Fatalf("%s: a failure or a session's result dropped", resp)
		}
	})
}

// skipString (quote to quote) ends a string where stringEnd (byte by byte) does, whatever the
// backslashes, quotes and bytes in it.
func TestSkipStringEndsWhereStringEndDoes(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		parts := rapid.SliceOf(rapid.SampledFrom([]string{`\`, `\\`, `\"`, `"`, `a`, `é`, `\u005c`, ` `, `}`, `\\\"`})).Draw(rt, "parts")
		b := []byte(`"` + strings.Join(parts, ""))
		want, _ := stringEnd(b, 0)
		if got := skipString(b, 0); got != want {
			rt.Fatalf("skipString(%s) = %d, stringEnd %d", b, got, want)
		}
	})
}

// incrementalResult runs Incremental over execs and shapes its answer like Analyze's.
func incrementalResult(t interface{ Fatalf(string, ...any) }, execs []model.Execution, opt Options) *Result {
	return incrementalResultWith(t, execs, NewKinds(), opt)
}

// incrementalResultWith is incrementalResult with the kinds (and the tools' definitions) given.
func incrementalResultWith(t interface{ Fatalf(string, ...any) }, execs []model.Execution, kinds *Kinds, opt Options) *Result {
	a := NewIncremental(kinds, opt)
	res := &Result{Triage: make([]model.Triage, len(execs))}
	for i := range execs {
		res.Triage[i] = a.Add(&execs[i])
	}
	var fetches atomic.Int64 // Groups fetches on every core
	groups, members, err := a.Groups(context.Background(), func(_ context.Context, pos int) (model.Execution, error) {
		fetches.Add(1)
		return execs[pos], nil
	})
	if err != nil {
		t.Fatalf("Groups: %v", err)
	}
	for gi, g := range groups {
		for _, pos := range members[gi] {
			res.Triage[pos].GroupID = g.ID
		}
	}
	if len(groups) == 0 {
		groups = nil
	}
	res.Groups = groups
	return res
}

func TestIncrementalMatchesAnalyze(t *testing.T) {
	execs := syntheticHistory(40_000, 5)
	for _, w := range []time.Duration{0, time.Second, 10 * time.Minute} {
		opt := Options{Window: w}
		sameResult(t, incrementalResult(t, execs, opt), Analyze(execs, NewKinds(), opt))
	}
	rapid.Check(t, func(rt *rapid.T) {
		execs, opt := crowdedHistory(rt)
		sameResult(rt, incrementalResult(rt, execs, opt), Analyze(execs, NewKinds(), opt))
	})
}

func TestIncrementalFetchesOnlyCandidates(t *testing.T) {
	execs := syntheticHistory(20_000, 6)
	a := NewIncremental(nil, Options{})
	for i := range execs {
		a.Add(&execs[i])
	}
	var fetches atomic.Int64
	var mu sync.Mutex
	times := map[int]int{} // fetches of each position
	groups, _, err := a.Groups(context.Background(), func(_ context.Context, pos int) (model.Execution, error) {
		fetches.Add(1)
		mu.Lock()
		times[pos]++
		mu.Unlock()
		return execs[pos], nil
	})
	if err != nil || len(groups) == 0 {
		t.Fatalf("%d groups, %v", len(groups), err)
	}
	if fetches.Load() > int64(len(execs)/4) {
		t.Errorf("%d fetches for %d executions: should be the few near-repeats", fetches.Load(), len(execs))
	}
	for pos, n := range times {
		if n > 1 {
			t.Fatalf("position %d fetched %d times: each candidate is fetched once", pos, n)
		}
	}
	stop := errors.New("stop")
	if _, _, err := a.Groups(context.Background(), func(context.Context, int) (model.Execution, error) { return model.Execution{}, stop }); !errors.Is(err, stop) {
		t.Errorf("fetch error: %v", err)
	}
}

// TestIncrementalDropMatchesAnalyze: executions added twice (the first copy dropped, as a
// streaming view does when a record arrives again) group exactly as Analyze groups the
// executions without the dropped copies.
func TestIncrementalDropMatchesAnalyze(t *testing.T) {
	execs := syntheticHistory(20_000, 7)
	opt := Options{}
	a := NewIncremental(NewKinds(), opt)
	var stream []model.Execution // every copy, in the order added
	for i := range execs {
		a.Add(&execs[i])
		stream = append(stream, execs[i])
	}
	// Every third execution arrives again: its first copy is dropped.
	final := map[string]int{}
	for i := range execs {
		final[execs[i].ID] = i
	}
	dropped := 0
	for i := 0; i < len(execs); i += 3 {
		a.Drop(final[execs[i].ID])
		final[execs[i].ID] = len(stream)
		a.Add(&execs[i])
		stream = append(stream, execs[i])
		dropped++
	}
	groups, members, err := a.Groups(context.Background(), func(_ context.Context, pos int) (model.Execution, error) {
		return stream[pos], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Analyze(execs, NewKinds(), opt)
	if len(groups) != len(want.Groups) || len(groups) == 0 {
		t.Fatalf("%d groups after %d drops, Analyze finds %d", len(groups), dropped, len(want.Groups))
	}
	for gi, g := range groups {
		if g.ID != want.Groups[gi].ID || !slices.Equal(g.ExecutionIDs, want.Groups[gi].ExecutionIDs) || g.Pattern != want.Groups[gi].Pattern {
			t.Fatalf("group %d: %+v, Analyze %+v", gi, g, want.Groups[gi])
		}
		for _, pos := range members[gi] {
			if final[stream[pos].ID] != pos {
				t.Fatalf("group %s has a dropped copy (position %d)", g.ID, pos)
			}
		}
	}
}

// candidateResult is what a streaming scan does: classify each execution alone, keep spans of
// the groupable writes, and group only the full records of the candidates, taken in a
// shuffled order.
func candidateResult(t interface{ Fatalf(string, ...any) }, execs []model.Execution, opt Options, seed uint64) *Result {
	res := &Result{Triage: make([]model.Triage, len(execs)), byID: map[string]int{}}
	c := NewClassifier(NewKinds(), opt)
	callers := NewCallers()
	var spans []WriteSpan
	for i := range execs {
		var groupable bool
		res.Triage[i], groupable = c.Classify(&execs[i])
		if groupable {
			spans = append(spans, SpanOf(&execs[i], res.Triage[i].Outcome, callers.Of(&execs[i]), int32(i)))
		}
	}
	cand, ends := Candidates(spans, opt.WithDefaults().Window, opt.WithDefaults().RetryReach, func(ref int32) string { return execs[ref].ID })
	if len(cand) > 0 && (len(ends) == 0 || ends[len(ends)-1] != len(cand)) {
		t.Fatalf("caller runs end at %v, of %d candidates", ends, len(cand))
	}
	rand.New(rand.NewPCG(seed, 3)).Shuffle(len(cand), func(a, b int) { cand[a], cand[b] = cand[b], cand[a] })
	full := make([]model.Execution, len(cand))
	for k, r := range cand {
		full[k] = execs[r]
	}
	groups, of := GroupCandidates(full, NewKinds(), opt)
	for k, r := range cand {
		if of[k] != "" {
			if res.Triage[r].GroupID != "" && res.Triage[r].GroupID != of[k] {
				t.Fatalf("candidate %d given two groups", r)
			}
			res.Triage[r].GroupID = of[k]
		}
	}
	res.Groups = groups
	return res
}

// The streaming scan's way (candidates only, any order) finds exactly Analyze's groups.
func TestCandidatesMatchAnalyze(t *testing.T) {
	execs := syntheticHistory(40_000, 9)
	for _, w := range []time.Duration{0, time.Second, 10 * time.Minute, 24 * time.Hour} {
		opt := Options{Window: w}
		sameResult(t, candidateResult(t, execs, opt, 1), Analyze(execs, NewKinds(), opt))
	}
	rapid.Check(t, func(rt *rapid.T) {
		execs, opt := crowdedHistory(rt)
		sameResult(rt, candidateResult(rt, execs, opt, rapid.Uint64().Draw(rt, "shuffle")), analyzeReference(execs, NewKinds(), opt))
	})
}

// Reserve makes room for the writes of a load at once: recording them moves no array, and the
// groups are those of an incremental triage growing as it goes.
func TestIncrementalReserve(t *testing.T) {
	execs := syntheticHistory(5000, 3)
	a := NewIncremental(NewKinds(), Options{})
	a.Reserve(len(execs))
	writes := unsafe.SliceData(a.writes)
	ts, groupable := a.Classify(execs)
	for i := range execs {
		a.Record(&execs[i], ts[i], groupable[i])
	}
	if len(a.writes) == 0 || unsafe.SliceData(a.writes) != writes {
		t.Errorf("%d writes recorded; the array moved: %v", len(a.writes), unsafe.SliceData(a.writes) != writes)
	}
	grown := NewIncremental(NewKinds(), Options{})
	for i := range execs {
		grown.Add(&execs[i])
	}
	fetch := func(_ context.Context, pos int) (model.Execution, error) { return execs[pos], nil }
	g1, m1, err1 := a.Groups(context.Background(), fetch)
	g2, m2, err2 := grown.Groups(context.Background(), fetch)
	if err1 != nil || err2 != nil || len(g2) == 0 || !reflect.DeepEqual(g1, g2) || !reflect.DeepEqual(m1, m2) {
		t.Errorf("groups differ from a growing triage's: %d and %d groups (%v, %v)", len(g1), len(g2), err1, err2)
	}
}

// Classify keeps its Classifiers (and their memos) and its slices from batch to batch: a
// batch like the one before allocates next to nothing, and triages as Add does.
func TestClassifyKeepsItsClassifiers(t *testing.T) {
	batch := make([]model.Execution, 4*classifyMinBatch)
	for i := range batch {
		batch[i] = model.Execution{ID: fmt.Sprintf("log_%d", i), ToolSlug: "GMAIL_SEND_EMAIL", Status: "success",
			Duration: time.Duration(i) * time.Millisecond, HasDuration: true}
	}
	a := NewIncremental(NewKinds(), Options{})
	a.Classify(batch)
	if allocs := testing.AllocsPerRun(5, func() { a.Classify(batch) }); allocs > 50 {
		t.Errorf("a batch like the last allocates %.0f times", allocs)
	}
	ts, _ := a.Classify(batch)
	ref := NewIncremental(NewKinds(), Options{})
	for i := range batch {
		if want := ref.Add(&batch[i]); !reflect.DeepEqual(ts[i], want) {
			t.Fatalf("record %d: %+v, Add gives %+v", i, ts[i], want)
		}
	}
}

// A Classifier quotes each error text once and gives the reasons Classify gives without a
// memo: failures of every kind, with texts that repeat.
func TestClassifierQuotesEachTextOnce(t *testing.T) {
	texts := []string{"Request timed out after 30s", "upstream 502 Bad Gateway", "ECONNRESET: socket hang up", "invalid_grant: token expired",
		"rate limit exceeded", "something odd happened", "  spaced\tout\ntext  ", "password=hunter2 in the error"}
	kinds := []model.ErrorKind{"", model.ErrTimeout, model.ErrUpstream5xx, model.ErrConnection, model.ErrAuth}
	c := NewClassifier(NewKinds(), Options{})
	quoted := 0
	for i := range 400 {
		e := model.Execution{ID: fmt.Sprintf("log_%d", i), ToolSlug: "GMAIL_SEND_EMAIL", Status: "failed",
			Error: &model.ExecError{Message: texts[i%len(texts)], Kind: kinds[i%len(kinds)], HTTPStatus: []int{0, 500, 404, 409}[i%4]}}
		got, _ := c.Classify(&e)
		o, reason := Classify(&e, NewKinds().Kind(e.ToolSlug), Options{})
		if got.Outcome != o || got.Reason != reason {
			t.Fatalf("record %d: %s %q, Classify says %s %q", i, got.Outcome, got.Reason, o, reason)
		}
		if strings.Contains(reason, `"`) {
			quoted++
		}
	}
	if quoted < 100 {
		t.Fatalf("only %d of 400 reasons quote their text: the comparison says little", quoted)
	}
	if len(c.memo.quotes) == 0 || len(c.memo.quotes) > len(texts) {
		t.Errorf("%d texts quoted for %d distinct ones", len(c.memo.quotes), len(texts))
	}
}

// FuzzResponseMayFail: whatever the bytes, a response the decoder reads as successful:false is
// never answered "cannot fail" by the shortcut.
func FuzzResponseMayFail(f *testing.F) {
	for _, s := range []string{`{"successful":false}`, `{"data":{"x":false},"ſuccessful" :false}`, `{"a":"\"}","Successful":false}`, `{"a":[{"b":"]"}],"successful":false}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, resp []byte) {
		if responseSaysFailed(resp) && !ResponseMayFail(resp) {
			t.Fatalf("ResponseMayFail(%q) = false, but it says successful:false", resp)
		}
	})
}
