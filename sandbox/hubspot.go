package sandbox

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// portal is one company's HubSpot portal (its CRM contacts).
type portal struct {
	id       string
	contacts []*contact // creation order
	byEmail  map[string]*contact
	nextID   int64
}

type contact struct {
	id      string
	props   map[string]string
	created time.Time
}

// contactProps are the properties HUBSPOT_CREATE_CONTACT accepts.
func contactProps() []string {
	return []string{"email", "firstname", "lastname", "phone", "company", "website", "jobtitle", "lifecyclestage"}
}

func (p *portal) add(props map[string]string, at time.Time) *contact {
	p.nextID += 1 + int64(len(p.contacts)%7)
	ct := &contact{id: strconv.FormatInt(p.nextID, 10), props: props, created: at}
	p.contacts = append(p.contacts, ct)
	if e := strings.ToLower(props["email"]); e != "" {
		p.byEmail[e] = ct
	}
	return ct
}

func (ct *contact) json() map[string]any {
	props := map[string]any{"hs_object_id": ct.id, "createdate": ct.created.UTC().Format(model.WireTime),
		"lastmodifieddate": ct.created.UTC().Format(model.WireTime)}
	for k, v := range ct.props {
		props[k] = v
	}
	return map[string]any{"id": ct.id, "properties": props, "createdAt": iso(ct.created), "updatedAt": iso(ct.created), "archived": false}
}

func (w *world) portalOf(c *call) (*portal, *opResult) {
	if c.acct == nil || c.acct.company == nil || c.acct.toolkit != "hubspot" {
		r := fail(http.StatusUnauthorized, "Authentication credentials not found")
		return nil, &r
	}
	return c.acct.company.hubspot, nil
}

func (w *world) hubspotCreate(c *call) opResult {
	p, bad := w.portalOf(c)
	if bad != nil {
		return *bad
	}
	props := map[string]string{}
	for _, k := range contactProps() {
		if v := strArg(c.args, k); v != "" {
			props[k] = v
		}
	}
	if len(props) == 0 {
		return fail(http.StatusBadRequest, "No properties provided")
	}
	if e := strings.ToLower(props["email"]); e != "" {
		if old := p.byEmail[e]; old != nil {
			return fail(http.StatusConflict, "Contact already exists. Existing ID: %s", old.id)
		}
	}
	ct := p.add(props, c.now)
	return opResult{data: ct.json(), objectID: ct.id, committed: true}
}

func (w *world) hubspotSearch(c *call) opResult {
	p, bad := w.portalOf(c)
	if bad != nil {
		return *bad
	}
	q := strings.ToLower(strArg(c.args, "query"))
	groups, _ := c.args["filterGroups"].([]any)
	var in []*contact
	for _, ct := range p.contacts {
		if len(groups) > 0 && !matchesGroups(ct, groups) {
			continue
		}
		if q != "" {
			hit := false
			for _, k := range []string{"email", "firstname", "lastname", "company"} {
				hit = hit || strings.Contains(strings.ToLower(ct.props[k]), q)
			}
			if !hit {
				continue
			}
		}
		in = append(in, ct)
	}
	sort.SliceStable(in, func(i, j int) bool { return in[i].created.After(in[j].created) })
	limit := pageSize(intArgOr(c.args, "limit", 10), 10, 100)
	after, _ := strconv.Atoi(strArg(c.args, "after"))
	out := []any{}
	for i := after; i < len(in) && len(out) < limit; i++ {
		out = append(out, in[i].json())
	}
	data := map[string]any{"total": len(in), "results": out}
	if after+len(out) < len(in) {
		data["paging"] = map[string]any{"next": map[string]any{"after": strconv.Itoa(after + len(out))}}
	}
	return opResult{data: data}
}

// matchesGroups applies HubSpot's search filters: any group whose every filter holds.
func matchesGroups(ct *contact, groups []any) bool {
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		filters, _ := gm["filters"].([]any)
		all := len(filters) > 0
		for _, f := range filters {
			fm, _ := f.(map[string]any)
			prop, _ := fm["propertyName"].(string)
			op, _ := fm["operator"].(string)
			val := fmt.Sprint(fm["value"])
			have := ct.props[prop]
			switch strings.ToUpper(op) {
			case "EQ":
				all = all && strings.EqualFold(have, val)
			case "NEQ":
				all = all && !strings.EqualFold(have, val)
			case "CONTAINS_TOKEN":
				all = all && strings.Contains(strings.ToLower(have), strings.ToLower(strings.Trim(val, "*")))
			case "HAS_PROPERTY":
				all = all && have != ""
			default:
				all = false
			}
		}
		if all {
			return true
		}
	}
	return false
}
