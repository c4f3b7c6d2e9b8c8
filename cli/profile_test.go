package cli

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/sandbox"
)

// Named profiles: --profile NAME or EXECTRIAGE_PROFILE picks the base URL, the
// variable holding the key (never the key) and the journal; info says which; a missing profile
// or an unset key variable is a usage error, never a silent fall-back to the demo.
func TestProfiles(t *testing.T) {
	srv, base, err := sandbox.Start(context.Background(), sandbox.Config{Seed: 3, Size: 200, Now: fixedNow, APIKey: "k-prod-SECRET"}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	pj := filepath.Join(dir, "prod.db")
	text := fmt.Sprintf("[profiles.prod]\nbase_url = %q\napi_key_env = \"EXAMPLE_PROD_KEY\"\njournal = %q\nproduction = true\n\n[profiles.staging]\nbase_url = \"https://staging.example\"\napi_key_env = \"EXAMPLE_STAGING_KEY\"\n", base, pj)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"EXECTRIAGE_CONFIG": cfg, "EXAMPLE_PROD_KEY": "k-prod-SECRET", "XDG_STATE_HOME": dir}

	for _, how := range [][]string{{"--profile", "prod"}, nil} {
		v := vars
		if how == nil {
			v = map[string]string{"EXECTRIAGE_PROFILE": "prod"}
			maps.Copy(v, vars)
		}
		code, out, errOut := run(t, v, append([]string{"info"}, how...)...)
		if code != ExitOK {
			t.Fatalf("info %v: %d %s", how, code, errOut)
		}
		for _, want := range []string{"source        LIVE " + base, "API key from  $EXAMPLE_PROD_KEY (profile prod)", "SQLite " + pj} {
			if !strings.Contains(out, want) {
				t.Errorf("info %v lacks %q:\n%s", how, want, out)
			}
		}
		if strings.Contains(out, "SECRET") {
			t.Errorf("info shows the key:\n%s", out)
		}
		// the profile's source and key really are used
		if code, out, errOut := run(t, v, append([]string{"scan"}, how...)...); code != ExitOK || !strings.Contains(out+errOut, "200") {
			t.Errorf("scan %v: %d %s %s", how, code, out, errOut)
		}
	}
	if code, _, errOut := run(t, vars, "scan", "--profile", "nope"); code != ExitUsage || !strings.Contains(errOut, `no profile "nope"`) || !strings.Contains(errOut, "prod, staging") {
		t.Errorf("unknown profile: %d %s", code, errOut)
	}
	if code, _, errOut := run(t, vars, "scan", "--profile", "staging"); code != ExitUsage || !strings.Contains(errOut, "$EXAMPLE_STAGING_KEY, where its API key is, is not set") {
		t.Errorf("unset key variable: %d %s", code, errOut)
	}
}

// info names one key source: a profile's key variable on the source line as on the key line,
// even with COMPOSIO_API_KEY set as well (two different sources on two lines).
func TestInfoNamesOneKeySource(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[profiles.prod]\napi_key_env = \"EXAMPLE_PROD_KEY\"\nproduction = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, extra := range []map[string]string{nil, {"COMPOSIO_API_KEY": "ak_other"}} {
		vars := map[string]string{"EXECTRIAGE_CONFIG": cfg, "EXAMPLE_PROD_KEY": "ak_prod", "XDG_STATE_HOME": dir}
		maps.Copy(vars, extra)
		code, out, errOut := run(t, vars, "info", "--profile", "prod")
		if code != ExitOK {
			t.Fatalf("info: %d %s", code, errOut)
		}
		var sources []string
		for l := range strings.SplitSeq(out, "\n") {
			if _, after, ok := strings.Cut(l, "key from"); ok {
				sources = append(sources, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(after), ")")))
			}
		}
		if len(sources) != 2 || !strings.HasPrefix(sources[0], "$EXAMPLE_PROD_KEY") || !strings.HasPrefix(sources[1], "$EXAMPLE_PROD_KEY") {
			t.Errorf("with %v the key sources are %q:\n%s", extra, sources, out)
		}
	}
}
