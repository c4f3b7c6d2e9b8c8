package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/sandbox"
)

// TestEveryRecordParsesInTheRealSDK: every log record the sandbox serves, and every
// record `export --details` writes, passes @composio/core 0.21.0's own schemas (logs.search, then
// logs.get of each): the SDK logs "Transform validation failed" for what they refuse (a
// trigger.message's "timings":{"start_time":null,…} did). Every record type is in the history.
func TestEveryRecordParsesInTheRealSDK(t *testing.T) {
	ctx := t.Context()
	srv, base, err := sandbox.Start(ctx, sandbox.Config{APIKey: apiKey, Seed: 5, Size: 120, Span: 20 * 24 * time.Hour, Events: true}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	run := realSDK(t, "0.21.0", base)
	check := func(what string, res map[string]any, wantTypes int) {
		t.Helper()
		if res["ok"] != true {
			t.Fatalf("%s: %v", what, res)
		}
		types, _ := res["types"].(map[string]any)
		if len(types) < wantTypes {
			t.Errorf("%s: record types %v, want every type (%d)", what, types, wantTypes)
		}
		if n, _ := res["refusedCount"].(float64); n != 0 {
			t.Errorf("%s: the real SDK refused %v of %v records: %v", what, n, res["listed"], res["refused"])
		}
	}
	// a send for a user with no Gmail account yet makes one: its connected_account.created
	if res := run("execute", "a record of every type"); res["ok"] != true {
		t.Fatalf("execute: %v", res)
	}
	check("the sandbox", run("everylog", ""), 3)

	// the same records as `export --details` writes them, served as they are
	home := t.TempDir()
	file := filepath.Join(home, "export.jsonl")
	cmd := exec.Command(binPath, "export", "--details", "--since", "600h", "--base-url", base, "--out", file)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "COMPOSIO_API_KEY=" + apiKey}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	records := map[string]json.RawMessage{}
	var order []json.RawMessage
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var head struct {
			ID string `json:"id"`
		}
		line := bytes.Clone(sc.Bytes())
		if err := json.Unmarshal(line, &head); err != nil || head.ID == "" {
			t.Fatalf("export line %q: %v", line, err)
		}
		records[head.ID] = line
		order = append(order, line)
	}
	if err := sc.Err(); err != nil || len(order) == 0 {
		t.Fatalf("export: %d records, %v", len(order), err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v3.1/logs/tool_execution", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"logs": order, "next_cursor": nil})
	})
	mux.HandleFunc("GET /api/v3.1/logs/tool_execution/{id}", func(w http.ResponseWriter, r *http.Request) {
		rec, ok := records[r.PathValue("id")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("content-type", "application/json")
		_, _ = w.Write(rec)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/v3.1/logs") {
			http.Error(w, `{"error":{"message":"not served here"}}`, http.StatusNotFound)
		}
	})
	exp := httptest.NewServer(mux)
	defer exp.Close()
	check("the export", realSDK(t, "0.21.0", exp.URL)("everylog", ""), 3)
}
