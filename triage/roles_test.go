package triage

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// The roles real Composio definitions give their arguments: an address is the target's own only
// where the tool creates that record and its schema says the address is the record's (a user's
// primary email, a group's email); an owner's or an invitee's address, a billing address, the
// account a call runs as, and every address of a tool that acts on a person are not; a message's
// recipients are recipients, its body a message.
func TestRolesFromRealDefinitions(t *testing.T) {
	b, err := os.ReadFile("testdata/role_tool_schemas.json")
	if err != nil {
		t.Fatal(err)
	}
	var defs []model.Tool
	if err := json.Unmarshal(b, &defs); err != nil {
		t.Fatal(err)
	}
	kinds := NewKinds()
	kinds.Learn(defs...)
	want := map[string]Role{
		"GOOGLE_ADMIN_CREATE_USER.primary_email":                RoleOwnAddress,
		"GOOGLE_ADMIN_CREATE_USER.recovery_email":               RoleNone,
		"GOOGLE_ADMIN_CREATE_GROUP.email":                       RoleOwnAddress,
		"GOOGLE_CLASSROOM_COURSES_CREATE.ownerId":               RoleNone,
		"GOOGLE_CLASSROOM_INVITATIONS_CREATE.userId":            RoleNone,
		"GOOGLE_ADMIN_ADD_USER_ALIAS.user_key":                  RoleNone,
		"GOOGLE_ADMIN_ADD_USER_TO_GROUP.user_key":               RoleNone,
		"GOOGLEDRIVE_ADD_FILE_SHARING_PREFERENCE.email_address": RoleNone,
		"GITHUB_UPDATE_AN_ORGANIZATION.billing_email":           RoleNone,
		"GITHUB_CREATE_A_TAG_OBJECT.tagger__email":              RoleNone,
		"GMAIL_CREATE_LABEL.user_id":                            RoleAccount,
		"GMAIL_CREATE_EMAIL_DRAFT.recipient_email":              RoleRecipient,
		"GMAIL_CREATE_EMAIL_DRAFT.cc":                           RoleRecipient,
		"GMAIL_CREATE_EMAIL_DRAFT.body":                         RoleMessage,
		"GMAIL_REPLY_TO_THREAD.message_body":                    RoleMessage,
	}
	for k, w := range want {
		slug, arg, _ := strings.Cut(k, ".")
		if got := kinds.Roles(slug)[arg]; got != w {
			t.Errorf("%s: role %d, want %d", k, got, w)
		}
	}
	// no real definition among them makes an event of a check run's start
	if r := kinds.Roles("GITHUB_CREATE_A_CHECK_RUN"); r["started_at"] == RoleStart && r["output__summary"] == RolePeople {
		t.Error("a check run pinned as an event")
	}
	if Created("GOOGLE_CLASSROOM_COURSES_CREATE")[1] != "course" || Created("HUBSPOT_CREATE_CONTACT")[0] != "contact" ||
		Created("GMAIL_SEND_EMAIL") != nil {
		t.Errorf("Created: %q %q %q", Created("GOOGLE_CLASSROOM_COURSES_CREATE"), Created("HUBSPOT_CREATE_CONTACT"), Created("GMAIL_SEND_EMAIL"))
	}
}

// A tool whose argument names no rule knows pins its target through its definition: a member
// created again under another spelling of the name after a timeout is one intent once the
// definition says which argument is the member's own address, and two when it does not (the
// names alone); a booking made again under another headline is one intent once the definition
// says when it starts and who is invited. Another address or another slot stays apart.
// Analyze and Incremental agree.
func TestADefinitionPinsWhatTheNamesDoNot(t *testing.T) {
	member := model.Tool{Slug: "ACME_CREATE_MEMBER", InputParameters: json.RawMessage(`{"properties":{
		"member_mail":{"type":"string","description":"Email address of the new member"},
		"called":{"type":"string","description":"How the member likes to be called"},
		"tier":{"type":"string"}}}`)}
	booking := model.Tool{Slug: "ACME_CREATE_BOOKING", InputParameters: json.RawMessage(`{"properties":{
		"begins":{"type":"string","format":"date-time","description":"When the booking starts"},
		"invite_list":{"type":"array","items":{"type":"string","format":"email"}},
		"headline":{"type":"string","description":"The title of the booking"}}}`)}
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	timeout := &model.ExecError{Kind: model.ErrTimeout, Message: "Request timed out"}
	mk := func(id, slug, args string, after time.Duration, err *model.ExecError) model.Execution {
		status := "success"
		if err != nil {
			status = "failed"
		}
		return model.Execution{ID: id, ToolSlug: slug, ToolkitSlug: "acme", ConnectedAccountID: "ca_1", UserID: "u1",
			StartTime: at.Add(after), Timestamp: at.Add(after), Status: status, Error: err, Arguments: json.RawMessage(args),
			Detailed: true, RetryCount: -1}
	}
	execs := []model.Execution{
		mk("m1", member.Slug, `{"member_mail":"dana@x.org","called":"Dana Okafor","tier":"gold"}`, 0, timeout),
		mk("m2", member.Slug, `{"member_mail":"Dana@x.org","called":"Okafor, Dana","tier":"Gold tier"}`, 40*time.Second, nil),
		mk("m3", member.Slug, `{"member_mail":"tom@x.org","called":"Tom","tier":"gold"}`, 90*time.Second, nil),
		mk("b1", booking.Slug, `{"begins":"2026-03-14T15:00:00Z","invite_list":["a@x.org","b@x.org"],"headline":"Q3 budget"}`, 0, timeout),
		mk("b2", booking.Slug, `{"begins":"2026-03-14T16:00:00+01:00","invite_list":["B@x.org","a@x.org"],"headline":"Budget sync (Q3)"}`,
			50*time.Second, nil),
		mk("b3", booking.Slug, `{"begins":"2026-03-15T15:00:00Z","invite_list":["a@x.org","b@x.org"],"headline":"Q3 budget"}`,
			2*time.Minute, nil),
	}
	together := func(res *Result, ids ...string) bool {
		g := ""
		for _, id := range ids {
			i := indexOf(execs, id)
			if res.Triage[i].GroupID == "" || g != "" && res.Triage[i].GroupID != g {
				return false
			}
			g = res.Triage[i].GroupID
		}
		return true
	}
	grouped := func(res *Result, id string) bool { return res.Triage[indexOf(execs, id)].GroupID != "" }

	names := Analyze(execs, NewKinds(), Options{})
	if together(names, "m1", "m2") || together(names, "b1", "b2") {
		t.Fatalf("the names alone pinned what only the definition says: %+v", names.Groups)
	}
	kinds := NewKinds()
	kinds.Learn(member, booking)
	for name, res := range map[string]*Result{"Analyze": Analyze(execs, kinds, Options{}),
		"Incremental": incrementalResultWith(t, execs, kinds, Options{})} {
		if !together(res, "m1", "m2") || !together(res, "b1", "b2") {
			t.Errorf("%s: the definition's roles did not join the re-sent member and booking: %+v", name, res.Groups)
		}
		if grouped(res, "m3") || grouped(res, "b3") {
			t.Errorf("%s: another member or another slot joined: %+v", name, res.Groups)
		}
	}
}

func indexOf(execs []model.Execution, id string) int {
	for i := range execs {
		if execs[i].ID == id {
			return i
		}
	}
	return -1
}
