package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/internal/testkit"
)

func TestDashboardURL(t *testing.T) {
	cfg, err := config.Parse("c.toml", []byte("[dashboard]\nlog_url = \"https://dash.example/acme/main/logs/{log_id}\"\n[profiles.other]\ndashboard_log_url = \"https://dash.example/acme/other/logs/{log_id}?tab=log\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := New(Parts{Config: cfg})
	for _, tt := range []struct{ id, want string }{
		{"log_abc-123", "https://dash.example/acme/main/logs/log_abc-123"},
		// a hostile id stays one path segment: no query, fragment, other path or host
		{"log_x/../../evil?x=1#frag", "https://dash.example/acme/main/logs/log_x%2F..%2F..%2Fevil%3Fx=1%23frag"},
		{"@evil.example", "https://dash.example/acme/main/logs/@evil.example"},
	} {
		got, err := a.DashboardURL(tt.id)
		if err != nil || got != tt.want {
			t.Errorf("DashboardURL(%q) = %q, %v; want %q", tt.id, got, err, tt.want)
		}
	}
	// a profile's own address wins over [dashboard]
	o, _, err := applyProfile(Options{File: "x.jsonl"}, cfg, "other")
	if err != nil {
		t.Fatal(err)
	}
	p := &App{o: o, cfg: cfg}
	if got, _ := p.DashboardURL("log_1"); got != "https://dash.example/acme/other/logs/log_1?tab=log" {
		t.Errorf("profile URL = %q", got)
	}
	// nothing configured: no guess, and the error says how to configure it
	none := New(Parts{})
	if u, err := none.DashboardURL("log_1"); !errors.Is(err, ErrNoDashboardURL) || u != "" || !strings.Contains(err.Error(), "log_url") {
		t.Errorf("unconfigured: %q, %v", u, err)
	}
}

func TestOpener(t *testing.T) {
	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tt := range []struct {
		name   string
		goos   string
		getenv func(string) string
		look   func(string) (string, error)
		want   []string
	}{
		{"$BROWSER first of a list, split, no shell", "linux", env("BROWSER", "firefox --new-tab:chromium", "DISPLAY", ":0"), found, []string{"firefox", "--new-tab"}},
		{"xdg-open with a display", "linux", env("DISPLAY", ":0"), found, []string{"/usr/bin/xdg-open"}},
		{"xdg-open on wayland", "linux", env("WAYLAND_DISPLAY", "wayland-0"), found, []string{"/usr/bin/xdg-open"}},
		{"no display (ssh, container): copy instead", "linux", env(), found, nil},
		{"a display but no xdg-open", "linux", env("DISPLAY", ":0"), missing, nil},
		{"macOS open", "darwin", env(), found, []string{"/usr/bin/open"}},
	} {
		if got := Opener(tt.goos, tt.getenv, tt.look); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// OpenURL runs the browser with the address as one argument (never through a shell) and says
// when there is no browser, so the caller copies the address instead.
func TestOpenURL(t *testing.T) {
	script, got := testkit.FakeBrowser(t)
	dir := filepath.Dir(script)
	vars := map[string]string{"BROWSER": script}
	a := &App{o: Options{Getenv: func(k string) string { return vars[k] }}}
	addr := "https://dash.example/logs/log_a%3Bb$(touch%20x)"
	opened, err := a.OpenURL(context.Background(), addr)
	if err != nil || !opened {
		t.Fatalf("OpenURL = %v, %v", opened, err)
	}
	b, err := os.ReadFile(got)
	if err != nil || string(b) != addr+"\n" {
		t.Errorf("the browser got %q (%v), want the address as one argument", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("the address ran through a shell")
	}
	vars["BROWSER"] = filepath.Join(dir, "fails")
	if err := os.WriteFile(vars["BROWSER"], []byte("#!/bin/sh\nexit 3\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if opened, err := a.OpenURL(context.Background(), addr); opened || err == nil {
		t.Errorf("a failing browser: %v, %v", opened, err)
	}
	delete(vars, "BROWSER")
	if opened, err := a.OpenURL(context.Background(), addr); opened || err != nil {
		t.Errorf("no browser: %v, %v; want not opened and no error (the caller copies)", opened, err)
	}
	if _, err := a.OpenURL(context.Background(), "file:///etc/passwd"); err == nil {
		t.Error("opened a file: address")
	}
}
