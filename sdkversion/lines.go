package sdkversion

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// What each package re-sends is data (lines.tsv), each fact with its source: the first release
// that sends a write once on each call path, and the lines whose version numbers do not say
// what they contain (a pre-release line published before a renumbering, the legacy packages).
// The code below only reads it.

//go:embed lines.tsv
var linesText string

// fixRow is one package's fix on one path: fixed "" means no release read sends it once.
type fixRow struct {
	eco    Ecosystem
	pkg    string
	path   Path
	fixed  string
	never  bool
	source string
	line   int
}

// lineRow is a set of releases judged by what they contain: pattern is a version, or a prefix
// followed by *; resends is "all" (every path), "none", or one path.
type lineRow struct {
	eco                Ecosystem
	pkg, pattern, name string
	resends            string
	source             string
	line               int
}

// optionRow is a retries option of a package's client: name as the code writes it (max_retries,
// maxRetries), honoured when the package hands it to the HTTP client that every path sends
// through (0: each write is sent once), unread the versions no one read it in.
type optionRow struct {
	eco      Ecosystem
	pkg      string
	name     string
	unread   []string
	honoured bool
	source   string
	line     int
}

// knowledge is lines.tsv read.
type knowledge struct {
	fixes   []fixRow
	lines   []lineRow
	options []optionRow
}

// table reads lines.tsv once; the value is never changed after.
var table = sync.OnceValue(func() knowledge {
	k, err := parseLines(linesText)
	if err != nil {
		panic(err) // the embedded file is checked by TestTheLinesAreData
	}
	return k
})

// parseLines reads the table's text.
func parseLines(text string) (knowledge, error) {
	var k knowledge
	for n, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		switch {
		case f[0] == "line" && len(f) == 7:
			eco := Ecosystem(f[1])
			if eco != NPM && eco != PyPI || f[4] == "" || f[6] == "" {
				return k, fmt.Errorf("lines.tsv:%d: a line needs an ecosystem, a name and a source", n+1)
			}
			k.lines = append(k.lines, lineRow{eco: eco, pkg: f[2], pattern: f[3], name: f[4], resends: f[5], source: f[6], line: n + 1})
		case f[0] == "option" && len(f) == 7:
			eco := Ecosystem(f[1])
			if eco != NPM && eco != PyPI || f[3] == "" || f[5] != "honoured" && f[5] != "ignored" || f[6] == "" {
				return k, fmt.Errorf("lines.tsv:%d: an option needs an ecosystem, a name, honoured or ignored, and a source", n+1)
			}
			r := optionRow{eco: eco, pkg: f[2], name: f[3], honoured: f[5] == "honoured", source: f[6], line: n + 1}
			if f[4] != "-" {
				r.unread = strings.Split(f[4], ",")
			}
			k.options = append(k.options, r)
		case len(f) == 5:
			eco := Ecosystem(f[0])
			if eco != NPM && eco != PyPI || f[4] == "" {
				return k, fmt.Errorf("lines.tsv:%d: a fix needs an ecosystem and a source", n+1)
			}
			r := fixRow{eco: eco, pkg: f[1], path: Path(f[2]), source: f[4], line: n + 1}
			if f[3] == "never" {
				r.never = true
			} else if err := CheckVersion(eco, f[3]); err != nil {
				return k, fmt.Errorf("lines.tsv:%d: %w", n+1, err)
			} else {
				r.fixed = f[3]
			}
			k.fixes = append(k.fixes, r)
		default:
			return k, fmt.Errorf("lines.tsv:%d: %d columns", n+1, len(f))
		}
	}
	return k, nil
}

// fixOf is the row of pkg's fix on path (ok false when pkg does not carry path).
func fixOf(eco Ecosystem, pkg string, path Path) (fixRow, bool) {
	if eco == PyPI {
		pkg = NormalizePy(pkg)
	}
	for _, r := range table().fixes {
		if r.eco == eco && r.pkg == pkg && r.path == path {
			return r, true
		}
	}
	return fixRow{}, false
}

// lineOf is the line version of pkg belongs to when a row names it (ok false otherwise).
func lineOf(eco Ecosystem, pkg, version string) (lineRow, bool) {
	if eco == PyPI {
		pkg = NormalizePy(pkg)
	}
	v := strings.TrimPrefix(strings.TrimSpace(version), "v")
	for _, r := range table().lines {
		if r.eco != eco || r.pkg != pkg {
			continue
		}
		if versionsMatch(eco, r.pattern, v) {
			return r, true
		}
	}
	return lineRow{}, false
}

// versionsMatch says whether v is among the versions a line row names: "*" every version, "V
// pre" every pre-release of V (1.0rc1 and 1.0.0b2 are pre-releases of 1.0.0), else V itself.
func versionsMatch(eco Ecosystem, pattern, v string) bool {
	if pattern == "*" {
		return true
	}
	base, pre := strings.CutSuffix(pattern, " pre")
	if !pre {
		return v == pattern
	}
	if eco == PyPI {
		pv, err1 := parsePEP440(loose(v))
		bv, err2 := parsePEP440(base)
		return err1 == nil && err2 == nil && pv.preSet && pv.epoch == bv.epoch && slices.Equal(pv.release, bv.release)
	}
	core, tag, ok := strings.Cut(v, "-")
	return ok && tag != "" && core == base
}

// Source says where the fact about pkg's path comes from ("" when the table has none).
func Source(eco Ecosystem, pkg string, path Path) string {
	r, _ := fixOf(eco, pkg, path)
	return r.source
}

// RetriesOption is what pkg's client does with its retries option at version (lines.tsv): the
// option's name, whether the package hands it to the HTTP client every path sends through
// (so that 0 sends each write once), and where that was read. ok is false when no row names
// the package, or the version is one no one read.
func RetriesOption(eco Ecosystem, pkg, version string) (name string, honoured bool, source string, ok bool) {
	if eco == PyPI {
		pkg = NormalizePy(pkg)
	}
	v := strings.TrimPrefix(strings.TrimSpace(version), "v")
	for _, r := range table().options {
		if r.eco != eco || r.pkg != pkg {
			continue
		}
		for _, u := range r.unread {
			if versionsMatch(eco, u, v) || eco == PyPI && v != "" && samePy(u, v) {
				return "", false, "", false
			}
		}
		return r.name, r.honoured, r.source, true
	}
	return "", false, "", false
}

// samePy says whether two PEP 440 versions are one (1.0.0rc1 and 1.0.0-rc1).
func samePy(a, b string) bool {
	c, err := ComparePEP440(loose(a), loose(b))
	return err == nil && c == 0
}
