package source

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

func ids(execs []model.Execution) []string {
	out := make([]string, len(execs))
	for i, e := range execs {
		out[i] = e.ID
	}
	return out
}

func loadAll(t *testing.T, path string, opt FileOptions) ([]model.Execution, []model.RecordError, error) {
	t.Helper()
	var got []model.Execution
	bad, err := LoadFileWith(context.Background(), path, opt, func(b []model.Execution) error {
		got = append(got, b...)
		return nil
	})
	return got, bad, err
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadFileShapes(t *testing.T) {
	pretty := "{\n  \"id\": \"log_p1\",\n  \"status\": \"success\",\n  \"metadata\": {\"tool_slug\": \"X_GET\"}\n}\n{\n  \"id\": \"log_p2\"\n}\n"
	onePage := `{"logs":[{"id":"log_1"},{"id":"log_2"}],"next_cursor":"abc"}` + "\n" + `{"logs":[{"id":"log_3"}],"next_cursor":null}` + "\n"
	tests := []struct {
		name    string
		path    string
		wantIDs []string
		wantBad []string
	}{
		{"jsonl", "testdata/records.jsonl", []string{"log_a1", "log_b2", "log_c3"}, nil},
		{"jsonl gzip", "testdata/records.jsonl.gz", []string{"log_a1", "log_b2", "log_c3"}, nil},
		{"list response", "testdata/list.json", []string{"log_a1", "log_b2", "log_c3"}, []string{"record 3 (line 11): record is not a JSON object"}},
		{"array", "testdata/array.json", []string{"log_a1", "log_b2", "log_c3"}, nil},
		{"bad lines", "testdata/bad_lines.jsonl", []string{"log_a1", "log_d4"}, []string{
			"line 2: invalid JSON: unexpected end of JSON input",
			"line 3: record has no id",
			"line 4: record is not a JSON object",
		}},
		{"pretty records", writeFile(t, "pretty.json", pretty), []string{"log_p1", "log_p2"}, nil},
		{"jsonl of pages", writeFile(t, "pages.jsonl", onePage), []string{"log_1", "log_2", "log_3"}, nil},
		{"bom and leading blank lines", writeFile(t, "bom.jsonl", "\xef\xbb\xbf\n\n"+`{"id":"log_x"}`+"\n"), []string{"log_x"}, nil},
		{"jsonl without final newline", writeFile(t, "nofinal.jsonl", `{"id":"log_x"}`+"\n"+`{"id":"log_y"}`), []string{"log_x", "log_y"}, nil},
		{"jsonl with bad first line", writeFile(t, "badfirst.jsonl", "{oops\n"+`{"id":"log_y"}`+"\n"), []string{"log_y"}, []string{"line 1: invalid JSON: invalid character 'o' looking for beginning of object key string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, bad, err := loadAll(t, tt.path, FileOptions{})
			if err != nil {
				t.Fatalf("LoadFile: %v", err)
			}
			if !slices.Equal(ids(got), tt.wantIDs) {
				t.Errorf("ids = %v, want %v", ids(got), tt.wantIDs)
			}
			var badText []string
			for _, b := range bad {
				badText = append(badText, b.Err.Error())
			}
			if !slices.Equal(badText, tt.wantBad) {
				t.Errorf("bad = %q, want %q", badText, tt.wantBad)
			}
		})
	}
}

func TestLoadFileParsesRecords(t *testing.T) {
	got, _, err := loadAll(t, "testdata/records.jsonl", FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := got[0]
	if e.ToolSlug != "GMAIL_SEND_EMAIL" || e.UserID != "user_42" || e.Error == nil || e.Error.Kind != model.ErrTimeout || e.RequestID != "req-1" || !e.Detailed {
		t.Errorf("record parsed as %+v", e)
	}
	if got[1].ToolSlug != "GMAIL_FETCH_EMAILS" || got[1].Duration != 202*time.Millisecond {
		t.Errorf("alternative keys: %+v", got[1])
	}
}

func TestLoadFileRejectsUnreadableFiles(t *testing.T) {
	tests := []struct {
		name, path string
		want       string
		line       int
	}{
		{"empty", "testdata/empty.json", "empty file", 0},
		{"blank", "testdata/blank.json", "empty file", 0},
		{"binary", "testdata/binary.bin", "binary data", 0},
		{"csv", "testdata/table.csv", `not JSON: starts with "i"`, 1},
		{"truncated jsonl", "testdata/truncated.jsonl", "truncated", 3},
		{"truncated array", "testdata/truncated_array.json", "truncated", 3},
		{"garbage in array", writeFile(t, "g.json", "[\n{\"id\":\"a\"},\n{\"id\": nope}\n]"), "invalid JSON", 3},
		{"top-level number", writeFile(t, "n.json", "[]\n42\n"), "not a Logs API export", 2},
		{"logs not an array", writeFile(t, "l.json", "{\n\"logs\": 3\n}"), `"logs" is not an array`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := loadAll(t, tt.path, FileOptions{})
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FileError", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), tt.path) {
				t.Errorf("err = %q, want it to name %s and say %q", err, tt.path, tt.want)
			}
			if fe.Line != tt.line {
				t.Errorf("line = %d, want %d (%v)", fe.Line, tt.line, err)
			}
		})
	}
	if _, _, err := loadAll(t, "testdata/missing.jsonl", FileOptions{}); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("missing file: %v", err)
	}
}

func TestLoadFileRecordSizeLimit(t *testing.T) {
	big := `{"id":"log_big","message":"` + strings.Repeat("x", 3000) + `"}`
	p := writeFile(t, "big.jsonl", `{"id":"log_1"}`+"\n"+big+"\n"+`{"id":"log_2"}`+"\n")
	got, bad, err := loadAll(t, p, FileOptions{MaxRecordBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got), []string{"log_1", "log_2"}) {
		t.Errorf("ids = %v", ids(got))
	}
	if len(bad) != 1 || bad[0].Index != 2 || bad[0].Err.Error() != "line 2: record larger than 1024 bytes" {
		t.Errorf("bad = %v", bad)
	}
	// The default limit is 8 MiB and the read buffer 1 MiB: a 9 MiB line crosses both.
	huge := `{"id":"log_huge","message":"` + strings.Repeat("y", 9<<20) + `"}`
	p = writeFile(t, "huge.jsonl", huge+"\n"+`{"id":"log_3"}`+"\n")
	got, bad, err = loadAll(t, p, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got), []string{"log_3"}) || len(bad) != 1 || bad[0].Err.Error() != "line 1: record larger than 8 MiB" {
		t.Errorf("ids = %v, bad = %v", ids(got), bad)
	}
	// A 2 MiB line (above the read buffer, below the limit) loads.
	p = writeFile(t, "two.jsonl", `{"id":"log_2m","message":"`+strings.Repeat("z", 2<<20)+`"}`+"\n")
	if got, _, err = loadAll(t, p, FileOptions{}); err != nil || len(got) != 1 || len(got[0].Message) != 2<<20 {
		t.Errorf("2 MiB line: %v, %d records", err, len(got))
	}
}

func TestLoadFileBatches(t *testing.T) {
	var sizes []int
	_, err := LoadFileWith(context.Background(), "testdata/records.jsonl", FileOptions{BatchSize: 2}, func(b []model.Execution) error {
		sizes = append(sizes, len(b))
		return nil
	})
	if err != nil || !slices.Equal(sizes, []int{2, 1}) {
		t.Errorf("batch sizes %v, err %v", sizes, err)
	}
	stop := errors.New("stop")
	_, err = LoadFileWith(context.Background(), "testdata/records.jsonl", FileOptions{BatchSize: 1}, func(b []model.Execution) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("callback error not returned: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := LoadFile(ctx, "testdata/records.jsonl", func([]model.Execution) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ctx: %v", err)
	}
}

func TestFileSourceGetAndSince(t *testing.T) {
	for _, path := range []string{"testdata/records.jsonl", "testdata/records.jsonl.gz", "testdata/list.json", "testdata/array.json", writeFile(t, "pages.jsonl", `{"logs":[{"id":"log_a1"},{"id":"log_b2"}]}`+"\n")} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var bad []model.RecordError
			src, err := Open(context.Background(), Options{File: path, OnBad: func(r model.RecordError) { bad = append(bad, r) }})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if src.Client() != nil || !strings.HasPrefix(src.Name(), "FILE ") {
				t.Errorf("name %q client %v", src.Name(), src.Client())
			}
			// Get before Load indexes the file itself.
			e, err := src.Get(context.Background(), "log_b2")
			if err != nil || e.ID != "log_b2" {
				t.Fatalf("Get: %v %v", e.ID, err)
			}
			var all []model.Execution
			if err := src.Load(context.Background(), 0, func(b []model.Execution) error { all = append(all, b...); return nil }); err != nil {
				t.Fatal(err)
			}
			for _, want := range all {
				got, err := src.Get(context.Background(), want.ID)
				if err != nil {
					t.Fatalf("Get(%s): %v", want.ID, err)
				}
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(want)
				if string(gj) != string(wj) {
					t.Errorf("Get(%s) = %s, loaded %s", want.ID, gj, wj)
				}
			}
			if _, err := src.Get(context.Background(), "log_nope"); !errors.Is(err, ErrNotFound) {
				t.Errorf("unknown id: %v", err)
			}
			if strings.HasSuffix(path, "list.json") && len(bad) != 2 { // Get's index pass, then Load
				t.Errorf("OnBad calls = %d", len(bad))
			}
		})
	}
	now := time.Date(2026, 3, 1, 10, 7, 0, 0, time.UTC)
	src, _ := Open(context.Background(), Options{File: "testdata/array.json", Now: func() time.Time { return now }})
	var got []model.Execution
	if err := src.Load(context.Background(), 5*time.Minute, func(b []model.Execution) error { got = append(got, b...); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got), []string{"log_b2", "log_c3"}) {
		t.Errorf("since 5m from 10:07: %v", ids(got))
	}
	if _, err := src.Get(context.Background(), "log_a1"); err != nil {
		t.Errorf("records outside since stay reachable by Get: %v", err)
	}
}

func TestFileSourceNoticesAChangedFile(t *testing.T) {
	p := writeFile(t, "c.jsonl", `{"id":"log_1"}`+"\n"+`{"id":"log_2"}`+"\n")
	src, _ := Open(context.Background(), Options{File: p})
	if err := src.Load(context.Background(), 0, func([]model.Execution) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"id":"log_9"}`+"\n"+`{"id":"log_8"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Get(context.Background(), "log_2"); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("Get after the file changed: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(context.Background(), Options{File: "testdata/nope.jsonl"}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Open(context.Background(), Options{BaseURL: "https://backend.composio.dev"}); !errors.Is(err, ErrNoAPIKey) {
		t.Errorf("remote without key: %v", err)
	}
	if _, err := Open(context.Background(), Options{}); err == nil {
		t.Error("no source: no error")
	}
	for _, u := range []string{"http://127.0.0.1:9", "http://localhost:9", "http://[::1]:9"} {
		src, err := Open(context.Background(), Options{BaseURL: u})
		if err != nil || src.Client() == nil {
			t.Errorf("loopback %s without key: %v", u, err)
		}
	}
	src, err := Open(context.Background(), Options{File: "testdata/array.json", BaseURL: "http://127.0.0.1:9"})
	if err != nil || src.Client() == nil {
		t.Errorf("file with a base URL gets a client: %v", err)
	}
}

// BenchmarkLoadFile measures streaming a JSONL export of 100k detail records.
func BenchmarkLoadFile100k(b *testing.B) {
	p := filepath.Join(b.TempDir(), "bench.jsonl")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 100_000 {
		e := model.Execution{
			ID: fmt.Sprintf("log_%08d", i), Timestamp: base.Add(time.Duration(i) * time.Second), ToolSlug: "GMAIL_SEND_EMAIL",
			ToolkitSlug: "gmail", UserID: fmt.Sprintf("user_%d", i%500), ConnectedAccountID: fmt.Sprintf("ca_%d", i%700),
			Status: "success", StartTime: base.Add(time.Duration(i) * time.Second), EndTime: base.Add(time.Duration(i)*time.Second + 800*time.Millisecond),
			Duration: 800 * time.Millisecond, HasDuration: true, RequestID: fmt.Sprintf("req-%d", i), RetryCount: -1,
			Arguments: json.RawMessage(fmt.Sprintf(`{"to":"someone%d@example.com","subject":"Invoice %d","body":"Hello, please find attached."}`, i%97, i)),
			Response:  json.RawMessage(`{"data":{"id":"msg_1"},"error":null,"successful":true}`),
		}
		line, _ := json.Marshal(model.ToWire(&e, true))
		f.Write(append(line, '\n'))
	}
	st, _ := f.Stat()
	f.Close()
	b.SetBytes(st.Size())
	for b.Loop() {
		n := 0
		if _, err := LoadFile(context.Background(), p, func(batch []model.Execution) error { n += len(batch); return nil }); err != nil || n != 100_000 {
			b.Fatalf("loaded %d: %v", n, err)
		}
	}
}

// collide makes b's hash lead to a's record in x, as if the two hashes were equal.
func collide(x *fileIndex, b, a string) {
	v, _ := x.tab.Get(x.hash(a))
	x.tab.Put(x.hash(b), v)
}

// The table grows past three quarters full and finds every record afterwards; locations that
// do not pack in 8 bytes are kept by name.
func TestFileIndexGrowsAndPacks(t *testing.T) {
	x := newFileIndex(0)
	for i := range 10_000 {
		x.add(fmt.Sprintf("log_%d", i), location{off: int64(i) * 100, n: int64(i%50 + 1), page: i%7 == 0})
	}
	if x.tab.Slots() < 10_000*4/3 {
		t.Errorf("%d slots for 10000 ids", x.tab.Slots())
	}
	for i := range 10_000 {
		got := x.find(fmt.Sprintf("log_%d", i))
		if want := (location{off: int64(i) * 100, n: int64(i%50 + 1), page: i%7 == 0}); len(got) != 1 || got[0] != want {
			t.Fatalf("find(log_%d) = %+v, want %+v", i, got, want)
		}
	}
	big := []location{{off: 1 << 40, n: 10}, {off: 0, n: 1 << 25}}
	for i, loc := range big {
		id := fmt.Sprintf("big_%d", i)
		x.add(id, loc)
		if got := x.find(id); len(got) != 1 || got[0] != loc {
			t.Errorf("find(%s) = %+v, want %+v (kept by name)", id, got, loc)
		}
	}
}

func TestFileIndexKeepsFirstAndCollidingIDs(t *testing.T) {
	x := newFileIndex(0)
	x.add("log_a", location{off: 0, n: 10})
	x.add("log_a", location{off: 10, n: 10}) // the same id again: the first one wins
	// Make log_b's hash lead to log_a's record, as another id's colliding hash would.
	collide(x, "log_b", "log_a")
	x.add("log_b", location{off: 20, n: 10})
	if got := x.find("log_a"); len(got) != 2 || got[0].off != 0 {
		t.Errorf("find(log_a) = %+v, want the first record first", got)
	}
	if got := x.find("log_b"); len(got) != 2 || got[0].off != 0 || got[1].off != 20 {
		t.Errorf("find(log_b) = %+v, want the colliding slot, then its own record", got)
	}
	if got := x.find("log_c"); len(got) != 0 {
		t.Errorf("find(log_c) = %+v", got)
	}
	// Through a real file: Get reads past the colliding record to the right one.
	p := writeFile(t, "c.jsonl", `{"id":"log_a"}`+"\n"+`{"id":"log_a","message":"second"}`+"\n"+`{"id":"log_b"}`+"\n")
	src, _ := Open(context.Background(), Options{File: p})
	fs := src.(*fileSource)
	if err := src.Load(context.Background(), 0, nil); err != nil {
		t.Fatal(err)
	}
	collide(fs.where, "log_b", "log_a")
	delete(fs.where.more, "log_a")
	fs.where.more["log_b"] = location{off: int64(len(`{"id":"log_a"}` + "\n" + `{"id":"log_a","message":"second"}` + "\n")), n: int64(len(`{"id":"log_b"}` + "\n"))}
	if e, err := src.Get(context.Background(), "log_b"); err != nil || e.ID != "log_b" {
		t.Errorf("Get(log_b) = %v, %v", e.ID, err)
	}
	if e, err := src.Get(context.Background(), "log_a"); err != nil || e.Message != "" {
		t.Errorf("Get(log_a) = %+v, %v; want the first record", e, err)
	}
}

func TestSizeHint(t *testing.T) {
	var lines strings.Builder
	for i := range 50_000 {
		fmt.Fprintf(&lines, `{"id":"log_%06d","message":"%s"}`+"\n", i, strings.Repeat("x", i%40))
	}
	tests := []struct {
		name   string
		path   string
		lo, hi int
	}{
		{"jsonl", writeFile(t, "big.jsonl", lines.String()), 50_000, 60_000},
		{"small jsonl", "testdata/records.jsonl", 3, 4}, // a blank line counts
		{"gzip", "testdata/records.jsonl.gz", 0, 0},
		{"array", "testdata/array.json", 0, 0},
		{"pretty", writeFile(t, "p.json", "{\n  \"id\": \"a\"\n}\n"), 0, 0},
	}
	for _, tt := range tests {
		src, err := Open(context.Background(), Options{File: tt.path})
		if err != nil {
			t.Fatal(err)
		}
		if got := src.(*fileSource).SizeHint(); got < tt.lo || got > tt.hi {
			t.Errorf("%s: SizeHint = %d, want %d..%d", tt.name, got, tt.lo, tt.hi)
		}
	}
}

func TestKeepResponse(t *testing.T) {
	recs := []string{
		`{"id":"log_1","data":{"response":{"data":{"id":"m1"},"error":null,"successful":true}}}`,
		`{"id":"log_2","data":{"response":{"data":{},"error":"Invalid recipient","successful":false}}}`,
		`{"id":"log_3","status":"success"}`,
	}
	jsonl := strings.Join(recs, "\n") + "\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(jsonl))
	zw.Close()
	for _, path := range []string{writeFile(t, "r.jsonl", jsonl), writeFile(t, "r.jsonl.gz", gz.String()), writeFile(t, "a.json", "[\n"+strings.Join(recs, ",\n")+"\n]\n")} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			full, _, err := loadAll(t, path, FileOptions{})
			if err != nil || len(full) != 3 || full[0].Response == nil {
				t.Fatalf("loaded %d: %v", len(full), err)
			}
			src, _ := Open(context.Background(), Options{File: path, KeepResponse: func(raw []byte) bool { return bytes.Contains(raw, []byte("false")) }})
			defer src.Close()
			var lean []model.Execution
			if err := src.Load(context.Background(), 0, func(b []model.Execution) error { lean = append(lean, b...); return nil }); err != nil {
				t.Fatal(err)
			}
			for i, e := range lean {
				// A gzip export is read again from its spool, so it is as lean as a plain one.
				if want := i == 1; (e.Response != nil) != want {
					t.Errorf("%s: response kept = %v, want %v", e.ID, e.Response != nil, want)
				}
				if i == 1 && (e.Error == nil || e.Error.Message != "Invalid recipient") {
					t.Errorf("%s: error %+v", e.ID, e.Error)
				}
				got, err := src.Get(context.Background(), e.ID)
				if err != nil || string(got.Response) != string(full[i].Response) {
					t.Errorf("Get(%s) response %s, %v; want the whole record", e.ID, got.Response, err)
				}
			}
		})
	}
}

func TestReuseBatches(t *testing.T) {
	var lines strings.Builder
	for i := range 9000 { // several read chunks
		fmt.Fprintf(&lines, `{"id":"log_%05d","message":"%s","data":{"request":{"arguments":{"n":%d}}}}`+"\n", i, strings.Repeat("m", i%30), i)
	}
	p := writeFile(t, "r.jsonl", lines.String())
	want, _, err := loadAll(t, p, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []FileOptions{{ReuseBatches: true}, {ReuseBatches: true, BatchSize: 1000}, {BatchSize: 777}} {
		var got []model.Execution
		_, err := LoadFileWith(context.Background(), p, opt, func(b []model.Execution) error {
			got = append(got, b...) // copies: the slice itself is not kept
			clear(b)                // and scribbling over it must not matter
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if len(got) != 9000 || string(gj) != string(wj) {
			t.Errorf("%+v: %d records, differ: %v", opt, len(got), string(gj) != string(wj))
		}
	}
}

// TestGzipSpool: a gzip export is copied, decompressed, to a spool in the temporary directory
// while it loads, whose name is removed at once (nothing is left behind however the process
// ends); Get reads records again through its descriptor, during and after the load, and keeps
// none in memory; a second Load replaces the spool; Close closes it. Without a spool (the
// temporary directory is unusable) the records are kept whole and Get still works.
func TestGzipSpool(t *testing.T) {
	var plain bytes.Buffer
	for i := range 5000 {
		fmt.Fprintf(&plain, `{"id":"log_%05d","created_at":"2026-03-01T12:00:00Z","status":"success","data":{"response":{"data":{"n":%d},"successful":true}}}`+"\n", i, i)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	path := writeFile(t, "big.jsonl.gz", gz.String())
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)

	src, err := Open(context.Background(), Options{File: path})
	if err != nil {
		t.Fatal(err)
	}
	fsrc := src.(*fileSource)
	n := 0
	err = src.Load(context.Background(), 0, func(b []model.Execution) error {
		// A record of the batch just emitted can be read again while the load goes on.
		if got, err := src.Get(context.Background(), b[len(b)-1].ID); err != nil || got.ID != b[len(b)-1].ID {
			return fmt.Errorf("Get during the load: %v", err)
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "exectriage-export-*")); len(left) != 0 {
			return fmt.Errorf("the spool has a name during the load: %v", left)
		}
		n += len(b)
		return nil
	})
	if err != nil || n != 5000 {
		t.Fatalf("loaded %d: %v", n, err)
	}
	fsrc.mu.Lock()
	first := fsrc.spool
	fsrc.mu.Unlock()
	if first == nil || len(fsrc.kept) != 0 {
		t.Fatalf("spool %v, %d records kept in memory", first, len(fsrc.kept))
	}
	st, err := first.Stat()
	if err != nil || st.Mode().Perm() != 0o600 || st.Size() != int64(plain.Len()) {
		t.Fatalf("spool: mode %v, %d bytes (want 0600, %d): %v", st.Mode().Perm(), st.Size(), plain.Len(), err)
	}
	for _, id := range []string{"log_00000", "log_02500", "log_04999"} {
		e, err := src.Get(context.Background(), id)
		if err != nil || e.ID != id || !bytes.Contains(e.Response, []byte(`"successful":true`)) {
			t.Errorf("Get(%s) = %s %s, %v", id, e.ID, e.Response, err)
		}
	}
	if err := src.Load(context.Background(), 0, nil); err != nil {
		t.Fatal(err)
	}
	fsrc.mu.Lock()
	second := fsrc.spool
	fsrc.mu.Unlock()
	if second == nil || second == first {
		t.Errorf("after a second Load the spool was not replaced")
	}
	if _, err := first.Stat(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("the first spool is still open: %v", err)
	}
	if e, err := src.Get(context.Background(), "log_01234"); err != nil || e.ID != "log_01234" {
		t.Errorf("Get after the second Load: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
		t.Errorf("files left in TMPDIR: %v", left)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := second.Stat(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Close left the spool open: %v", err)
	}

	// No usable temporary directory: kept whole, as before spools.
	t.Setenv("TMPDIR", filepath.Join(tmp, "missing"))
	src2, err := Open(context.Background(), Options{File: path})
	if err != nil {
		t.Fatal(err)
	}
	defer src2.Close()
	if err := src2.Load(context.Background(), 0, nil); err != nil {
		t.Fatal(err)
	}
	if k := len(src2.(*fileSource).kept); k != 5000 {
		t.Fatalf("without a spool %d records kept, want 5000", k)
	}
	if e, err := src2.Get(context.Background(), "log_04321"); err != nil || e.ID != "log_04321" {
		t.Errorf("Get without a spool: %v", err)
	}
}

// LoadLocated streams records without their arguments, with refs that ReadRefs reads back
// with their arguments and the responses the source keeps (KeepResponse); a gzip export is read
// back from its spool; one without a spool comes whole, with no refs.
func TestLoadLocated(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		resp := `{"data":{"x":false,"t":"caf\u00e9"},"successful":true}`
		if i%2 == 1 {
			resp = `{"successful":false,"error":"boom"}`
		}
		fmt.Fprintf(&b, `{"id":"log_%05d","tool_slug":"GMAIL_SEND_EMAIL","data":{"request":{"arguments":{"n":%d,"to":"a@b"}},"response":%s}}`+"\n", i, i, resp)
	}
	b.WriteString(`{"logs":[{"id":"log_p1","data":{"request":{"arguments":{"n":-1}}}},{"id":"log_p2","data":{"request":{"arguments":{"n":-2}}}}]}` + "\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(b.String()))
	zw.Close()
	plain, gzPath := writeFile(t, "l.jsonl", b.String()), writeFile(t, "l.jsonl.gz", gz.String())
	for _, tt := range []struct {
		name, path, tmp string
		located         bool
	}{{"plain", plain, "", true}, {"gzip", gzPath, "", true}, {"gzip without a spool", gzPath, filepath.Join(t.TempDir(), "none"), false}} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.tmp != "" {
				t.Setenv("TMPDIR", tt.tmp)
			}
			keep := func(raw []byte) bool { return bytes.Contains(raw, []byte("boom")) }
			src, err := Open(context.Background(), Options{File: tt.path, KeepResponse: keep})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			loc := src.(Located)
			var refs []Ref
			var ids []string
			err = loc.LoadLocated(context.Background(), 0, func(bt []model.Execution, rs []Ref) error {
				if (rs != nil) != tt.located {
					t.Fatalf("refs given = %v, want %v", rs != nil, tt.located)
				}
				for i, e := range bt {
					if (e.Arguments == nil) != tt.located || !e.Detailed {
						t.Fatalf("%s: arguments %s (detailed %v)", e.ID, e.Arguments, e.Detailed)
					}
					if rs != nil {
						refs, ids = append(refs, rs[i]), append(ids, e.ID)
					}
				}
				return nil
			})
			if err != nil || !tt.located {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if len(refs) != 5002 {
				t.Fatalf("%d refs", len(refs))
			}
			n := 0
			err = loc.ReadRefs(context.Background(), refs, ids, func(k int, e model.Execution) error {
				want := fmt.Sprintf(`{"n":%d,"to":"a@b"}`, k)
				switch ids[k] {
				case "log_p1":
					want = `{"n":-1}`
				case "log_p2":
					want = `{"n":-2}`
				}
				if e.ID != ids[k] || string(e.Arguments) != want || refs[k].Size() <= len(want) {
					t.Fatalf("ReadRefs %d: %s %s (%d bytes), want %s", k, e.ID, e.Arguments, refs[k].Size(), want)
				}
				if k < 5000 && (e.Response != nil) != (k%2 == 1) {
					t.Fatalf("ReadRefs %d: response %s: want only the one the source keeps", k, e.Response)
				}
				n++
				return nil
			})
			if err != nil || n != len(refs) {
				t.Fatalf("read back %d: %v", n, err)
			}
		})
	}
}

// TestUnreadableRecordsAreCountedNotHeld: a file of many unreadable records (22 million `{}`
// lines held 2.5 GB of errors) keeps the first MaxBadKept and counts the rest, and still says
// it holds no readable record.
func TestUnreadableRecordsAreCountedNotHeld(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat("{}\n", 5000)), 0o600); err != nil {
		t.Fatal(err)
	}
	told := 0
	bad, err := LoadFileWith(context.Background(), path, FileOptions{OnBad: func(model.RecordError) { told++ }}, func([]model.Execution) error { return nil })
	if len(bad) != MaxBadKept || told != 5000 || err == nil || !strings.Contains(err.Error(), "no readable record (5000 unreadable") {
		t.Fatalf("%d kept, %d told, %v", len(bad), told, err)
	}
}
