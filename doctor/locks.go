package doctor

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/exectriage/exectriage/sdkversion"
)

// lockFamily says which manifests a lock file decides (see manifestFamily); "" for a file
// that is not a lock.
func lockFamily(base string) string {
	switch base {
	case "Pipfile.lock":
		return "pipfile"
	case "poetry.lock", "uv.lock", "pdm.lock":
		return "pyproject"
	case "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock":
		return "npm"
	}
	return ""
}

// manifestFamily is the lock family that decides a manifest's versions; "" for manifests no
// lock decides (requirements files, setup.cfg, setup.py).
func manifestFamily(base string) string {
	switch base {
	case "Pipfile":
		return "pipfile"
	case "pyproject.toml":
		return "pyproject"
	case "package.json":
		return "npm"
	}
	return ""
}

func contains(list []string, s string) bool {
	return slices.Contains(list, s)
}

// nearestLock finds the closest directory at or above dir that holds a lock file of the family
// (a Pipfile's lock only beside it: pipenv has no workspaces).
func nearestLock(dir string, fam string, lockDirs map[string]map[string]bool) (string, bool) {
	for {
		if lockDirs[dir][fam] {
			return dir, true
		}
		if fam == "pipfile" || dir == "." || dir == "/" || dir == "" {
			return "", false
		}
		dir = path.Dir(dir)
	}
}

// inRange keeps the versions a range allows: a workspace lock holds the versions of every
// member, and a member's range picks its own. When the range cannot be read, or allows none of
// them (a stale lock), all are kept.
func inRange(eco Ecosystem, constraint string, versions []string) []string {
	var keep []string
	for _, v := range versions {
		ok, err := sdkversion.RangeAllows(eco, constraint, v)
		if err != nil {
			return versions
		}
		if ok {
			keep = append(keep, v)
		}
	}
	if len(keep) == 0 {
		return versions
	}
	return keep
}

// applyLock replaces a manifest range's verdict with that of the versions the lock holds.
func applyLock(f *Finding, d dep, lockFile string, versions []string) {
	versions = inRange(d.eco, d.constraint, versions)
	f.LockFile = lockFile
	f.Version = strings.Join(versions, ", ")
	f.may = false
	var retrying []string
	unreadable, preRenumbered := false, false
	for _, v := range versions {
		old, err := sdkversion.OlderThanFix(d.eco, v)
		switch {
		case sdkversion.PreRenumbered(d.eco, d.name, v):
			// its number is above the fix, its code before it: the line decides, as for a pin
			retrying, preRenumbered = append(retrying, v), true
		case err != nil:
			unreadable = true
		case old:
			retrying = append(retrying, v)
		}
	}
	fixed := sdkversion.FixedIn(d.eco)
	shown := d.constraint
	shown = cmp.Or(shown, "no version constraint")
	switch {
	case len(retrying) > 0:
		f.RetriesWrites = new(true)
		older := "older than " + fixed
		if preRenumbered {
			older = "a pre-release published before " + d.name + " renumbered its releases 0.x, with the code before " + fixed
		}
		f.Reason = fmt.Sprintf("%s, locked to %s in %s: %s, re-sends timed-out writes", shown, strings.Join(retrying, ", "), lockFile, older)
		f.Fix = fixFor(d.eco)
	case unreadable:
		f.RetriesWrites = nil
		f.Reason = fmt.Sprintf("%s, locked to %s in %s: cannot read that version", shown, f.Version, lockFile)
		f.Fix = ""
	default:
		f.RetriesWrites = new(false)
		f.Reason = fmt.Sprintf("%s, locked to %s in %s: sends each write once", shown, f.Version, lockFile)
		f.Fix = ""
	}
}
