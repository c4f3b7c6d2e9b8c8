package doctor_test

import (
	"testing"

	"github.com/exectriage/exectriage/doctor"
	"github.com/exectriage/exectriage/triage"
)

// TestAgreesWithTriage keeps the two readings of "does this SDK version retry writes" in step:
// doctor's (per ecosystem, for manifests and lock files) and triage's (for log records).
func TestAgreesWithTriage(t *testing.T) {
	cases := []struct {
		eco          doctor.Ecosystem
		pkg, version string
	}{
		{doctor.PyPI, "composio", "0.15.2"},
		{doctor.PyPI, "composio", "0.15.99"},
		{doctor.PyPI, "composio", "0.16.0rc1"},
		{doctor.PyPI, "composio", "0.16.0.dev3"},
		{doctor.PyPI, "composio", "0.16.0"},
		{doctor.PyPI, "composio", "0.16.0.post1"},
		{doctor.PyPI, "composio", "0.17.2"},
		{doctor.PyPI, "composio", "1.0.0"},
		{doctor.NPM, "@composio/core", "0.13.1"},
		{doctor.NPM, "@composio/core", "0.14.0-beta.2"},
		{doctor.NPM, "@composio/core", "0.14.0"},
		{doctor.NPM, "@composio/core", "0.14.1"},
		{doctor.NPM, "@composio/core", "0.20.0"},
	}
	for _, c := range cases {
		d, ok := doctor.SDKRetriesWrites(c.eco, c.pkg, c.version)
		tr, _ := triage.SDKAutoRetries(c.pkg, c.version)
		if !ok || d != tr {
			t.Errorf("%s %s: doctor says retries=%v (ok=%v), triage says %v", c.pkg, c.version, d, ok, tr)
		}
	}
}
