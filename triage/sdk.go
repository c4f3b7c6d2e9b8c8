package triage

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/exectriage/exectriage/model"
)

// The Composio SDK packages and the first versions whose tools.execute and proxy no longer
// retry (Python composio 0.16.0, TypeScript @composio/core 0.14.0).
const (
	PythonSDK             = "composio"
	TypeScriptSDK         = "@composio/core"
	PythonSDKFixedIn      = "0.16.0"
	TypeScriptSDKFixedIn  = "0.14.0"
	sdkRetriesWritesNoted = "auto-retries writes"
)

// SDKAutoRetries reports whether Composio SDK package pkg at version still auto-retries
// tools.execute and proxy calls, and says so in one line ("Python composio 0.15.2 auto-retries
// writes"). pkg is a package name (composio, @composio/core) or a language as records carry it
// (python, PYTHON_SDK, typescript, TYPESCRIPT_SDK, javascript, node). A pre-release of the fixing
// version (0.16.0rc1) may predate the fix, so it counts as retrying, and the note says "may".
// note is "" when the version is fixed, unparseable, or pkg is not a Composio SDK.
func SDKAutoRetries(pkg, version string) (retries bool, note string) {
	lang, name, fixed := sdkFor(pkg)
	if fixed == "" {
		return false, ""
	}
	v, ok := parseVersion(version)
	if !ok {
		return false, ""
	}
	f, _ := parseVersion(fixed)
	if compareParsed(v, f) >= 0 {
		return false, ""
	}
	shown := strings.TrimSpace(version)
	if v.pre != nil && compareRelease(v.release, f.release) == 0 {
		return true, fmt.Sprintf("%s %s %s (a pre-release of %s) may still auto-retry writes", lang, name, shown, fixed)
	}
	return true, fmt.Sprintf("%s %s %s %s", lang, name, shown, sdkRetriesWritesNoted)
}

func sdkFor(pkg string) (lang, name, fixed string) {
	p := strings.ToLower(strings.TrimSpace(pkg))
	switch p {
	case "composio", "python", "python_sdk", "py", "python3", "pypi":
		return "Python", PythonSDK, PythonSDKFixedIn
	case "@composio/core", "typescript", "typescript_sdk", "ts", "javascript", "javascript_sdk", "js",
		"node", "nodejs", "npm":
		return "TypeScript", TypeScriptSDK, TypeScriptSDKFixedIn
	}
	return "", "", ""
}

// OldSDK returns a one-line note when the execution names a Composio SDK that auto-retries
// writes ("Python composio 0.15.2 auto-retries writes"), else "". It reads the SDK version
// (metadata.sdk_version) and the language from source.language (x-source), falling back to
// source.framework and source.host. Without a known language, a version below both fixes
// (< 0.14.0) is old in either SDK; one in between is reported as old only if it is Python's.
func OldSDK(e *model.Execution) string {
	ver := strings.TrimSpace(e.SDKVersion)
	if ver == "" {
		return ""
	}
	for _, hint := range []string{e.Source.Language, e.Source.Framework, e.Source.Host} {
		if _, _, fixed := sdkFor(hint); fixed != "" {
			_, note := SDKAutoRetries(hint, ver)
			return note
		}
	}
	if r, _ := SDKAutoRetries(TypeScriptSDK, ver); r {
		return "Composio SDK " + ver + " (language not recorded) " + sdkRetriesWritesNoted
	}
	if r, _ := SDKAutoRetries(PythonSDK, ver); r {
		return "Composio SDK " + ver + " (language not recorded) auto-retries writes if it is Python composio"
	}
	return ""
}

// CompareVersions compares two version strings and returns -1, 0 or +1. It reads PEP 440
// (0.16.0, 0.16.0rc1, 0.16.0.dev2, 0.16.0.post1) and semver (v0.13.1, 0.14.0-beta.2,
// 0.14.0+build) alike: a leading v or = is ignored, missing release parts are zero (0.16 ==
// 0.16.0), a pre-release sorts before its release (dev < alpha < beta < rc), a post-release
// after, and build metadata is ignored. ok is false when either string is not a version.
func CompareVersions(a, b string) (cmp int, ok bool) {
	va, ok1 := parseVersion(a)
	vb, ok2 := parseVersion(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	return compareParsed(va, vb), true
}

type version struct {
	release []int
	pre     *preRelease // nil: a final release
	post    int         // post-release number, -1 when none
}

type preRelease struct {
	rank  int // dev 0, alpha 1, beta 2, other labels 3, rc 4
	num   int
	label string // unknown labels compare by text within rank 3
}

func parseVersion(s string) (version, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimLeft(s, "=")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	if i := strings.IndexByte(s, '+'); i >= 0 { // build metadata / local version
		s = s[:i]
	}
	s = strings.ToLower(s)
	v := version{post: -1}
	i := 0
	for {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return version{}, false
		}
		n, err := strconv.Atoi(s[i:j])
		if err != nil {
			return version{}, false
		}
		v.release = append(v.release, n)
		i = j
		if i < len(s) && s[i] == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			i++
			continue
		}
		break
	}
	rest := strings.TrimLeft(s[i:], ".-_")
	for rest != "" {
		label, num, tail := splitLabel(rest)
		switch label {
		case "post", "rev", "r":
			v.post = num
		case "dev", "snapshot":
			if v.pre == nil {
				v.pre = &preRelease{rank: 0, num: num}
			}
		case "a", "alpha":
			v.pre = &preRelease{rank: 1, num: num}
		case "b", "beta":
			v.pre = &preRelease{rank: 2, num: num}
		case "rc", "c", "pre", "preview":
			v.pre = &preRelease{rank: 4, num: num}
		case "":
			return version{}, false
		default:
			v.pre = &preRelease{rank: 3, num: num, label: label}
		}
		rest = strings.TrimLeft(tail, ".-_")
	}
	return v, true
}

// splitLabel splits "rc1.more" into "rc", 1, ".more" (and "beta.2" into "beta", 2, "").
func splitLabel(s string) (string, int, string) {
	i := 0
	for i < len(s) && s[i] >= 'a' && s[i] <= 'z' {
		i++
	}
	label := s[:i]
	rest := strings.TrimLeft(s[i:], ".-_")
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	num := 0
	if j > 0 {
		num, _ = strconv.Atoi(rest[:j])
		return label, num, rest[j:]
	}
	return label, 0, s[i:]
}

func compareParsed(a, b version) int {
	if c := compareRelease(a.release, b.release); c != 0 {
		return c
	}
	switch {
	case a.pre != nil && b.pre == nil:
		return -1
	case a.pre == nil && b.pre != nil:
		return 1
	case a.pre != nil && b.pre != nil:
		if c := compareInt(a.pre.rank, b.pre.rank); c != 0 {
			return c
		}
		if c := strings.Compare(a.pre.label, b.pre.label); c != 0 {
			return c
		}
		if c := compareInt(a.pre.num, b.pre.num); c != 0 {
			return c
		}
	}
	return compareInt(a.post, b.post)
}

func compareRelease(a, b []int) int {
	for i := range max(len(a), len(b)) {
		var x, y int
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if c := compareInt(x, y); c != 0 {
			return c
		}
	}
	return 0
}

func compareInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
