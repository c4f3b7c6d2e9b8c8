package sandbox

import (
	"sort"
	"strconv"
	"strings"
	"time"
)

func (g *generator) buildEntities(size int) {
	nUsers := min(max(size/150, 8), 600)
	nCompanies := max(3, nUsers/5)
	ids := &g.w.ids
	for i := range nCompanies {
		cs := g.p.companies[i%len(g.p.companies)]
		if n := i / len(g.p.companies); n > 0 {
			suffix := strconv.Itoa(n + 1)
			cs = companySeed{cs.name + " " + suffix, strings.Replace(cs.domain, ".", suffix+".", 1), cs.org + "-" + suffix}
		}
		co := &company{name: cs.name, domain: cs.domain}
		co.slack = &workspace{teamID: ids.slackID('T'), botUser: ids.slackID('U')}
		for _, name := range g.p.channels {
			co.slack.channels = append(co.slack.channels, &channel{id: ids.slackID('C'), name: name})
		}
		co.github = &ghOrg{login: cs.org}
		for _, k := range g.r.Perm(len(g.p.repoNames))[:2+g.r.IntN(3)] {
			co.github.repos = append(co.github.repos, &repo{owner: cs.org, name: g.p.repoNames[k]})
		}
		co.hubspot = &portal{
			id:      strconv.Itoa(20_000_000 + int(ids.next()%9_000_000)),
			byEmail: map[string]*contact{},
			nextID:  int64(100 + g.r.IntN(900)),
		}
		g.w.companies = append(g.w.companies, co)
	}
	for _, tk := range toolkitDefs() {
		g.authConfigs[tk.slug] = ids.authConfig()
	}
	for _, d := range g.p.externalDomains {
		for range 3 {
			g.externals = append(g.externals, strings.ToLower(pick(g, g.p.firsts)+"."+pick(g, g.p.lasts)+"@"+d))
		}
	}
	for i := 1; i <= nUsers; i++ {
		u := &user{id: "user_" + strconv.Itoa(i), first: pick(g, g.p.firsts), last: pick(g, g.p.lasts),
			company: g.w.companies[g.r.IntN(nCompanies)], profile: g.randomProfile(), accounts: map[string]*account{}}
		for range 2 + g.r.IntN(3) {
			u.sessions = append(u.sessions, ids.uuid())
		}
		for _, tk := range []struct {
			slug string
			p    float64
		}{{"gmail", 0.85}, {"slack", 0.75}, {"github", 0.45}, {"hubspot", 0.35}} {
			if g.chance(tk.p) {
				u.toolkits = append(u.toolkits, tk.slug)
			}
		}
		if len(u.toolkits) == 0 {
			u.toolkits = []string{"gmail"}
		}
		for _, tk := range u.toolkits {
			a := &account{id: ids.accountID(), userID: u.id, toolkit: tk, authConfigID: g.authConfigs[tk], status: "ACTIVE",
				user: u, company: u.company, stable: true}
			a.created = g.from.Add(-g.between(24*time.Hour, 120*24*time.Hour)).Truncate(time.Second)
			a.updated = a.created
			if g.chance(0.04) {
				span := g.now.Sub(g.from)
				a.expiredAt = g.from.Add(time.Duration(float64(span) * (0.7 + 0.28*g.r.Float64()))).Truncate(time.Second)
				a.status, a.updated, a.stable = "EXPIRED", a.expiredAt, false
				if g.chance(0.25) {
					a.status = "INACTIVE"
				}
			}
			switch tk {
			case "gmail":
				a.mailbox = newMailbox(u.email())
			case "github":
				a.login = strings.ToLower(u.first + "-" + u.last[:1] + strconv.Itoa(i))
			}
			u.accounts[tk] = a
			g.w.accounts = append(g.w.accounts, a)
			g.w.accountByID[a.id] = a
		}
		g.w.users = append(g.w.users, u)
	}
	g.ensureExpired()
}

// ensureExpired makes sure some account has expired, so every history shows auth failures.
func (g *generator) ensureExpired() {
	for _, a := range g.w.accounts {
		if !a.stable {
			return
		}
	}
	a := pick(g, g.w.accounts)
	a.expiredAt = g.now.Add(-time.Duration(float64(g.now.Sub(g.from)) * 0.2)).Truncate(time.Second)
	a.status, a.updated, a.stable = "EXPIRED", a.expiredAt, false
}

// seedState gives every provider content from before the span: inboxes with threads, channel
// chatter, issues with comments, contacts.
func (g *generator) seedState() {
	before := func(maxAge time.Duration) time.Time {
		return g.from.Add(-g.between(time.Minute, maxAge)).Truncate(time.Second)
	}
	for _, a := range g.w.accounts {
		if a.mailbox == nil {
			continue
		}
		tg := &targets{}
		var received []*gmailMessage
		for range 8 + g.r.IntN(4) {
			at := before(14 * 24 * time.Hour)
			id := g.w.newMessageID()
			labels := []string{"INBOX"}
			if g.chance(0.5) {
				labels = append(labels, "UNREAD")
			}
			if g.chance(0.2) {
				labels = append(labels, "CATEGORY_UPDATES")
			}
			m := &gmailMessage{id: id, threadID: id, from: pick(g, g.externals), to: a.mailbox.address,
				subject: g.fill(pick(g, g.p.subjects), at), body: g.fill(pick(g, g.p.sentences), at), labels: labels, at: at}
			a.mailbox.add(m)
			received = append(received, m)
			tg.threads = append(tg.threads, m)
			if g.chance(0.4) { // a follow-up in the same thread
				fid := g.w.newMessageID()
				f := &gmailMessage{id: fid, threadID: id, from: m.from, to: m.to, subject: "Re: " + m.subject,
					body: g.fill(pick(g, g.p.replies), at), labels: []string{"INBOX"}, at: at.Add(g.between(time.Hour, 20*time.Hour))}
				a.mailbox.add(f)
				received = append(received, f)
			}
		}
		sort.SliceStable(a.mailbox.messages, func(i, j int) bool { return a.mailbox.messages[i].at.Before(a.mailbox.messages[j].at) })
		tg.messages = append([]*gmailMessage{}, received...)
		g.r.Shuffle(len(received), func(i, j int) { received[i], received[j] = received[j], received[i] })
		n := len(received) * 2 / 3
		tg.labelMsgs, tg.deleteMsgs = received[:n], received[n:]
		g.targets[a] = tg
	}
	for _, co := range g.w.companies {
		for _, ch := range co.slack.channels {
			var times []time.Time
			for range 4 + g.r.IntN(6) {
				times = append(times, before(7*24*time.Hour))
			}
			sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
			for _, at := range times {
				ch.post(ch.nextTS(at), g.w.ids.slackID('U'), g.fill(pick(g, g.p.slackTexts), at), "", at)
			}
		}
		for _, rp := range co.github.repos {
			var times []time.Time
			for range 3 + g.r.IntN(6) {
				times = append(times, before(60*24*time.Hour))
			}
			sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
			for _, at := range times {
				is := rp.addIssue(g.w, g.fill(pick(g, g.p.issueTitles), at), g.fill(pick(g, g.p.issueBodies), at),
					strings.ToLower(pick(g, g.p.firsts)), nil, nil, at)
				if g.chance(0.3) {
					is.state = "closed"
				}
				for range g.r.IntN(3) {
					ct := at.Add(g.between(time.Hour, 48*time.Hour))
					if ct.Before(g.from) {
						rp.addComment(g.w, is, g.fill(pick(g, g.p.comments), ct), strings.ToLower(pick(g, g.p.firsts)), ct)
					}
				}
			}
		}
		var times []time.Time
		for range 6 + g.r.IntN(10) {
			times = append(times, before(90*24*time.Hour))
		}
		sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
		for _, at := range times {
			co.hubspot.add(g.hubspotProps(co.hubspot), at)
		}
	}
}
