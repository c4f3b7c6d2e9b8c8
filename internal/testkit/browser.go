package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// FakeBrowser writes a browser for $BROWSER that records its arguments, one a line, and
// returns its path and the file it writes them to.
func FakeBrowser(t testing.TB) (browser, args string) {
	t.Helper()
	dir := t.TempDir()
	args = filepath.Join(dir, "args")
	browser = filepath.Join(dir, "browser")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+args+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return browser, args
}
