package triage

import (
	"time"
)

// Bounds of the near-duplicate search in one bucket (one tool, caller and identifying
// arguments): a new member is compared with the most recent maxOpenClusters groups still open
// (within the window) and, in each, with its most recent maxCompared members. Identical texts
// end the search at once, so a bucket of exact repeats costs one comparison per member.
const (
	maxOpenClusters = 64
	maxCompared     = 8
)

// bucketMember is what clustering reads of one member of a bucket.
type bucketMember struct {
	start, seen time.Time // start, and how far later members reach back to it (reachOf)
	near        time.Time // the latest moment it was known running (lastSeen)
	args        uint32    // the arguments' checksum (past the window only the same bytes join)
	text        textSig
	subject     string       // an email's subject or a tool's heading, folded (foldSubject); "" for none
	heading     headingFacts // the subject's facts, read once (headingsDiffer)
	succeeded   bool         // the attempt is known to have succeeded
	pinned      bool         // the arguments pin the target by its own facts (pinned.go)
	bodyless    bool         // the arguments carry no free text (a heading alone, or nothing in words)
	// tool, toolkit and account: in an effect family's bucket (intent.go) members of one
	// toolkit from two accounts never join, and another tool joins only after a failure
	tool, toolkit, account string
	// client is the SDK version that sent it ("" when not recorded)
	client string
}

// mayJoin reports whether m may join a group whose newest member is last, and whose member
// o it is compared with, by the effect family's guards (intent.go).
//
// Two clients never join: a record sent by one SDK version and a record sent by another came
// from two processes, so neither is the other's retry, whatever their texts share (an agent,
// an app or an SDK retries from the process that sent first).
func mayJoin(m, o, last *bucketMember) bool {
	if m.client != "" && o.client != "" && m.client != o.client {
		return false
	}
	if m.tool == o.tool && m.account == o.account {
		return true
	}
	if m.toolkit == o.toolkit && m.account != o.account {
		return false
	}
	return m.tool == o.tool || !last.succeeded
}

// cluster is one group found in a bucket: member indices (oldest first) and the least
// similarity with which a member joined (1 when every member's text was identical).
type cluster struct {
	idx []int
	sim float64
}

// clusterBucket splits a bucket's members, sorted by start then id, into groups. A member
// joins the open group most similar to it — similar to one of its members by the
// near-duplicate rule (similar.go), and a start at most window after the group's newest member was last
// seen — or opens a group of its own. Only groups of two or more are returned, ordered by
// their first member. For a bucket of identical texts this is exact grouping: consecutive
// members closer than the window.
func clusterBucket(ms []bucketMember, window time.Duration, th Thresholds) []cluster {
	var all []cluster
	var open []int // indices into all, oldest first
	for j := range ms {
		kept := open[:0]
		for _, c := range open {
			last := all[c].idx[len(all[c].idx)-1]
			if ms[j].start.Sub(ms[last].seen) <= window {
				kept = append(kept, c)
			}
		}
		open = kept
		best, bestSim := -1, 0.0
		for o := len(open) - 1; o >= 0 && o >= len(open)-maxOpenClusters; o-- {
			c := &all[open[o]]
			s := 0.0
			newest := &ms[c.idx[len(c.idx)-1]]
			afterFailure := !newest.succeeded
			// past the window only an unclear attempt's reach joins (a queue's redelivery, a
			// scheduler's next run), and only the same bytes sent again: a text regenerated
			// hours later is a new message
			if ms[j].start.Sub(newest.near) > window && (ms[j].args == 0 || ms[j].args != newest.args) {
				continue
			}
			for k := len(c.idx) - 1; k >= 0 && k >= len(c.idx)-maxCompared; k-- {
				m := &ms[c.idx[k]]
				if !mayJoin(&ms[j], m, &ms[c.idx[len(c.idx)-1]]) {
					continue
				}
				sk := similarity(ms[j].text, m.text)
				if sk >= 1 && ms[j].subject != m.subject {
					sk = 0.99 // one body under another subject: not the same bytes sent again
				}
				switch {
				case sk >= 1: // identical
				case !afterFailure:
					continue // a new text after a success is a new message
				case statesDiffer(ms[j].text, m.text):
					continue // another state of the same thing: another message
				case sk >= th.NearDuplicate && (ms[j].subject == m.subject ||
					len(m.text.nums) > 0 && sameFacts(ms[j].text, m.text) && !headingsDiffer(&ms[j], m) ||
					headingsSameFacts(&ms[j], m) && sameFacts(ms[j].text, m.text)):
					// words alike under one heading; under another only with the same facts, a
					// number among them (in the texts, or in headings that carry the same), and
					// headings that name no other (a template's body under two titles is two
					// messages)
				case (anchored(ms[j].text, m.text) || cutDown(ms[j].text, m.text)) && !headingsDiffer(&ms[j], m) ||
					sameEntities(&ms[j].text, &m.text):
					sk = max(sk, FactsSimilarity) // rewritten, or in another language
				case ms[j].pinned && m.pinned: // one slot and its people, one contact: labels and text anew
					sk = max(sk, PinnedSimilarity)
				case headingsAnchored(&ms[j], m): // a card of its title alone, retitled with the same facts
					sk = max(sk, FactsSimilarity)
				case ms[j].bodyless != m.bodyless && ms[j].subject == m.subject:
					// a free text added where there was none, or dropped (a note on a refund): the
					// same identity and heading after an attempt that did not succeed
					sk = max(sk, FactsSimilarity)
				default:
					continue
				}
				s = max(s, sk)
				if s >= 1 {
					break
				}
			}
			if s > 0 && s > bestSim {
				best, bestSim = open[o], s
				if s >= 1 {
					break
				}
			}
		}
		if best < 0 {
			all = append(all, cluster{idx: []int{j}, sim: 1})
			open = append(open, len(all)-1)
			continue
		}
		all[best].idx = append(all[best].idx, j)
		all[best].sim = min(all[best].sim, bestSim)
	}
	out := all[:0]
	for _, c := range all {
		if len(c.idx) >= 2 {
			out = append(out, c)
		}
	}
	return out
}
