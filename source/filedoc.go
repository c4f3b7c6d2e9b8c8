package source

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

func truncated(err error) bool {
	var se *json.SyntaxError
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &se) && strings.Contains(se.Error(), "unexpected end")
}

func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// document streams JSON values with a decoder: arrays of records, list responses (whose
// "logs" array is streamed element by element) and single records, one after another.
func (l *loader) document(ctx context.Context, br *bufio.Reader) error {
	dec := json.NewDecoder(br)
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		after := dec.InputOffset()
		if err == io.EOF {
			break
		}
		if err != nil {
			return l.decodeFail(dec, err)
		}
		switch tok {
		case json.Delim('['):
			if err := l.array(ctx, dec); err != nil {
				return err
			}
		case json.Delim('{'):
			if err := l.object(ctx, dec, before); err != nil {
				return err
			}
		default:
			return l.fail(l.lineAt(after), fmt.Sprintf("not a Logs API export: %v at the top level, want an object or an array", tok), nil)
		}
	}
	return l.flush(ctx, true)
}

// array streams the elements of an array whose '[' was read, and its ']'.
func (l *loader) array(ctx context.Context, dec *json.Decoder) error {
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return l.decodeFail(dec, err)
		}
		l.records++
		end := dec.InputOffset()
		start := end - int64(len(raw))
		if len(raw) > l.maxRecord() {
			l.skip(l.records, fmt.Errorf("record %d: larger than %s", l.records, sizeText(l.maxRecord())))
			continue
		}
		e, err := l.parser.Parse(raw)
		if err != nil {
			l.skip(l.records, fmt.Errorf("record %d (line %d): %w", l.records, l.lineAt(start), err))
			continue
		}
		if err := l.add(ctx, e, location{off: l.base + start, n: int64(len(raw))}, l.repeats.sum(raw)); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // ']'
		return l.decodeFail(dec, err)
	}
	return nil
}

// object reads a top-level object whose '{' was read: a list response when it has a "logs"
// array (streamed), else one record (rebuilt from its members, which are small).
func (l *loader) object(ctx context.Context, dec *json.Decoder, start int64) error {
	var members []byte
	sawLogs := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return l.decodeFail(dec, err)
		}
		key, _ := tok.(string)
		if key == "logs" && !sawLogs {
			open, err := dec.Token()
			if err != nil {
				return l.decodeFail(dec, err)
			}
			if open != json.Delim('[') {
				return l.fail(l.lineAt(dec.InputOffset()), `"logs" is not an array`, nil)
			}
			sawLogs = true
			if err := l.array(ctx, dec); err != nil {
				return err
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return l.decodeFail(dec, err)
		}
		if sawLogs || len(members) > l.maxRecord() {
			continue
		}
		if len(members) > 0 {
			members = append(members, ',')
		}
		kb, _ := json.Marshal(key)
		members = append(append(append(members, kb...), ':'), raw...)
	}
	if _, err := dec.Token(); err != nil { // '}'
		return l.decodeFail(dec, err)
	}
	if sawLogs {
		return nil
	}
	l.records++
	end := dec.InputOffset()
	if len(members) > l.maxRecord() {
		l.skip(l.records, fmt.Errorf("record %d: larger than %s", l.records, sizeText(l.maxRecord())))
		return nil
	}
	rec := append(append([]byte{'{'}, members...), '}')
	e, err := l.parser.Parse(rec)
	if err != nil {
		l.skip(l.records, fmt.Errorf("record %d (line %d): %w", l.records, l.lineAt(start), err))
		return nil
	}
	return l.add(ctx, e, location{off: l.base + start, n: end - start}, l.repeats.sum(rec))
}

// decodeFail turns a decoder error into a FileError with the line it happened on.
func (l *loader) decodeFail(dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if truncated(err) {
		return l.fail(l.lineAt(math.MaxInt64-l.base), "truncated: the file ends in the middle of a record", nil)
	}
	return l.fail(l.lineAt(off), "invalid JSON", err)
}

// lineAt returns the 1-based line of a decoder offset by reading the file again up to it;
// only used on the error path. 0 when it cannot tell.
func (l *loader) lineAt(decOff int64) int {
	f, err := os.Open(l.path)
	if err != nil {
		return 0
	}
	defer f.Close()
	var r io.Reader = f
	if l.gz {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return 0
		}
		defer zr.Close()
		r = zr
	}
	n := 1
	buf := make([]byte, 64<<10)
	for left := l.base + decOff; left > 0; {
		k, err := r.Read(buf[:min(int64(len(buf)), left)])
		n += bytes.Count(buf[:k], []byte{'\n'})
		left -= int64(k)
		if err != nil {
			break
		}
	}
	return n
}
