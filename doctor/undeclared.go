package doctor

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/exectriage/exectriage/sdkversion"
)

// An SDK the code imports and sends through that nothing declares: scripts run with whatever is
// installed. The version cannot be told, so the line the imports imply decides (the legacy
// toolset's names imply the legacy line; the current client, the current one), and a line with
// versions that re-send a timed-out write may re-send it.

var (
	pySDKImportRE = regexp.MustCompile(`^\s*(?:from\s+composio(?:\.\w+)*\s+import\b|import\s+composio\b)`)
	tsSDKImportRE = regexp.MustCompile(`(?:from\s*|require\s*\(\s*|import\s*\(\s*)["'](@composio/core|composio-core)["']`)
)

// importedSDK is the SDK package a code file imports, "" for none: PyPI's composio (its legacy
// composio-core when the file names the legacy toolset), npm's @composio/core or composio-core;
// line is the import's (1-based).
func importedSDK(f *codeFile) (pkg string, line int) {
	for i, raw := range f.raw {
		if !strings.Contains(raw, "composio") {
			continue
		}
		if f.eco == PyPI && pySDKImportRE.MatchString(raw) {
			if namesLegacyToolset(f) {
				return "composio-core", i + 1
			}
			return "composio", i + 1
		}
		if f.eco == NPM {
			if m := tsSDKImportRE.FindStringSubmatch(raw); m != nil {
				return m[1], i + 1
			}
		}
	}
	return "", 0
}

// declaredEcosystems are the ecosystems any manifest or lock file of which names a Composio
// package.
func declaredEcosystems(found []Finding) map[Ecosystem]bool {
	declared := map[Ecosystem]bool{}
	for _, f := range found {
		if packageRole(f.Ecosystem, f.Package) != roleNone {
			declared[f.Ecosystem] = true
		}
	}
	return declared
}

// undeclaredNotes says where code imports the SDK that no manifest of its ecosystem declares
// and that sends no write through it (a catalog read, a tool list, nothing yet): nothing to
// judge, so a note, not a finding, and not "no Composio SDK found". One per package, at its
// first import.
func undeclaredNotes(found []Finding, code []codeFile) []Note {
	declared := declaredEcosystems(found)
	var out []Note
	seen := map[string]bool{}
	for i := range code {
		cf := &code[i]
		if declared[cf.eco] {
			continue
		}
		pkg, line := importedSDK(cf)
		if pkg == "" || seen[string(cf.eco)+pkg] {
			continue
		}
		seen[string(cf.eco)+pkg] = true
		out = append(out, Note{Evidence: fmt.Sprintf("%s:%d", cf.rel, line), CallPath: "import", Call: strings.TrimSpace(cf.raw[line-1]),
			Text: pkg + " is imported here and declared by no manifest or lock file; the code read sends no write through it: nothing to judge"})
	}
	return out
}

// undeclaredFindings reports, for an ecosystem whose manifests and lock files name no Composio
// package at all, the SDK its code imports and sends a tool through: one finding per package,
// citing the send a version finding would (sendRank). Where any manifest of the ecosystem names
// the SDK, code outside it is left alone: the project declared what it runs.
func undeclaredFindings(uses []codeUse, found []Finding, code []codeFile) []Finding {
	declared := declaredEcosystems(found)
	pkgOf := map[string]string{} // code file -> the SDK it imports
	for i := range code {
		if !declared[code[i].eco] {
			pkgOf[code[i].rel], _ = importedSDK(&code[i])
		}
	}
	type cited struct {
		use *codeUse
		pkg string
	}
	var order []string
	best := map[string]cited{} // ecosystem and package -> the send cited
	for i := range uses {
		u := &uses[i]
		pkg := pkgOf[u.rel]
		if u.what != "execute" && u.what != "legacy" || declared[u.eco] || pkg == "" || listsTools(u.text) && testCode(u.rel) {
			continue
		}
		key := string(u.eco) + "\x00" + pkg
		if b, ok := best[key]; !ok {
			order = append(order, key)
		} else if sendRank(b.use) <= sendRank(u) {
			continue
		}
		best[key] = cited{u, pkg}
	}
	var out []Finding
	for _, key := range order {
		u, pkg := best[key].use, best[key].pkg
		fd := Finding{File: u.rel, Ecosystem: u.eco, Package: pkg, VersionSource: "import", Evidence: u.at(), Use: UseUsed}
		classify(&fd, dep{eco: u.eco, name: pkg})
		said := "imported and sent through (" + u.text + " at " + u.at() + ") but declared by no manifest or lock file, " +
			"so the installed version decides and cannot be told here: "
		if packageRole(u.eco, pkg) == roleLegacy {
			fd.Reason = said + "the code names the legacy toolset, so it runs on the legacy SDK: " + fd.Reason
		} else {
			fd.Reason = said + pkg + " before " + sdkversion.FixedIn(u.eco) + " re-sends a timed-out tools.execute/proxy write"
			fd.Fix = "declare " + strings.TrimPrefix(fixFor(u.eco), "upgrade to ")
		}
		out = append(out, fd)
	}
	return out
}
