package triage_test

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/triage"
)

// score compares triage with the sandbox's ground truth for one generated history.
type score struct {
	ambiguousWrites, ambiguousFlagged int
	readsFlagged                      int
	extraFlagged, extraRejected       int // flagged writes the truth calls unambiguous
	truthGroups, predGroups, exact    int
	patternRight                      int
	sdkOldNoted, sdkGroups            int
	agentRight, agentGroups           int // agent re-sends with regenerated text
	mismatches                        []string
}

func scoreHistory(t *testing.T, seed int64, size int, strip bool) score {
	t.Helper()
	srv, err := sandbox.New(sandbox.Config{Seed: seed, Size: size, Now: time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	execs := srv.Executions()
	if strip { // what a log without the SDK's headers and sessions shows: timing only
		for i := range execs {
			execs[i].SessionID, execs[i].RetryCount, execs[i].SDKVersion, execs[i].Source = "", -1, "", model.Source{}
		}
	}
	truth := srv.Truth()
	byID := make(map[string]sandbox.TruthRecord, len(truth))
	for _, tr := range truth {
		if strip && tr.Pattern == model.PatternSessionAutoRetry {
			tr.Pattern = model.PatternSDKAutoRetry // without the session id, only the SDK's timing is left
		}
		byID[tr.ID] = tr
	}
	res := triage.Analyze(execs, triage.NewKinds(), triage.Options{})

	var s score
	truthGroups := map[string][]string{}
	truthPattern := map[string]model.RetryPattern{}
	for i := range execs {
		e, tg := &execs[i], res.Triage[i]
		tr, ok := byID[e.ID]
		if !ok {
			t.Fatalf("no truth for %s", e.ID)
		}
		if tg.Kind == model.KindRead && tg.Flagged {
			s.readsFlagged++
			s.mismatches = append(s.mismatches, "read flagged: "+e.ID+" "+tg.Reason)
		}
		if tg.Flagged && !tr.Ambiguous {
			s.extraFlagged++
			if tg.Outcome == model.OutcomeRejected {
				s.extraRejected++
			} else {
				s.mismatches = append(s.mismatches, "flagged, not ambiguous in truth: "+e.ID+" "+tr.Case+" "+tg.Reason)
			}
		}
		if tr.Ambiguous && tg.Kind.IsWrite() {
			s.ambiguousWrites++
			if tg.Flagged {
				s.ambiguousFlagged++
			} else {
				s.mismatches = append(s.mismatches, "ambiguous write not flagged: "+e.ID+" "+e.ToolSlug+" "+tr.Case+" "+tg.Reason)
			}
		}
		if tr.GroupKey != "" {
			truthGroups[tr.GroupKey] = append(truthGroups[tr.GroupKey], e.ID)
			truthPattern[tr.GroupKey] = tr.Pattern
		}
	}
	canon := func(ids []string) string {
		c := slices.Clone(ids)
		sort.Strings(c)
		return strings.Join(c, ",")
	}
	want := map[string]string{} // member set -> truth key
	for k, ids := range truthGroups {
		if len(ids) >= 2 {
			want[canon(ids)] = k
		}
	}
	s.truthGroups, s.predGroups = len(want), len(res.Groups)
	matched := map[string]bool{}
	for _, g := range res.Groups {
		k, ok := want[canon(g.ExecutionIDs)]
		if !ok {
			s.mismatches = append(s.mismatches, "predicted group not in truth: "+strings.Join(g.ExecutionIDs, ",")+" "+string(g.Pattern)+" "+g.Reason)
			continue
		}
		matched[k] = true
		s.exact++
		if truthPattern[k] == model.PatternAgentRetry {
			s.agentGroups++
		}
		if g.Pattern == truthPattern[k] {
			s.patternRight++
			if g.Pattern == model.PatternAgentRetry {
				s.agentRight++
			}
		} else {
			s.mismatches = append(s.mismatches, "pattern "+string(g.Pattern)+" want "+string(truthPattern[k])+": "+g.Reason)
		}
		if truthPattern[k] == model.PatternSDKAutoRetry {
			s.sdkGroups++
			for i := range execs {
				if execs[i].ID == g.ExecutionIDs[0] && res.Triage[i].OldSDK != "" {
					s.sdkOldNoted++
				}
			}
		}
	}
	for _, k := range want {
		if !matched[k] {
			s.mismatches = append(s.mismatches, "truth group missed: "+k+" "+string(truthPattern[k])+" "+strings.Join(truthGroups[k], ","))
		}
	}
	return s
}

// TestAccuracyOnSandboxHistory scores triage against the sandbox's generated history, whose
// ground truth is known: every ambiguous write flagged, no read flagged, duplicate groups
// found exactly (precision and recall ≥ 0.95) with the right pattern (≥ 0.9).
func TestAccuracyOnSandboxHistory(t *testing.T) {
	total := scoreSeeds(t, false)
	if total.sdkOldNoted != total.sdkGroups {
		t.Errorf("%d SDK auto-retry groups without an old-SDK note", total.sdkGroups-total.sdkOldNoted)
	}
}

// TestAccuracyFromTimingAlone strips what real logs may not carry (sessions, the SDK's retry
// count, SDK version and language): grouping must stay exact and patterns mostly right.
func TestAccuracyFromTimingAlone(t *testing.T) {
	scoreSeeds(t, true)
}

func scoreSeeds(t *testing.T, strip bool) score {
	var total score
	for _, seed := range []int64{1, 2, 3} {
		s := scoreHistory(t, seed, 6000, strip)
		total.ambiguousWrites += s.ambiguousWrites
		total.ambiguousFlagged += s.ambiguousFlagged
		total.readsFlagged += s.readsFlagged
		total.extraFlagged += s.extraFlagged
		total.extraRejected += s.extraRejected
		total.truthGroups += s.truthGroups
		total.predGroups += s.predGroups
		total.exact += s.exact
		total.patternRight += s.patternRight
		total.sdkGroups += s.sdkGroups
		total.sdkOldNoted += s.sdkOldNoted
		total.agentGroups += s.agentGroups
		total.agentRight += s.agentRight
		for i, m := range s.mismatches {
			if i < 10 {
				t.Logf("seed %d: %s", seed, m)
			}
		}
	}
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 1
		}
		return float64(a) / float64(b)
	}
	precision, recall := ratio(total.exact, total.predGroups), ratio(total.exact, total.truthGroups)
	patterns := ratio(total.patternRight, total.exact)
	t.Logf("ambiguous writes flagged: %d/%d (%.3f); reads flagged: %d", total.ambiguousFlagged, total.ambiguousWrites,
		ratio(total.ambiguousFlagged, total.ambiguousWrites), total.readsFlagged)
	t.Logf("flagged writes the truth calls unambiguous: %d, of which rate limited (rejected, flagged by design): %d",
		total.extraFlagged, total.extraRejected)
	t.Logf("duplicate groups: %d predicted, %d true, %d exact: precision %.3f, recall %.3f; patterns right %.3f (%d/%d)",
		total.predGroups, total.truthGroups, total.exact, precision, recall, patterns, total.patternRight, total.exact)
	t.Logf("agent re-sends with regenerated text found and named: %d/%d", total.agentRight, total.agentGroups)
	if total.agentGroups == 0 || total.agentRight < total.agentGroups*9/10 {
		t.Errorf("agent_retry: %d of %d named", total.agentRight, total.agentGroups)
	}
	if !strip {
		t.Logf("SDK auto-retry groups whose first record names an old SDK: %d/%d", total.sdkOldNoted, total.sdkGroups)
	}
	if total.ambiguousWrites == 0 || total.truthGroups == 0 {
		t.Fatal("the generated history has no ambiguous writes or no duplicate groups: nothing was scored")
	}
	if total.ambiguousFlagged != total.ambiguousWrites {
		t.Errorf("%d ambiguous writes not flagged", total.ambiguousWrites-total.ambiguousFlagged)
	}
	if total.extraFlagged != total.extraRejected {
		t.Errorf("%d writes flagged that are neither ambiguous nor rate limited", total.extraFlagged-total.extraRejected)
	}
	if total.readsFlagged != 0 {
		t.Errorf("%d reads flagged", total.readsFlagged)
	}
	if precision < 0.95 || recall < 0.95 {
		t.Errorf("duplicate groups precision %.3f recall %.3f, want ≥ 0.95", precision, recall)
	}
	if patterns < 0.9 {
		t.Errorf("patterns right %.3f, want ≥ 0.9", patterns)
	}
	return total
}
