package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/exectriage/exectriage/sandbox"
)

// behind starts a sandbox (cfg, its key set if empty) behind a handler of the test's own (wrap
// gets the sandbox's and returns what serves: a proxy that counts, holds or slows requests)
// and returns the proxy's address and an environment with the sandbox's key and a state
// directory of the test's; both are closed when the test ends.
func behind(t *testing.T, cfg sandbox.Config, wrap func(http.Handler) http.Handler) (base string, env func(string) string, dir string) {
	t.Helper()
	if cfg.APIKey == "" {
		cfg.APIKey = "k-behind"
	}
	srv, _, err := sandbox.Start(context.Background(), cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	proxy := httptest.NewServer(wrap(srv.Handler()))
	t.Cleanup(proxy.Close)
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "none.toml"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"COMPOSIO_API_KEY": cfg.APIKey, "XDG_STATE_HOME": dir, "XDG_CACHE_HOME": filepath.Join(dir, "cache")}
	return proxy.URL, func(k string) string { return vars[k] }, dir
}

// openBehind opens an app over base (behind's) with the last 720 h at now, no config file, and
// the options o changes; it is closed when the test ends.
func openBehind(t *testing.T, base string, env func(string) string, dir string, now time.Time, o func(*Options)) *App {
	t.Helper()
	opts := Options{BaseURL: base, Getenv: env, ConfigPath: filepath.Join(dir, "none.toml"), Since: 720 * time.Hour, SinceSet: true,
		Now: func() time.Time { return now }}
	if o != nil {
		o(&opts)
	}
	a, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}
