package triage

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/exectriage/exectriage/model"
)

// Audiences. A write that goes to people (an email's recipients, an event's attendees) is
// written again, after an attempt that did not succeed, to the same people and one more (the
// manager copied in, the person forgotten) or one fewer (the address the model doubts): every
// person of the smaller audience is in both, so each of them got it twice if the first went
// out. The audience is part of a write's identity (its bucket), so such a pair shares no
// bucket; joinWidenedAudiences joins it when everything else of its identity is the same (the
// audience put aside), one audience contains the other, the later call starts within the
// window of the earlier one, which did not succeed, and the two read as one call as a bucket's
// members do (clusterBucket: the same words or facts, or a pinned slot). Audiences that only
// overlap (a recipient swapped for another) or are apart (the next batch of one mailing) stay
// apart, as does anything after a success (a person re-sending on purpose).

// audienceStandIn replaces every audience's value when an identity is read with the audience
// put aside: an address, so that an event's slot still pins it.
const audienceStandIn = `"audience@exectriage.invalid"`

// audienceMember: an argument that names people a write goes to or gathers.
func audienceMember(key string, roles Roles) bool {
	return recipientKey(key) || roleOf(key, strings.ToLower(key), roles) == RolePeople
}

// audienceOf is a write's audience (its people's addresses, sorted, unique) and its bucket key
// with the audience put aside; ok is false when it names no audience.
func audienceOf(e *model.Execution, kind model.ToolKind, volatile []string, skip map[string]bool, roles Roles) ([]string, string, bool) {
	ms, ok := model.SplitObject(e.Arguments)
	if !ok {
		return nil, "", false
	}
	var people []string
	out := []byte{'{'}
	for n, m := range ms {
		if n > 0 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(m.Key)
		out = append(append(out, k...), ':')
		if audienceMember(m.Key, roles) && !model.Skips(skip, strings.ToLower(m.Key)) && !emptyRaw(m.Raw) {
			people = appendRecipients(people, m)
			out = append(out, audienceStandIn...)
			continue
		}
		out = append(out, m.Raw...)
	}
	if len(people) == 0 {
		return nil, "", false
	}
	sortUnique(&people)
	aside := *e
	aside.Arguments = append(out, '}')
	key, _, ok := effectKey(&aside, kind, volatile, skip, roles)
	return people, key, ok
}

// contains reports whether the sorted set a holds every member of the sorted set b.
func contains(a, b []string) bool {
	for _, x := range b {
		if _, found := slices.BinarySearch(a, x); !found {
			return false
		}
	}
	return true
}

// joinWidenedAudiences joins, among one batch's candidates, each write that did not succeed
// and a later one of its caller to an audience that contains its own or is contained in it
// (see Audiences), into one group: the groups either is in are merged, or the pair makes one.
// Only the writes within the window after such a write, in another bucket of its caller, are
// read again (the audience put aside): a load's other writes cost nothing more.
func joinWidenedAudiences(all []foundGroup, execs []model.Execution, outcomes []model.Outcome, kind func(int) model.ToolKind,
	roles func(slug string) Roles, cand []int, keyOf map[int]string, parts map[int]effectArgs, opt Options) []foundGroup {
	// a bucket key is the caller (its tool and who calls it), then the identity's hash
	callerOf := func(i int) string { k := keyOf[i]; return k[:strings.LastIndexByte(k, 0)] }
	// a pair is of two buckets of one caller: a caller whose candidates share one key has none
	firstKey, several := map[string]string{}, map[string]bool{}
	for _, i := range cand {
		if k := keyOf[i]; k != "" {
			c := callerOf(i)
			if f, ok := firstKey[c]; !ok {
				firstKey[c] = k
			} else if f != k {
				several[c] = true
			}
		}
	}
	names := map[int]bool{} // whether a write that did not succeed names an audience, read once
	seeds := map[string]bool{}
	for _, i := range cand {
		if keyOf[i] != "" && outcomes[i] != model.OutcomeSucceeded && several[callerOf(i)] {
			if names[i] = namesAudience(&execs[i], roles(execs[i].ToolSlug)); names[i] {
				seeds[callerOf(i)] = true
			}
		}
	}
	if len(seeds) == 0 {
		return all
	}
	byCaller := map[string][]int{}
	for _, i := range cand {
		if keyOf[i] != "" && seeds[callerOf(i)] {
			byCaller[callerOf(i)] = append(byCaller[callerOf(i)], i)
		}
	}
	callers := make([]string, 0, len(byCaller))
	for c := range byCaller {
		callers = append(callers, c)
	}
	slices.Sort(callers) // one order on every path
	type audience struct {
		people []string
		aside  string
		ok     bool
	}
	skip := skipSet(opt.VolatileKeys)
	read := map[int]audience{}
	audienceAt := func(i int) audience {
		a, done := read[i]
		if !done {
			a.people, a.aside, a.ok = audienceOf(&execs[i], kind(i), opt.VolatileKeys, skip, roles(execs[i].ToolSlug))
			read[i] = a
		}
		return a
	}
	groupOf := map[int]int{} // an execution's group in all
	for k, f := range all {
		for _, i := range f.in {
			groupOf[i] = k
		}
	}
	dropped := map[int]bool{}
	for _, c := range callers {
		ws := byCaller[c]
		slices.SortFunc(ws, func(a, b int) int { return execOrder(&execs[a], &execs[b]) })
		for x, a := range ws {
			if outcomes[a] == model.OutcomeSucceeded || !names[a] {
				continue
			}
			for _, b := range ws[x+1:] {
				if execs[b].Start().Sub(lastSeen(&execs[a])) > opt.Window {
					break // sorted by start: the rest are later still
				}
				if keyOf[b] == keyOf[a] {
					continue // one audience: one bucket, grouped there
				}
				if ga, ok := groupOf[a]; ok {
					if gb, ok := groupOf[b]; ok && gb == ga {
						continue // one group already
					}
				}
				wa, wb := audienceAt(a), audienceAt(b)
				if !wa.ok || !wb.ok || wa.aside != wb.aside || !contains(wa.people, wb.people) && !contains(wb.people, wa.people) {
					continue
				}
				pair, in := groupBucket(keyOf[a], execs, outcomes, []int{a, b}, parts, opt)
				if len(pair) != 1 || len(in[0]) != 2 {
					continue // they do not read as one call
				}
				all = mergeInto(all, groupOf, dropped, a, b, found(pair[0], in[0], execs, outcomes, opt), execs, outcomes, opt)
			}
		}
	}
	kept := all[:0]
	for k, f := range all {
		if !dropped[k] {
			kept = append(kept, f)
		}
	}
	return kept
}

// namesAudience reports whether a write's arguments have an audience member, without reading
// its values.
func namesAudience(e *model.Execution, roles Roles) bool {
	ms, ok := model.SplitObject(e.Arguments)
	return ok && slices.ContainsFunc(ms, func(m model.ArgMember) bool { return audienceMember(m.Key, roles) && !emptyRaw(m.Raw) })
}

// mergeInto puts a and b in one group of all: the groups they are in, merged (the later one
// dropped), the one of them in a group joined by the other, or pair, added.
func mergeInto(all []foundGroup, groupOf map[int]int, dropped map[int]bool, a, b int, pair foundGroup,
	execs []model.Execution, outcomes []model.Outcome, opt Options) []foundGroup {
	ga, inA := groupOf[a]
	gb, inB := groupOf[b]
	switch {
	case !inA && !inB:
		all = append(all, pair)
		groupOf[a], groupOf[b] = len(all)-1, len(all)-1
		return all
	case inA && inB:
		for _, i := range all[gb].in {
			groupOf[i] = ga
		}
		all[ga].in = append(all[ga].in, all[gb].in...)
		dropped[gb] = true
	case inA:
		all[ga].in, groupOf[b] = append(all[ga].in, b), ga
	default:
		all[gb].in, groupOf[a] = append(all[gb].in, a), gb
		ga = gb
	}
	f := &all[ga]
	slices.SortFunc(f.in, func(x, y int) int { return execOrder(&execs[x], &execs[y]) })
	ms := make([]member, len(f.in))
	for j, i := range f.in {
		ms[j] = member{e: &execs[i], outcome: outcomes[i]}
	}
	f.first = execs[f.in[0]].Start()
	setMembers(&f.g, ms, true, "", opt)
	f.caller, f.starts = "", nil // no pair of a replayed batch
	return all
}
