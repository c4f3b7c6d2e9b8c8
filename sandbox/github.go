package sandbox

import (
	"cmp"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// ghOrg is one company's GitHub organisation: its repositories and their issues.
type ghOrg struct {
	login string
	repos []*repo
}

type repo struct {
	owner, name string
	issues      []*issue // ascending number
	nextNumber  int
}

type issue struct {
	id               int64
	number           int
	title, body      string
	state            string
	labels           []string
	assignees        []string
	author           string
	created, updated time.Time
	comments         []*comment
}

type comment struct {
	id           int64
	body, author string
	created      time.Time
	issueNumber  int
}

func (o *ghOrg) find(owner, name string) *repo {
	for _, r := range o.repos {
		if strings.EqualFold(r.owner, owner) && strings.EqualFold(r.name, name) {
			return r
		}
	}
	return nil
}

func (r *repo) issue(n int64) *issue {
	for _, is := range r.issues {
		if int64(is.number) == n {
			return is
		}
	}
	return nil
}

func (r *repo) addIssue(w *world, title, body, author string, labels, assignees []string, at time.Time) *issue {
	r.nextNumber++
	is := &issue{id: int64(1_000_000_000 + w.ids.next()%2_000_000_000), number: r.nextNumber, title: title, body: body,
		state: "open", labels: labels, assignees: assignees, author: author, created: at, updated: at}
	r.issues = append(r.issues, is)
	return is
}

func (r *repo) addComment(w *world, is *issue, body, author string, at time.Time) *comment {
	cm := &comment{id: int64(2_000_000_000 + w.ids.next()%2_000_000_000), body: body, author: author, created: at, issueNumber: is.number}
	is.comments = append(is.comments, cm)
	if at.After(is.updated) {
		is.updated = at
	}
	return cm
}

func (r *repo) issueJSON(is *issue) map[string]any {
	labels := make([]any, 0, len(is.labels))
	for _, l := range is.labels {
		labels = append(labels, map[string]any{"name": l})
	}
	assignees := make([]any, 0, len(is.assignees))
	for _, a := range is.assignees {
		assignees = append(assignees, map[string]any{"login": a})
	}
	url := fmt.Sprintf("https://github.com/%s/%s/issues/%d", r.owner, r.name, is.number)
	return map[string]any{
		"id": is.id, "number": is.number, "title": is.title, "body": is.body, "state": is.state,
		"labels": labels, "assignees": assignees, "user": map[string]any{"login": is.author},
		"comments": len(is.comments), "created_at": iso(is.created), "updated_at": iso(is.updated),
		"html_url": url, "url": fmt.Sprintf("https://api.github.com/repos/%s/%s/issues/%d", r.owner, r.name, is.number),
	}
}

func (r *repo) commentJSON(cm *comment) map[string]any {
	return map[string]any{
		"id": cm.id, "body": cm.body, "user": map[string]any{"login": cm.author},
		"created_at": iso(cm.created), "updated_at": iso(cm.created),
		"html_url":  fmt.Sprintf("https://github.com/%s/%s/issues/%d#issuecomment-%d", r.owner, r.name, cm.issueNumber, cm.id),
		"issue_url": fmt.Sprintf("https://api.github.com/repos/%s/%s/issues/%d", r.owner, r.name, cm.issueNumber),
	}
}

func (w *world) repoOf(c *call) (*repo, *opResult) {
	if c.acct == nil || c.acct.company == nil || c.acct.toolkit != "github" {
		r := fail(http.StatusUnauthorized, "Bad credentials")
		return nil, &r
	}
	rp := c.acct.company.github.find(strArg(c.args, "owner"), strArg(c.args, "repo"))
	if rp == nil {
		r := fail(http.StatusNotFound, "Not Found")
		return nil, &r
	}
	return rp, nil
}

func (w *world) githubCreateIssue(c *call) opResult {
	rp, bad := w.repoOf(c)
	if bad != nil {
		return *bad
	}
	is := rp.addIssue(w, strArg(c.args, "title"), strArg(c.args, "body"), c.acct.login,
		stringsArgOf(c.args, "labels"), stringsArgOf(c.args, "assignees"), c.now)
	return opResult{data: rp.issueJSON(is), objectID: fmt.Sprintf("%s/%s#%d", rp.owner, rp.name, is.number), committed: true}
}

// issueOf is the repository of the call's account and the issue its issue_number names, or the
// error to answer with.
func (w *world) issueOf(c *call) (*repo, *issue, *opResult) {
	rp, bad := w.repoOf(c)
	if bad != nil {
		return nil, nil, bad
	}
	is := rp.issue(intArgOr(c.args, "issue_number", 0))
	if is == nil {
		r := fail(http.StatusNotFound, "Not Found")
		return nil, nil, &r
	}
	return rp, is, nil
}

func (w *world) githubComment(c *call) opResult {
	rp, is, bad := w.issueOf(c)
	if bad != nil {
		return *bad
	}
	cm := rp.addComment(w, is, strArg(c.args, "body"), c.acct.login, c.now)
	return opResult{data: rp.commentJSON(cm), objectID: fmt.Sprint(cm.id), committed: true}
}

func sinceArg(c *call) (time.Time, bool) {
	s := strArg(c.args, "since")
	if s == "" {
		return time.Time{}, true
	}
	return model.ParseTime(s)
}

func (w *world) githubListIssues(c *call) opResult {
	rp, bad := w.repoOf(c)
	if bad != nil {
		return *bad
	}
	since, ok := sinceArg(c)
	if !ok {
		return fail(http.StatusUnprocessableEntity, "Validation Failed: since is not an ISO 8601 time")
	}
	state := strings.ToLower(strArg(c.args, "state"))
	state = cmp.Or(state, "open")
	labels := stringsArgOf(c.args, "labels")
	var in []*issue
	for _, is := range rp.issues {
		if (state != "all" && is.state != state) || is.updated.Before(since) || !hasAll(is.labels, labels) {
			continue
		}
		in = append(in, is)
	}
	key := func(is *issue) time.Time { return is.created }
	if strings.ToLower(strArg(c.args, "sort")) == "updated" {
		key = func(is *issue) time.Time { return is.updated }
	}
	asc := strings.ToLower(strArg(c.args, "direction")) == "asc"
	sort.SliceStable(in, func(i, j int) bool {
		if asc {
			return key(in[i]).Before(key(in[j]))
		}
		return key(in[i]).After(key(in[j]))
	})
	per := pageSize(intArgOr(c.args, "per_page", 30), 30, 100)
	page := max(int(intArgOr(c.args, "page", 1)), 1)
	out := []any{}
	for i := (page - 1) * per; i < len(in) && len(out) < per; i++ {
		out = append(out, rp.issueJSON(in[i]))
	}
	return opResult{data: map[string]any{"issues": out}}
}

func (w *world) githubListComments(c *call) opResult {
	rp, is, bad := w.issueOf(c)
	if bad != nil {
		return *bad
	}
	since, ok := sinceArg(c)
	if !ok {
		return fail(http.StatusUnprocessableEntity, "Validation Failed: since is not an ISO 8601 time")
	}
	per := pageSize(intArgOr(c.args, "per_page", 30), 30, 100)
	page := max(int(intArgOr(c.args, "page", 1)), 1)
	out := []any{}
	n := 0
	for _, cm := range is.comments {
		if cm.created.Before(since) {
			continue
		}
		n++
		if n > (page-1)*per && len(out) < per {
			out = append(out, rp.commentJSON(cm))
		}
	}
	return opResult{data: map[string]any{"comments": out}}
}

func hasAll(have, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || strings.EqualFold(h, w)
		}
		if !found {
			return false
		}
	}
	return true
}
