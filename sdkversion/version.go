package sdkversion

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Version ordering and ranges for the two ecosystems: PEP 440 for Python (pip, Poetry, uv)
// and SemVer 2 with node-semver ranges for npm. Only what is needed to say whether an SDK
// retries writes: compare two versions, and turn a range into a set of intervals so one can
// ask "does this range allow anything older than the fix?". Pre-releases sort before their
// release (0.16.0rc1 < 0.16.0, 0.14.0-beta.1 < 0.14.0).

// ---- PEP 440 ----

type pyVersion struct {
	epoch   int64
	release []int64 // trailing zeros trimmed: 1.0 == 1.0.0
	// pre is the pre-release phase (0 a, 1 b, 2 rc) and number; preSet false when absent
	prePhase int
	preN     int64
	preSet   bool
	post     int64 // -1 when absent
	dev      int64 // -1 when absent
	// synthetic marks the X.dev0 that stands for "the lowest version of X" in a range bound;
	// it is not a pre-release anyone asked for
	synthetic bool
}

var pep440RE = regexp.MustCompile(`(?i)^\s*v?(?:([0-9]+)!)?([0-9]+(?:\.[0-9]+)*)` +
	`(?:[-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?([0-9]+)?)?` +
	`(?:-([0-9]+)|[-_.]?(post|rev|r)[-_.]?([0-9]+)?)?` +
	`(?:[-_.]?(dev)[-_.]?([0-9]+)?)?` +
	`(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?\s*$`)

func parseNum(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("number %q: %w", s, err)
	}
	return n, nil
}

// parsePEP440 parses a PEP 440 version (local labels are accepted and ignored).
func parsePEP440(s string) (pyVersion, error) {
	m := pep440RE.FindStringSubmatch(s)
	if m == nil {
		return pyVersion{}, fmt.Errorf("not a PEP 440 version: %q", s)
	}
	v := pyVersion{post: -1, dev: -1}
	var err error
	if v.epoch, err = parseNum(m[1]); err != nil {
		return pyVersion{}, err
	}
	for p := range strings.SplitSeq(m[2], ".") {
		n, err := parseNum(p)
		if err != nil {
			return pyVersion{}, err
		}
		v.release = append(v.release, n)
	}
	for len(v.release) > 1 && v.release[len(v.release)-1] == 0 {
		v.release = v.release[:len(v.release)-1]
	}
	if m[3] != "" {
		v.preSet = true
		switch strings.ToLower(m[3]) {
		case "a", "alpha":
			v.prePhase = 0
		case "b", "beta":
			v.prePhase = 1
		default: // c, rc, pre, preview
			v.prePhase = 2
		}
		if v.preN, err = parseNum(m[4]); err != nil {
			return pyVersion{}, err
		}
	}
	switch {
	case m[5] != "":
		if v.post, err = parseNum(m[5]); err != nil {
			return pyVersion{}, err
		}
	case m[6] != "":
		if v.post, err = parseNum(m[7]); err != nil {
			return pyVersion{}, err
		}
	}
	if m[8] != "" {
		if v.dev, err = parseNum(m[9]); err != nil {
			return pyVersion{}, err
		}
	}
	return v, nil
}

func cmpRelease(a, b []int64) int {
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y int64
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
	}
	return 0
}

// comparePy orders PEP 440 versions: X.devN < X.aN < X.bN < X.rcN < X < X.postN.
func comparePy(a, b pyVersion) int {
	if c := cmp.Compare(a.epoch, b.epoch); c != 0 {
		return c
	}
	if c := cmpRelease(a.release, b.release); c != 0 {
		return c
	}
	// pre key: a dev release of the final version sorts before every pre-release
	preKey := func(v pyVersion) (int64, int64) {
		switch {
		case !v.preSet && v.post < 0 && v.dev >= 0:
			return -1, 0
		case !v.preSet:
			return 3, 0 // the final release
		}
		return int64(v.prePhase), v.preN
	}
	ap, an := preKey(a)
	bp, bn := preKey(b)
	if c := cmp.Compare(ap, bp); c != 0 {
		return c
	}
	if c := cmp.Compare(an, bn); c != 0 {
		return c
	}
	if c := cmp.Compare(a.post, b.post); c != 0 { // -1 (none) sorts first
		return c
	}
	devKey := func(v pyVersion) int64 {
		if v.dev < 0 {
			return 1 << 62 // no dev part sorts after any dev release
		}
		return v.dev
	}
	return cmp.Compare(devKey(a), devKey(b))
}

// ComparePEP440 compares two PEP 440 versions: -1, 0 or 1.
func ComparePEP440(a, b string) (int, error) { return compareWith(parsePEP440, comparePy, a, b) }

// compareWith parses a and b and compares them.
func compareWith[V any](parse func(string) (V, error), cmp func(a, b V) int, a, b string) (int, error) {
	va, err := parse(a)
	if err != nil {
		return 0, err
	}
	vb, err := parse(b)
	if err != nil {
		return 0, err
	}
	return cmp(va, vb), nil
}

// pyLowest is the smallest version whose release starts with rel: rel.dev0.
func pyLowest(rel []int64) pyVersion {
	r := append([]int64(nil), rel...)
	for len(r) > 1 && r[len(r)-1] == 0 {
		r = r[:len(r)-1]
	}
	return pyVersion{release: r, post: -1, dev: 0, synthetic: true}
}

// explicitPrePy reports whether v is a pre- or dev-release written in a range.
func explicitPrePy(v pyVersion) bool { return !v.synthetic && (v.preSet || v.dev >= 0) }

// bump returns rel cut to n components with the last one incremented (1.2.3, 2 -> 1.3).
func bump(rel []int64, n int) []int64 {
	out := make([]int64, n)
	copy(out, rel)
	out[n-1]++
	return out
}

// ---- SemVer ----

type semVersion struct {
	major, minor, patch int64
	pre                 []string // nil for a release
	synthetic           bool     // X.Y.Z-0 standing for "the lowest version of X.Y.Z" in a range bound
}

// explicitPreSem reports whether v is a pre-release written in a range.
func explicitPreSem(v semVersion) bool { return !v.synthetic && v.pre != nil }

var semverRE = regexp.MustCompile(
	`^\s*[v=]?\s*([0-9]+)\.([0-9]+)\.([0-9]+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?\s*$`,
)

func parseSemver(s string) (semVersion, error) {
	m := semverRE.FindStringSubmatch(s)
	if m == nil {
		return semVersion{}, fmt.Errorf("not a semantic version: %q", s)
	}
	var v semVersion
	var err error
	if v.major, err = parseNum(m[1]); err != nil {
		return semVersion{}, err
	}
	if v.minor, err = parseNum(m[2]); err != nil {
		return semVersion{}, err
	}
	if v.patch, err = parseNum(m[3]); err != nil {
		return semVersion{}, err
	}
	if m[4] != "" {
		v.pre = strings.Split(m[4], ".")
	}
	return v, nil
}

func isNumeric(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func compareSem(a, b semVersion) int {
	if c := cmp.Compare(a.major, b.major); c != 0 {
		return c
	}
	if c := cmp.Compare(a.minor, b.minor); c != 0 {
		return c
	}
	if c := cmp.Compare(a.patch, b.patch); c != 0 {
		return c
	}
	switch {
	case a.pre == nil && b.pre == nil:
		return 0
	case a.pre == nil:
		return 1
	case b.pre == nil:
		return -1
	}
	for i := 0; i < min(len(a.pre), len(b.pre)); i++ {
		x, y := a.pre[i], b.pre[i]
		xn, yn := isNumeric(x), isNumeric(y)
		switch {
		case xn && yn:
			if len(x) != len(y) { // no leading zeros in valid semver: longer is bigger
				return cmp.Compare(int64(len(x)), int64(len(y)))
			}
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
		case xn:
			return -1
		case yn:
			return 1
		default:
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
		}
	}
	return cmp.Compare(int64(len(a.pre)), int64(len(b.pre)))
}

// CompareSemver compares two semantic versions: -1, 0 or 1.
func CompareSemver(a, b string) (int, error) { return compareWith(parseSemver, compareSem, a, b) }

// semLowest is the smallest version of major.minor.patch: its "-0" pre-release.
func semLowest(major, minor, patch int64) semVersion {
	return semVersion{major: major, minor: minor, patch: patch, pre: []string{"0"}, synthetic: true}
}

// ---- intervals ----

type bound[V any] struct {
	v   V
	inc bool
	inf bool // -inf for a lower bound, +inf for an upper bound
}

type interval[V any] struct{ lo, hi bound[V] }

// vset is a union of intervals.
type vset[V any] []interval[V]

func all[V any]() vset[V] { return vset[V]{{lo: bound[V]{inf: true}, hi: bound[V]{inf: true}}} }

func atLeast[V any](v V, inc bool) vset[V] {
	return vset[V]{{lo: bound[V]{v: v, inc: inc}, hi: bound[V]{inf: true}}}
}

func below[V any](v V, inc bool) vset[V] {
	return vset[V]{{lo: bound[V]{inf: true}, hi: bound[V]{v: v, inc: inc}}}
}

func between[V any](lo V, loInc bool, hi V, hiInc bool) vset[V] {
	return vset[V]{{lo: bound[V]{v: lo, inc: loInc}, hi: bound[V]{v: hi, inc: hiInc}}}
}

func exactly[V any](v V) vset[V] { return between(v, true, v, true) }

func nonEmpty[V any](iv interval[V], cmp func(a, b V) int) bool {
	if iv.lo.inf || iv.hi.inf {
		return true
	}
	c := cmp(iv.lo.v, iv.hi.v)
	return c < 0 || (c == 0 && iv.lo.inc && iv.hi.inc)
}

// maxLo is the tighter of two lower bounds, minHi the tighter of two upper bounds.
func maxLo[V any](a, b bound[V], cmp func(a, b V) int) bound[V] {
	switch {
	case a.inf:
		return b
	case b.inf:
		return a
	}
	c := cmp(a.v, b.v)
	switch {
	case c > 0:
		return a
	case c < 0:
		return b
	}
	return bound[V]{v: a.v, inc: a.inc && b.inc}
}

func minHi[V any](a, b bound[V], cmp func(a, b V) int) bound[V] {
	switch {
	case a.inf:
		return b
	case b.inf:
		return a
	}
	c := cmp(a.v, b.v)
	switch {
	case c < 0:
		return a
	case c > 0:
		return b
	}
	return bound[V]{v: a.v, inc: a.inc && b.inc}
}

func intersect[V any](a, b vset[V], cmp func(a, b V) int) vset[V] {
	var out vset[V]
	for _, x := range a {
		for _, y := range b {
			iv := interval[V]{lo: maxLo(x.lo, y.lo, cmp), hi: minHi(x.hi, y.hi, cmp)}
			if nonEmpty(iv, cmp) {
				out = append(out, iv)
			}
		}
	}
	return out
}

// split reports whether the set holds versions before the fix t and versions from t on.
// Pre-releases of t itself (0.16.0rc1, 0.14.0-beta.1) count as before the fix only when the
// range names one: pip and npm do not pick a pre-release otherwise, so "==0.16.*" or ">0.13"
// do not resolve to one.
func split[V any](s vset[V], t, tLowest V, cmp func(a, b V) int, explicitPre func(V) bool) (old, current bool) {
	old = len(intersect(s, below(tLowest, false), cmp)) > 0
	for _, iv := range s {
		if !old && !iv.lo.inf && explicitPre(iv.lo.v) && cmp(iv.lo.v, t) < 0 && nonEmpty(iv, cmp) {
			old = true
		}
	}
	return old, len(intersect(s, atLeast(t, true), cmp)) > 0
}

// ---- Python specifiers (PEP 440, plus Poetry's ^, ~, bare versions and ||) ----

var pyClauseRE = regexp.MustCompile(`^\s*(~=|===|==|!=|<=|>=|<|>|\^|~|=)?\s*(\*|v?[0-9][0-9A-Za-z.!+_*-]*)\s*`)

var errEmptyRange = errors.New("empty range")

// parsePyRange parses a PEP 440 specifier set or a Poetry constraint.
func parsePyRange(spec string) (vset[pyVersion], error) {
	spec = strings.TrimSpace(strings.Trim(strings.TrimSpace(spec), "()"))
	if spec == "" || spec == "*" {
		return all[pyVersion](), nil
	}
	var out vset[pyVersion]
	for _, alt := range splitAny(spec, "||", "|") {
		set := all[pyVersion]()
		for part := range strings.SplitSeq(alt, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			for part != "" {
				m := pyClauseRE.FindStringSubmatchIndex(part)
				if m == nil {
					return nil, fmt.Errorf("cannot read version constraint %q", part)
				}
				op, ver := "", part[m[4]:m[5]]
				if m[2] >= 0 {
					op = part[m[2]:m[3]]
				}
				cs, err := pyClause(op, ver)
				if err != nil {
					return nil, err
				}
				set = intersect(set, cs, comparePy)
				part = part[m[1]:]
			}
		}
		out = append(out, set...)
	}
	return out, nil
}

// splitAny splits s on the first separator of seps that occurs in it.
func splitAny(s string, seps ...string) []string {
	for _, sep := range seps {
		if strings.Contains(s, sep) {
			return strings.Split(s, sep)
		}
	}
	return []string{s}
}

func pyClause(op, ver string) (vset[pyVersion], error) {
	if ver == "*" {
		return all[pyVersion](), nil
	}
	if before, ok := strings.CutSuffix(ver, ".*"); ok {
		prefix := before
		if _, err := parsePEP440(prefix); err != nil {
			return nil, err
		}
		rel := writtenRelease(prefix)
		lo, hi := pyLowest(rel), pyLowest(bump(rel, len(rel)))
		switch op {
		case "", "==", "=":
			return between(lo, true, hi, false), nil
		case "!=":
			return append(below(lo, false), atLeast(hi, true)...), nil
		}
		return nil, fmt.Errorf("wildcard with %q: %q", op, ver)
	}
	v, err := parsePEP440(ver)
	if err != nil {
		return nil, err
	}
	// the release as written (1.0 has two components here even though 1.0 == 1)
	rel := writtenRelease(ver)
	switch op {
	case "", "==", "=", "===":
		return exactly(v), nil
	case "!=":
		return append(below(v, false), atLeast(v, false)...), nil
	case ">=":
		return atLeast(v, true), nil
	case ">":
		return atLeast(v, false), nil
	case "<=":
		return below(v, true), nil
	case "<":
		return below(v, false), nil
	case "~=":
		if len(rel) < 2 {
			return nil, fmt.Errorf("~= needs at least two release components: %q", ver)
		}
		return between(v, true, pyLowest(bump(rel, len(rel)-1)), false), nil
	case "~": // Poetry: ~1.2.3 -> <1.3, ~1.2 -> <1.3, ~1 -> <2
		n := min(2, len(rel))
		return between(v, true, pyLowest(bump(rel, n)), false), nil
	case "^": // Poetry: bump the first non-zero component
		return between(v, true, pyLowest(caretUpper(rel)), false), nil
	}
	return nil, fmt.Errorf("unknown operator %q", op)
}

// writtenRelease returns the release components of a version as written, zeros kept.
func writtenRelease(ver string) []int64 {
	s := strings.TrimLeft(strings.TrimSpace(ver), "vV")
	if i := strings.IndexByte(s, '!'); i >= 0 {
		s = s[i+1:]
	}
	var rel []int64
	for p := range strings.SplitSeq(s, ".") {
		end := 0
		for end < len(p) && p[end] >= '0' && p[end] <= '9' {
			end++
		}
		if end == 0 {
			break
		}
		n, err := strconv.ParseInt(p[:end], 10, 64)
		if err != nil {
			break
		}
		rel = append(rel, n)
		if end < len(p) {
			break
		}
	}
	if len(rel) == 0 {
		rel = []int64{0}
	}
	return rel
}

// caretUpper is the exclusive upper release of ^rel: the first non-zero component bumped
// (^1.2.3 -> 2, ^0.2.3 -> 0.3, ^0.0.3 -> 0.0.4); all zeros bump the last written one
// (^0 -> 1, ^0.0 -> 0.1).
func caretUpper(rel []int64) []int64 {
	for i, n := range rel {
		if n != 0 {
			return bump(rel, i+1)
		}
	}
	return bump(rel, len(rel))
}

// ---- npm ranges (node-semver) ----

var (
	semPartialRE = regexp.MustCompile(
		`^[v=]?([0-9]+|[xX*])(?:\.([0-9]+|[xX*]))?(?:\.([0-9]+|[xX*]))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$`,
	)
	semOpSpaceRE = regexp.MustCompile(`(<=|>=|<|>|=|\^|~>|~)\s+`)
	semHyphenRE  = regexp.MustCompile(`^\s*(\S+)\s+-\s+(\S+)\s*$`)
)

// partial is a version with possibly missing or wildcard components (n = how many are given).
type partial struct {
	v semVersion
	n int
}

func parsePartial(s string) (partial, error) {
	m := semPartialRE.FindStringSubmatch(s)
	if m == nil {
		return partial{}, fmt.Errorf("not a version: %q", s)
	}
	var p partial
	parts := []*int64{&p.v.major, &p.v.minor, &p.v.patch}
	for i := range 3 {
		c := m[i+1]
		if c == "" || c == "x" || c == "X" || c == "*" {
			break
		}
		n, err := parseNum(c)
		if err != nil {
			return partial{}, err
		}
		*parts[i] = n
		p.n = i + 1
	}
	if m[4] != "" && p.n == 3 {
		p.v.pre = strings.Split(m[4], ".")
	}
	return p, nil
}

// next returns the lowest version above everything matching p's given components.
func (p partial) next() semVersion {
	switch p.n {
	case 1:
		return semLowest(p.v.major+1, 0, 0)
	case 2:
		return semLowest(p.v.major, p.v.minor+1, 0)
	}
	return semLowest(p.v.major, p.v.minor, p.v.patch+1)
}

// parseNpmRange parses a node-semver range ("^0.13.1", "~0.13", ">=0.12 <0.15", "0.13.x",
// "1.2.3 - 2.3.4", "a || b", "*").
func parseNpmRange(r string) (vset[semVersion], error) {
	r = strings.TrimSpace(r)
	if r == "" || r == "*" || r == "x" || r == "X" {
		return all[semVersion](), nil
	}
	var out vset[semVersion]
	for alt := range strings.SplitSeq(r, "||") {
		alt = strings.TrimSpace(alt)
		if alt == "" {
			out = append(out, all[semVersion]()...)
			continue
		}
		if m := semHyphenRE.FindStringSubmatch(alt); m != nil {
			lo, err := parsePartial(m[1])
			if err != nil {
				return nil, err
			}
			hi, err := parsePartial(m[2])
			if err != nil {
				return nil, err
			}
			lower := lo.v
			var set vset[semVersion]
			if hi.n == 3 {
				set = between(lower, true, hi.v, true)
			} else if hi.n == 0 {
				set = atLeast(lower, true)
			} else {
				set = between(lower, true, hi.next(), false)
			}
			out = append(out, set...)
			continue
		}
		set := all[semVersion]()
		for c := range strings.FieldsSeq(semOpSpaceRE.ReplaceAllString(alt, "$1")) {
			cs, err := npmComparator(c)
			if err != nil {
				return nil, err
			}
			set = intersect(set, cs, compareSem)
		}
		out = append(out, set...)
	}
	return out, nil
}

func npmComparator(c string) (vset[semVersion], error) {
	op := ""
	for _, o := range []string{"<=", ">=", "~>", "<", ">", "=", "^", "~"} {
		if strings.HasPrefix(c, o) {
			op, c = o, c[len(o):]
			break
		}
	}
	p, err := parsePartial(c)
	if err != nil {
		return nil, err
	}
	base := p.v
	if p.n == 0 {
		switch op {
		case "<", ">":
			return nil, errEmptyRange // "<*" and ">*" match nothing
		}
		return all[semVersion](), nil
	}
	switch op {
	case "", "=":
		if p.n == 3 {
			return exactly(base), nil
		}
		return between(semLowest(base.major, base.minor, base.patch), true, p.next(), false), nil
	case ">=":
		return atLeast(base, true), nil
	case ">":
		if p.n == 3 {
			return atLeast(base, false), nil
		}
		return atLeast(p.next(), true), nil
	case "<":
		if p.n == 3 {
			return below(base, false), nil
		}
		return below(semLowest(base.major, base.minor, base.patch), false), nil
	case "<=":
		if p.n == 3 {
			return below(base, true), nil
		}
		return below(p.next(), false), nil
	case "~", "~>":
		// ~1.2.3 -> <1.3.0, ~1.2 -> <1.3.0, ~1 -> <2.0.0
		up := partial{v: base, n: min(p.n, 2)}
		return between(base, true, up.next(), false), nil
	case "^":
		var upper semVersion
		switch {
		case base.major != 0 || p.n == 1:
			upper = semLowest(base.major+1, 0, 0)
		case base.minor != 0 || p.n == 2:
			upper = semLowest(0, base.minor+1, 0)
		default:
			upper = semLowest(0, 0, base.patch+1)
		}
		return between(base, true, upper, false), nil
	}
	return nil, fmt.Errorf("unknown operator %q", op)
}
