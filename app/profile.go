package app

import (
	"cmp"
	"os"

	"slices"
	"strings"

	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/phrase"
)

// ProfileInfo is the profile a session runs under, for the header and info.
type ProfileInfo struct {
	Name       string
	Production bool
	Colour     string
	// Watch is what watch tells for this profile when its flags do not say.
	Watch config.Watch
}

// withProfile applies the named profile (--profile, else EXECTRIAGE_PROFILE) of the config to
// the options: its journal unless --journal names one, its base URL and the variable holding
// its key in place of COMPOSIO_BASE_URL and COMPOSIO_API_KEY. No profile: o unchanged.
func withProfile(o Options) (Options, ProfileInfo, error) {
	name := profileName(o)
	if name == "" || o.profileApplied {
		return o, o.profile, nil
	}
	cfg, err := LoadConfig(o)
	if err != nil {
		return o, ProfileInfo{}, err
	}
	return applyProfile(o, cfg, name)
}

// applyProfile is withProfile with the config already read.
func applyProfile(o Options, cfg config.Config, name string) (Options, ProfileInfo, error) {
	p, ok := cfg.Profiles[name]
	if !ok {
		known := make([]string, 0, len(cfg.Profiles))
		for k := range cfg.Profiles {
			known = append(known, k)
		}
		slices.Sort(known)
		if len(known) == 0 {
			return o, ProfileInfo{}, Usagef("no profile %q: the config (%s) has no [profiles.NAME]", name, cmp.Or(cfg.Path, "none"))
		}
		return o, ProfileInfo{}, Usagef("no profile %q in %s (profiles: %s)", name, cfg.Path, strings.Join(known, ", "))
	}
	orig := o.Getenv // the function itself: o.getenv would read the replaced one
	if orig == nil {
		orig = os.Getenv
	}
	if p.APIKeyEnv != "" && strings.TrimSpace(orig(p.APIKeyEnv)) == "" && o.File == "" && !o.Demo {
		return o, ProfileInfo{}, Usagef("profile %s: $%s, where its API key is, is not set", name, p.APIKeyEnv)
	}
	o.Getenv = func(k string) string {
		switch {
		case k == "COMPOSIO_BASE_URL" && p.BaseURL != "":
			return p.BaseURL
		case k == "COMPOSIO_API_KEY" && p.APIKeyEnv != "":
			return orig(p.APIKeyEnv)
		}
		return orig(k)
	}
	if strings.TrimSpace(o.Journal) == "" && p.Journal != "" {
		o.Journal = p.Journal
	}
	if strings.TrimSpace(o.Index) == "" && p.Index != "" {
		o.Index = p.Index
	}
	if strings.TrimSpace(o.IndexProject) == "" {
		o.IndexProject = p.IndexProject
	}
	o.profile = ProfileInfo{Name: name, Production: p.Production, Colour: p.Colour, Watch: p.Watch}
	o.profileKeyEnv = p.APIKeyEnv
	o.profileLogURL = p.DashboardLogURL
	o.profileApplied = true
	return o, o.profile, nil
}

// profileName is --profile, else EXECTRIAGE_PROFILE ("" for none).
func profileName(o Options) string {
	if n := strings.TrimSpace(o.Profile); n != "" {
		return n
	}
	return strings.TrimSpace(o.getenv("EXECTRIAGE_PROFILE"))
}

// keyFromLabel names where the key came from under a profile: its api_key_env
// ($COMPOSIO_API_KEY_PROD, profile prod) rather than COMPOSIO_API_KEY.
func keyFromLabel(o Options, from phrase.KeyFrom) phrase.KeyFrom {
	if o.profileKeyEnv != "" && from.Env == "COMPOSIO_API_KEY" {
		return phrase.KeyFrom{Env: o.profileKeyEnv, Profile: o.profile.Name}
	}
	return from
}

// Profile is the profile the session runs under (Name "" for none).
func (a *App) Profile() ProfileInfo { return a.o.profile }
