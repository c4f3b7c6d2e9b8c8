package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// LogsPage is one page of POST /api/v3.1/logs/tool_execution.
type LogsPage struct {
	Executions []Execution
	NextCursor string // "" at the end
	// Bad lists records of the page that could not be parsed, by index, with the reason.
	Bad []RecordError
}

// RecordError says which record of a page or file could not be parsed, and why.
type RecordError struct {
	Index int // 0-based index in the page, or 1-based line number in a JSONL file
	Err   error
}

func (r RecordError) Error() string { return fmt.Sprintf("record %d: %v", r.Index, r.Err) }

// ParseLogsPage parses a list response {"logs": [...], "next_cursor": ...}. A response that is
// not such an object is an error; bad records inside it are reported in Bad and skipped.
func ParseLogsPage(data []byte) (LogsPage, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return LogsPage{}, fmt.Errorf("logs response: %w", ErrNotObject)
	}
	var raw struct {
		Logs       json.RawMessage `json:"logs"`
		NextCursor json.RawMessage `json:"next_cursor"`
	}
	if err := decodeLenient(data, &raw); err != nil {
		return LogsPage{}, fmt.Errorf("logs response: %w", err)
	}
	var items []json.RawMessage
	if l := bytes.TrimSpace(raw.Logs); len(l) == 0 || l[0] != '[' || json.Unmarshal(l, &items) != nil {
		return LogsPage{}, errors.New(`logs response: no "logs" array`)
	}
	var p LogsPage
	p.NextCursor, _ = jsonString(raw.NextCursor)
	p.Executions = make([]Execution, 0, len(items))
	for i, it := range items {
		e, err := ParseRecord(it)
		if err != nil {
			p.Bad = append(p.Bad, RecordError{Index: i, Err: err})
			continue
		}
		p.Executions = append(p.Executions, e)
	}
	return p, nil
}

// LogsPageLen counts the records of a logs page (the elements of its top-level "logs" array)
// without decoding it: a page with more records than asked for is refused before its records
// are parsed. ok is false when the page is not an object with such an array (ParseLogsPage
// then says what is wrong); a key repeated counts its last value, as decoding does.
func LogsPageLen(data []byte) (n int, ok bool) {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return 0, false
	}
	i++
	n = -1 // no "logs" array yet
	for {
		i = skipWS(data, i)
		if i >= len(data) {
			return 0, false
		}
		if data[i] == '}' {
			return max(n, 0), ok
		}
		if data[i] == ',' {
			i++
			continue
		}
		if data[i] != '"' {
			return 0, false
		}
		end := skipString(data, i)
		if end < 0 {
			return 0, false
		}
		key := data[i+1 : end-1]
		i = skipWS(data, end)
		if i >= len(data) || data[i] != ':' {
			return 0, false
		}
		i = skipWS(data, i+1)
		if logsKey(key) {
			if i >= len(data) || data[i] != '[' { // a later "logs" that is not an array: decoding fails
				ok = false
				if i = skipValue(data, i); i < 0 {
					return 0, false
				}
				continue
			}
			count, next := countArray(data, i)
			if next < 0 {
				return 0, false
			}
			n, ok, i = count, true, next
			continue
		}
		if i = skipValue(data, i); i < 0 {
			return 0, false
		}
	}
}

// logsKey reports whether an object key (as written, without its quotes) is the one decoding
// takes for "logs": encoding/json matches keys case-insensitively and after their escapes.
func logsKey(raw []byte) bool {
	key := raw
	if bytes.IndexByte(raw, '\\') >= 0 {
		var s string
		if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s) != nil {
			return false
		}
		key = []byte(s)
	}
	return bytes.EqualFold(key, []byte("logs"))
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] ('"'), -1 when unterminated.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index after the value starting at b[i], -1 when it does not end.
func skipValue(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			j := skipString(b, i)
			if j < 0 {
				return -1
			}
			if depth == 0 {
				return j
			}
			i = j - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i // the enclosing object's end: a scalar ended before it
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// countArray counts the elements of the array starting at b[i] ('[') and returns the index
// after it, -1 when it does not end.
func countArray(b []byte, i int) (int, int) {
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return 0, i + 1
	}
	n := 0
	for i < len(b) {
		i = skipWS(b, i)
		if i = skipValue(b, i); i < 0 {
			return 0, -1
		}
		n++
		i = skipWS(b, i)
		if i >= len(b) {
			return 0, -1
		}
		switch b[i] {
		case ',':
			i++
		case ']':
			return n, i + 1
		default:
			return 0, -1
		}
	}
	return 0, -1
}
