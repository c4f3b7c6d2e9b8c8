package triage_test

import (
	"fmt"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Families written on 2026-12-07 (eighth duplicate batch), before any rule read them: a model
// that opens a pull request (GitHub) or a merge request (GitLab), sees the call fail or time
// out, and opens it again from the same branch into the same one, its title and description
// written anew. Near-misses written with them: a request from another branch into the same
// base after a failure, and the same branch proposed into another base (a backport) after a
// failure, in the same words. Each draw's branch carries a number of its own: two draws that
// propose one branch into one base from one caller would be one request.

// branchTopic is a change a branch carries: the branch's name and how a title and a description
// may say it (each wording a model might choose).
type branchTopic struct {
	branch string
	titles []string
	bodies []string
}

var branchTopics = []branchTopic{
	{"fix/login-timeout", []string{"Fix login timeout", "Raise the session login timeout", "login: stop timing out after 10s",
		"Increase login timeout to 30 seconds"}, []string{
		"This increases the login timeout from 10s to 30s and retries the token call once.",
		"Users on slow networks were logged out while signing in. The timeout is now 30 seconds, with one retry.",
		"Bumps LOGIN_TIMEOUT to 30s. Adds a single retry around the token request.",
	}},
	{"feat/csv-export", []string{"Add CSV export", "Export reports as CSV", "reports: CSV download", "Support exporting to CSV"},
		[]string{
			"Adds a CSV export button to the reports page and an endpoint that streams the rows.",
			"Reports can now be downloaded as CSV. The endpoint streams rows so large reports do not time out.",
			"New GET /reports/{id}.csv; the UI gets an Export button.",
		}},
	{"chore/bump-deps", []string{"Bump dependencies", "Update third-party packages", "deps: monthly upgrade", "Upgrade libraries"},
		[]string{
			"Monthly dependency upgrade. No breaking changes in the changelogs.",
			"Updates all packages to their latest minor versions; tests pass locally.",
			"Routine bump of the lock file (minor and patch versions only).",
		}},
	{"fix/null-invoice-total", []string{"Handle invoices without a total", "Fix crash on null invoice total",
		"invoices: guard against a missing total", "Don't crash when total is null"}, []string{
		"Invoices imported from the old system can have no total; the page crashed on them. We now show a dash.",
		"Guards the totals column against null values and adds a test with such an invoice.",
		"A null total made the invoice view throw. Render it as '-' instead.",
	}},
}

// mergeRequest is the call that opens a request to merge head into base, on GitHub or GitLab.
func mergeRequest(gitlab bool, project, head, base, title, body string) (target, map[string]any) {
	if gitlab {
		return target{"GITLAB_CREATE_MERGE_REQUEST", "gitlab", nil}, map[string]any{"id": "acme/" + project,
			"source_branch": head, "target_branch": base, "title": title, "description": body}
	}
	return target{"GITHUB_CREATE_A_PULL_REQUEST", "github", nil}, map[string]any{"owner": "acme", "repo": project,
		"head": head, "base": base, "title": title, "body": body}
}

// agentReopensAPullRequest: the model opens a request to merge a branch, the call fails or its
// answer is lost, and it opens it again in a later turn from the same branch into the same
// base, with another title and description. agent_retry.
func (g *corpusGen) agentReopensAPullRequest() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	tp := pickOne(g.r, branchTopics)
	project := pickOne(g.r, corpusServices)
	gitlab := g.r.IntN(3) == 0
	ti, bi := g.r.Perm(len(tp.titles)), g.r.Perm(len(tp.bodies))
	branch := fmt.Sprintf("%s-%d", tp.branch, g.r.IntN(100000))
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		return mergeRequest(gitlab, project, branch, "main", tp.titles[ti[i]], tp.bodies[bi[i]])
	})
}

// otherBranchAfterAFailure (near-miss): a request from one branch fails; a minute later the same
// caller opens one from another branch into the same base: two requests.
func (g *corpusGen) otherBranchAfterAFailure() {
	c := g.current()
	project := pickOne(g.r, corpusServices)
	gitlab := g.r.IntN(3) == 0
	order := g.r.Perm(len(branchTopics))
	t := g.start()
	for i := range 2 {
		tp := branchTopics[order[i]]
		end := endOK
		if i == 0 {
			end = g.failure()
		}
		tg, args := mergeRequest(gitlab, project, fmt.Sprintf("%s-%d", tp.branch, g.r.IntN(100000)), "main", tp.titles[0], tp.bodies[0])
		stopped := g.add(c, tg, args, t, end, g.fast(), -1, "")
		t = stopped.Add(time.Duration(20+g.r.IntN(60)) * time.Second)
	}
}

// sameBranchIntoAnotherBase (near-miss): a request to merge a fix into main fails; a minute
// later the same caller proposes the same branch into a release branch (a backport), in the
// same words: two requests.
func (g *corpusGen) sameBranchIntoAnotherBase() {
	c := g.current()
	project := pickOne(g.r, corpusServices)
	gitlab := g.r.IntN(3) == 0
	tp := pickOne(g.r, branchTopics)
	branch := fmt.Sprintf("%s-%d", tp.branch, g.r.IntN(100000))
	t := g.start()
	for i, base := range []string{"main", fmt.Sprintf("release/%d.%d", 1+g.r.IntN(3), g.r.IntN(10))} {
		end := endOK
		if i == 0 {
			end = g.failure()
		}
		tg, args := mergeRequest(gitlab, project, branch, base, tp.titles[0], tp.bodies[0])
		stopped := g.add(c, tg, args, t, end, g.fast(), -1, "")
		t = stopped.Add(time.Duration(20+g.r.IntN(60)) * time.Second)
	}
}

// agentChangesHowItIsShown (written with the eighth batch, before any rule read it): the model
// writes the call again with how the thing is shown or announced changed, added or dropped: a
// Slack post's link previews, markup and icon, a meeting's reminders, visibility and colour and
// whether guests are notified, a Telegram message's parse mode and silent delivery; the text
// as it was or reworded. agent_retry.
func (g *corpusGen) agentChangesHowItIsShown() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	order := g.r.Perm(len(it.phrasings))
	kind := g.r.IntN(3)
	ch := fmt.Sprintf("C%06d", g.r.IntN(1e6))
	people, at := g.attendees(), g.slot()
	titles := pickOne(g.r, meetingTitles)
	shownFirst := g.r.IntN(2) == 0
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		shown := shownFirst == (i == 0)
		text := f.fill(it.phrasings[order[i]])
		switch kind {
		case 0:
			args := map[string]any{"channel": ch, "text": text}
			if shown {
				args["unfurl_links"], args["mrkdwn"], args["icon_emoji"] = false, true, ":package:"
			}
			return target{"SLACK_SEND_MESSAGE", "slack", nil}, args
		case 1:
			args := map[string]any{"calendar_id": "primary", "summary": titles[i%len(titles)], "start_datetime": at.Format(time.RFC3339),
				"event_duration_hour": 1, "attendees": people}
			if shown {
				args["reminders"] = map[string]any{"useDefault": false, "overrides": []any{map[string]any{"method": "popup", "minutes": 10}}}
				args["visibility"], args["colorId"], args["send_updates"] = "private", "5", "all"
			}
			return target{"GOOGLECALENDAR_CREATE_EVENT", "googlecalendar", nil}, args
		}
		args := map[string]any{"chat_id": ch, "text": text}
		if shown {
			args["parse_mode"], args["disable_notification"], args["disable_web_page_preview"] = "HTML", true, true
		}
		return target{"TELEGRAM_SEND_MESSAGE", "telegram", nil}, args
	})
}

// agentRebooksWithAPlace (written with the eighth batch, before any rule read it): the model
// books a meeting again for the same slot and people, this time saying where it is held or
// asking for a call link (a location, a room, a Meet link), or dropping them, under another
// title. agent_retry.
func (g *corpusGen) agentRebooksWithAPlace() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", ""})
	people, at := g.attendees(), g.slot()
	titles := pickOne(g.r, meetingTitles)
	placeFirst := g.r.IntN(2) == 0
	place := g.r.IntN(3)
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		args := map[string]any{"calendar_id": "primary", "summary": titles[i%len(titles)], "start_datetime": at.Format(time.RFC3339),
			"event_duration_hour": 1, "attendees": people}
		if placeFirst == (i == 0) {
			switch place {
			case 0:
				args["location"] = pickOne(g.r, []string{"Room 4B", "HQ, 3rd floor", "Zoom"})
			case 1:
				args["create_meeting_room"] = true
			default:
				args["location"], args["create_meeting_room"] = "Conference room Atlas", true
			}
		}
		return target{"GOOGLECALENDAR_CREATE_EVENT", "googlecalendar", nil}, args
	})
}
