package sdkversion

import "testing"

func TestComparePEP440(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"0.15.2", "0.16.0", -1},
		{"0.16.0", "0.16.0", 0},
		{"0.16", "0.16.0", 0},
		{"0.16.0rc1", "0.16.0", -1},
		{"0.16.0.rc1", "0.16.0rc2", -1},
		{"0.16.0a1", "0.16.0b1", -1},
		{"0.16.0b1", "0.16.0rc1", -1},
		{"0.16.0.dev3", "0.16.0a1", -1},
		{"0.16.0.dev3", "0.16.0", -1},
		{"0.16.0a1.dev1", "0.16.0a1", -1},
		{"0.16.0.post1", "0.16.0", 1},
		{"0.16.0-1", "0.16.0.post1", 0},
		{"0.16.0+local.7", "0.16.0", 0},
		{"v0.16.1", "0.16.0", 1},
		{"1!0.1", "2.0", 1},
		{"0.15.10", "0.15.9", 1},
		{"0.16.0C1", "0.16.0rc1", 0},
		{"0.16.0preview2", "0.16.0rc1", 1},
	}
	for _, tt := range tests {
		got, err := ComparePEP440(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("ComparePEP440(%q, %q) = %d, %v; want %d", tt.a, tt.b, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "latest", "1..2", "abc1.0", "1.0-beta-gamma"} {
		if _, err := ComparePEP440(bad, "1.0"); err == nil {
			t.Errorf("ComparePEP440(%q) accepted", bad)
		}
	}
}

func TestCompareSemver(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"0.13.1", "0.14.0", -1},
		{"0.14.0", "0.14.0", 0},
		{"0.14.0-beta.1", "0.14.0", -1},
		{"0.14.0-alpha", "0.14.0-alpha.1", -1},
		{"0.14.0-alpha.1", "0.14.0-alpha.beta", -1},
		{"0.14.0-beta.2", "0.14.0-beta.11", -1},
		{"0.14.0-rc.1", "0.14.0-beta.11", 1},
		{"0.14.0+build.5", "0.14.0", 0},
		{"v0.14.1", "0.14.0", 1},
		{"0.14.0-0", "0.14.0-alpha", -1},
		{"1.0.0", "0.99.99", 1},
	}
	for _, tt := range tests {
		got, err := CompareSemver(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("CompareSemver(%q, %q) = %d, %v; want %d", tt.a, tt.b, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "0.14", "latest", "0.14.0.1", "^0.14.0"} {
		if _, err := CompareSemver(bad, "1.0.0"); err == nil {
			t.Errorf("CompareSemver(%q) accepted", bad)
		}
	}
}

// TestRangeAllowsRetryingVersion asks of each range: does it allow a version before the fix,
// and one from the fix on?
func TestRangeAllowsRetryingVersion(t *testing.T) {
	tests := []struct {
		eco          Ecosystem
		rng          string
		old, current bool
	}{
		{PyPI, ">=0.15", true, true},
		{PyPI, ">=0.16.0", false, true},
		{PyPI, ">=0.16.0rc1", true, true},
		{PyPI, "==0.15.2", true, false},
		{PyPI, "==0.15.*", true, false},
		{PyPI, "==0.16.*", false, true},
		{PyPI, "!=0.15.*,>=0.15", false, true},
		{PyPI, "~=0.15", true, true},
		{PyPI, "~=0.15.2", true, false},
		{PyPI, "~=0.16.0", false, true},
		{PyPI, "<0.16", true, false},
		{PyPI, ">0.15.9,<0.16.0", true, false},
		{PyPI, ">=0.14,<0.17", true, true},
		{PyPI, "", true, true},
		{PyPI, "*", true, true},
		{PyPI, "^0.15", true, false},   // Poetry: >=0.15,<0.16
		{PyPI, "^0.16", false, true},   // Poetry: >=0.16,<0.17
		{PyPI, "~0.15.3", true, false}, // Poetry: >=0.15.3,<0.16
		{PyPI, "0.16.1", false, true},  // Poetry bare version: exact
		{PyPI, ">= 0.15, < 0.16 || >= 0.17", true, true},
		{PyPI, ">=0.17 <0.18", false, true},
		{PyPI, "(>=0.16)", false, true},
		{NPM, "^0.13.1", true, false},
		{NPM, "^0.14.0", false, true},
		{NPM, "~0.13.0", true, false},
		{NPM, "0.13.x", true, false},
		{NPM, "0.x", true, true},
		{NPM, ">=0.13.0", true, true},
		{NPM, ">=0.14.0-beta.1", true, true},
		{NPM, ">0.13", false, true},
		{NPM, "<=0.13", true, false},
		{NPM, ">= 0.12 < 0.15", true, true},
		{NPM, "0.12.0 - 0.13.5", true, false},
		{NPM, "0.14.0 - 0.15", false, true},
		{NPM, "^0.12.0 || ^0.14.0", true, true},
		{NPM, "*", true, true},
		{NPM, "0.14.0", false, true},
		{NPM, "=0.13.1", true, false},
		{NPM, "^1.0.0", false, true},
		{NPM, "^0.0.3", true, false},
		{NPM, ">=0.15.0 <0.14.0", false, false},
	}
	for _, tt := range tests {
		old, current, err := RangeSplit(tt.eco, tt.rng)
		if err != nil || old != tt.old || current != tt.current {
			t.Errorf("%s range %q: old=%v current=%v err=%v; want old=%v current=%v", tt.eco, tt.rng, old, current, err, tt.old, tt.current)
		}
	}
	for _, bad := range []struct {
		eco Ecosystem
		rng string
	}{{PyPI, ">=abc"}, {PyPI, "~=1"}, {NPM, "latest"}, {NPM, ">=one"}} {
		if _, _, err := RangeSplit(bad.eco, bad.rng); err == nil {
			t.Errorf("%s range %q accepted", bad.eco, bad.rng)
		}
	}
}
