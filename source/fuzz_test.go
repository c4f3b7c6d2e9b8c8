package source

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/exectriage/exectriage/model"
)

// FuzzLoadFile: whatever bytes a file holds, loading it never panics, every record handed
// out has an id, and every bad record is reported with a position inside the file.
func FuzzLoadFile(f *testing.F) {
	for _, s := range []string{
		`{"logs":[{"id":"log_1","metadata":{"tool_slug":"A"}}],"next_cursor":null}`,
		`[{"id":"log_1"},{"id":"log_2"}]`,
		"{\"id\":\"log_1\"}\n{\"id\":\"log_2\"}\nnot json\n",
		"", "\x00\x01\x02", `[{"id":"x"`, "\xef\xbb\xbf{\"id\":\"bom\"}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "export.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		n := 0
		bad, err := LoadFile(context.Background(), path, func(batch []model.Execution) error {
			for i := range batch {
				if batch[i].ID == "" {
					t.Fatalf("record without id handed out: %+v", batch[i])
				}
			}
			n += len(batch)
			return nil
		})
		if err != nil {
			return
		}
		for _, b := range bad {
			if b.Index < 0 || b.Index > len(data)+1 {
				t.Fatalf("bad record position %d outside a %d-byte file", b.Index, len(data))
			}
		}
	})
}
