package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/exectriage/exectriage/config"
)

// ErrNoDashboardURL says no dashboard log URL is configured: Composio does not publish the
// address of one log's page (it is per organisation and project), so exectriage never guesses.
var ErrNoDashboardURL = errors.New(
	"the dashboard's address for one log is not known: copy a log's address from the dashboard and set [dashboard] log_url = " +
		"\"https://…/{log_id}\" (or a profile's dashboard_log_url) in the config",
)

// DashboardTemplate is the dashboard log URL template in force: the profile's
// dashboard_log_url, else [dashboard] log_url ("" for none).
func (a *App) DashboardTemplate() string {
	if a.o.profileLogURL != "" {
		return a.o.profileLogURL
	}
	return a.cfg.Dashboard.LogURL
}

// DashboardURL is the address of the execution's page in the Composio dashboard, from the
// configured template with the log id path-escaped into it (a hostile id cannot add a query,
// a fragment or another host). ErrNoDashboardURL when no template is configured.
func (a *App) DashboardURL(logID string) (string, error) {
	tmpl := a.DashboardTemplate()
	if tmpl == "" {
		return "", ErrNoDashboardURL
	}
	if strings.TrimSpace(logID) == "" {
		return "", fmt.Errorf("no log id")
	}
	return strings.Replace(tmpl, config.LogIDPlaceholder, url.PathEscape(logID), 1), nil
}

// Opener is the command that opens an address in a browser, with the address as its last
// argument; nil when there is none (no $BROWSER, no display for xdg-open): the address is
// copied instead.
func Opener(goos string, getenv func(string) string, lookPath func(string) (string, error)) []string {
	if b := strings.TrimSpace(getenv("BROWSER")); b != "" {
		// $BROWSER is a list of commands separated by ':' (the sensible-browser convention);
		// the first is used, split on spaces, never through a shell.
		if f := strings.Fields(strings.Split(b, ":")[0]); len(f) > 0 {
			return f
		}
	}
	switch goos {
	case "darwin":
		if p, err := lookPath("open"); err == nil {
			return []string{p}
		}
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler"}
	default:
		if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
			return nil // a terminal without a desktop (ssh, a container): nothing to open it in
		}
		if p, err := lookPath("xdg-open"); err == nil {
			return []string{p}
		}
	}
	return nil
}

// OpenURL opens addr in the browser; opened false (and no error) when there is no browser to
// open it in, so the caller copies the address instead. The browser's standard streams are
// not the terminal's (a terminal browser would fight the TUI for the screen). A browser that
// is still running after a moment is taken as opened and left running.
func (a *App) OpenURL(ctx context.Context, addr string) (bool, error) {
	u, err := url.Parse(addr)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return false, fmt.Errorf("not opening %q: not an http(s) address", addr)
	}
	argv := Opener(runtime.GOOS, a.o.getenv, exec.LookPath)
	if argv == nil {
		return false, nil
	}
	cmd := exec.Command(argv[0], append(argv[1:], addr)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("opening the browser (%s): %w", argv[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return false, fmt.Errorf("the browser (%s) failed: %w", argv[0], err)
		}
		return true, nil
	case <-time.After(3 * time.Second):
		return true, nil // still running: a browser that stays in front (its Wait reaps it)
	case <-ctx.Done():
		return false, ctx.Err()
	}
}
