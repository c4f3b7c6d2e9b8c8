package sandbox

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/exectriage/exectriage/triage"
)

// TestEveryToolCarriesOneKindTag: as Composio's tools do now, every tool the
// sandbox serves carries exactly one of the four kind tags (readOnlyHint, createHint,
// updateHint, destructiveHint), and the kind triage learns from its definition, as served by
// the tools API, is what the tool does: a write exactly when it changes the provider's state.
func TestEveryToolCarriesOneKindTag(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	kindTags := []string{triage.TagReadOnly, triage.TagCreate, triage.TagUpdate, triage.TagDestructive}
	creates := 0
	for _, def := range newCatalog().tools {
		status, _, b := doReq(t, ts.URL, "GET", "/api/v3.1/tools/"+def.slug, nil, nil)
		var tool struct {
			Tags []string `json:"tags"`
		}
		if status != 200 || json.Unmarshal(b, &tool) != nil {
			t.Fatalf("%s: %d %s", def.slug, status, b)
		}
		n := 0
		for _, tag := range tool.Tags {
			if slices.Contains(kindTags, tag) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: tags %v, want exactly one of %v", def.slug, tool.Tags, kindTags)
		}
		if slices.Contains(tool.Tags, triage.TagCreate) {
			creates++
		}
		k, ok := triage.KindFromTags(tool.Tags)
		if !ok || k.IsWrite() != def.write {
			t.Errorf("%s: its tags %v give %s (%v), want a write: %v", def.slug, tool.Tags, k, ok, def.write)
		}
	}
	if creates < 5 {
		t.Errorf("%d tools tagged createHint, want every create's", creates)
	}
}
