package triage

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/exectriage/exectriage/model"
)

// Rows. A write that appends records (a sheet's rows, a table's records) carries them as a list
// of rows: they are its content, as a message's body is, not the place it writes to. An agent
// that saw an error sends the rows again with the numbers and dates written another way
// ("1,234.50" then 1234.5, "2026-03-14" then "03/14/2026"), so the rows are compared as text,
// by the facts they carry (entities.go), and the identity is where they go (the sheet, the
// range). Which argument holds rows is read from its name and its value, for any tool.

// rowsKey: an argument named as a list of records.
func rowsKey(k string) bool {
	switch strings.ToLower(k) {
	case "values", "rows", "records", "row", "cells":
		return true
	}
	return false
}

// rowsText is a list of rows (decoded with json.Number) as text: one line a row, its cells
// apart by " | ", an object's cells as "key: value" in key order; ok is false for a value that
// is not a list.
func rowsText(v any) (string, bool) {
	rows, ok := v.([]any)
	if !ok {
		return "", false
	}
	var b strings.Builder
	for _, r := range rows {
		cellsText(&b, r)
		b.WriteByte('\n')
	}
	return b.String(), true
}

func cellsText(b *strings.Builder, v any) {
	switch x := v.(type) {
	case []any:
		for i, c := range x {
			if i > 0 {
				b.WriteString(" | ")
			}
			cellsText(b, c)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(k)
			b.WriteString(": ")
			cellsText(b, x[k])
		}
	case string:
		b.WriteString(x)
	case json.Number:
		b.WriteString(x.String())
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
	}
}

// rowsOf is rowsText of an argument's raw JSON, when its name and value make it rows.
func rowsOf(m model.ArgMember) (string, bool) {
	if !rowsKey(m.Key) || len(m.Raw) == 0 || m.Raw[0] != '[' {
		return "", false
	}
	v, err := model.DecodeArgs(m.Raw)
	if err != nil {
		return "", false
	}
	return rowsText(v)
}
