package common

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MaxPretty bounds how much of a JSON value a pane shows; the rest is summarised.
const MaxPretty = 64 << 10

// PrettyJSON indents raw JSON for a pane, cleaned of anything a terminal would interpret. Invalid
// JSON is shown as text; a huge value is cut at MaxPretty with a note.
func PrettyJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "(none)"
	}
	extra := 0
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		buf.Reset()
		buf.Write(raw)
	}
	out := buf.Bytes()
	if len(out) > MaxPretty {
		extra = len(out) - MaxPretty
		out = out[:MaxPretty]
	}
	s := CleanBlock(string(bytes.ToValidUTF8(out, []byte("�"))))
	if extra > 0 {
		s += fmt.Sprintf("\n… %s more bytes (see `exectriage show ID --json`)", Count(extra))
	}
	return s
}
