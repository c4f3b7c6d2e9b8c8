package ui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
)

func TestBundleIsWrittenAndItsPathShown(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 200, 50)
	h.keys("b")
	_, text := h.m.status.Text()
	m := tempPath.FindString(text)
	if m == "" {
		t.Fatalf("no bundle path in the status line: %q", text)
	}
	b, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(h.m.data.DS.ID(0))) {
		t.Error("the bundle does not name the selected execution")
	}
	if fi, _ := os.Stat(m); fi.Mode().Perm() != 0o600 {
		t.Errorf("bundle mode %v", fi.Mode().Perm())
	}
	if filepath.Dir(m) != e.parts.BundleDir {
		t.Errorf("bundle written to %s", m)
	}
}

// y opens the copy menu: the log id, the request id, the record as redacted JSON,
// a curl reproduction that names $COMPOSIO_API_KEY and never the key, the bundle; a terminal
// that cannot take OSC 52 gets a 0600 file and the path.
func TestCopyMenu(t *testing.T) {
	e := newEnv(t)
	e.parts.APIKey = "test-key"
	h := newHarness(t, e, 220, 40)
	i, ok := h.find(func(x *model.Execution, t *model.Triage) bool { return t.Kind.IsWrite() })
	if !ok {
		t.Fatal("no write")
	}
	full, err := h.m.be.Get(context.Background(), h.m.data.DS.ID(i)) // the record, as after the detail fetch
	if err != nil || full.RequestID == "" {
		t.Fatalf("%v, request id %q", err, full.RequestID)
	}
	h.m.data.PutDetail(full.ID, full)
	h.selectRow(i)
	ex := h.m.data.Exec(i)
	h.keys("y")
	if !h.m.copyMenu.IsOpen() {
		t.Fatal("y did not open the copy menu")
	}
	s := h.screen()
	for _, w := range []string{"log id", "2  request id", "3  record (JSON", "4  curl reproduction", "5  support bundle", ex.RequestID} {
		if !strings.Contains(s, w) {
			t.Errorf("the menu lacks %q", w)
		}
	}
	curl := h.m.be.CurlFor(ex).String()
	if !strings.Contains(curl, `x-api-key: $COMPOSIO_API_KEY`) || strings.Contains(curl, "test-key") || !strings.Contains(curl, "/tools/execute/"+ex.ToolSlug) {
		t.Errorf("curl: %s", curl)
	}
	rec := h.m.be.RecordJSON(ex)
	if !strings.Contains(rec, ex.ID) || strings.Contains(rec, "test-key") {
		t.Errorf("record: %.200s", rec)
	}
	hostile := *ex
	hostile.ToolSlug = "X'; rm -rf ~; echo '"
	if c := h.m.be.CurlFor(&hostile).String(); strings.Contains(c, "curl ") {
		t.Errorf("a hostile slug made a command: %s", c)
	}
	// a terminal without OSC 52: the text goes to a file
	h.m.opt.NoOSC52, h.m.opt.Term = true, "linux"
	h.keys("4")
	if !h.m.copyMenu.IsOpen() {
		t.Fatal("a digit acted at once: digits choose, enter acts")
	}
	h.keys("enter")
	s = h.screen()
	if !strings.Contains(s, "cannot take OSC 52 (TERM=linux)") {
		t.Fatalf("no fallback message:\n%s", s)
	}
	m := regexp.MustCompile(`is in (\S+\.txt)`).FindStringSubmatch(ansi.Strip(s))
	if m == nil {
		t.Fatalf("no path in the message:\n%s", s)
	}
	b, err := os.ReadFile(m[1])
	st, _ := os.Stat(m[1])
	if err != nil || string(b) != curl || st.Mode().Perm() != 0o600 {
		t.Errorf("fallback file %s: %v, mode %v, %q", m[1], err, st.Mode(), b)
	}
}

// o opens the selected execution's page in the dashboard from the config's [dashboard]
// log_url, copies the address when there is no browser, and says how to configure it when
// the config names none: exectriage never guesses the address.
func TestDashboardKey(t *testing.T) {
	script, got := testkit.FakeBrowser(t)
	t.Setenv("BROWSER", "")
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")

	e := newEnv(t)
	h := newHarness(t, e, 160, 40)
	h.selectRow(0)
	id := h.m.data.DS.ID(0)
	h.keys("o")
	if s := ansi.Strip(h.screen()); !strings.Contains(s, "dashboard's address for one log is not known") {
		t.Fatalf("o without a configured address:\n%s", s)
	}

	cfg, err := config.Parse("c.toml", []byte("[dashboard]\nlog_url = \"https://dash.example/acme/main/logs/{log_id}\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	e.parts.Config = cfg
	want := "https://dash.example/acme/main/logs/" + id
	h = newHarness(t, e, 160, 40)
	h.selectRow(0)
	t.Setenv("BROWSER", script)
	h.keys("o")
	if b, err := os.ReadFile(got); err != nil || string(b) != want+"\n" {
		t.Fatalf("the browser got %q (%v), want %q", b, err, want)
	}
	if s := ansi.Strip(h.screen()); !strings.Contains(s, "opened "+id+" in the browser") {
		t.Errorf("no opened message:\n%s", s)
	}

	// no browser (ssh, a container): the address is copied; here, into the fallback file
	t.Setenv("BROWSER", "")
	h.m.opt.NoOSC52, h.m.opt.Term = true, "dumb"
	h.keys("o")
	s := ansi.Strip(h.screen())
	m := regexp.MustCompile(`the dashboard URL is in (\S+\.txt)`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no copy of the address:\n%s", s)
	}
	if b, err := os.ReadFile(m[1]); err != nil || string(b) != want {
		t.Errorf("copied %q (%v), want %q", b, err, want)
	}

	// a browser that fails: its error and where the address went, both on the status line
	failing := filepath.Join(t.TempDir(), "failing.sh")
	if err := os.WriteFile(failing, []byte("#!/bin/sh\nexit 3\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", failing)
	h.keys("o")
	if s := ansi.Strip(h.screen()); !strings.Contains(s, "dashboard URL is in") || !strings.Contains(s, "exit status 3") {
		t.Errorf("a failing browser: the status line does not say both why and where:\n%s", s)
	}

	h.keys("y")
	if s := h.screen(); !strings.Contains(s, "dashboard URL") {
		t.Errorf("the copy menu lacks the dashboard URL:\n%s", s)
	}
}
