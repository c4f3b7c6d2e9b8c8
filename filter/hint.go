package filter

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/exectriage/exectriage/internal/cores"
)

// suggestLimit is how many values a hint names; maxDistinct bounds the values each part of
// the rows counts (an id: prefix can start a value of every row).
const (
	suggestLimit = 5
	maxDistinct  = 4096
)

// Hint says, for a query that keeps matched rows, what a person typing it may not expect, or
// "" when nothing: a field named with no value matches every row (it is a query being typed);
// an identifier term that matches nothing is a whole value, so the values of the index's rows
// that start so are offered, most frequent first, with the same text and a '*' (a tool slug
// being typed, the first block of a pasted request id). ix may be nil (no values offered).
func (ix *Index) Hint(q Query, matched int) string {
	if len(q.bare) > 0 {
		name := strings.ToLower(q.bare[0])
		return fmt.Sprintf("%s: has no value yet: it matches every row", name)
	}
	if matched > 0 {
		return ""
	}
	for k := range q.terms {
		t := &q.terms[k]
		if t.neg || t.field == fieldText || !identifier(t.field) || t.how != whole || t.has != presenceAny {
			continue
		}
		name := fieldName(t.field)
		values := ix.starting(t, suggestLimit+1)
		switch {
		case len(values) == 0:
			return fmt.Sprintf("%s:%s is a whole value and none is, nor starts so", name, t.value)
		case len(values) > suggestLimit:
			values = append(values[:suggestLimit], "…")
		}
		return fmt.Sprintf("%s:%s is a whole value and none is; %s:%s* matches those that start so: %s",
			name, t.value, name, t.value, strings.Join(values, ", "))
	}
	return ""
}

// starting returns up to limit values of t's field among the index's rows that start with t's
// pattern, the most frequent first (then in byte order), shown in the case t was typed in
// when that is all upper case (matching ignores case; the index keeps values folded).
func (ix *Index) starting(t *term, limit int) []string {
	if ix == nil || len(t.pat) == 0 {
		return nil
	}
	// Each part of the rows counts its own values (at most maxDistinct each), on every core:
	// at 1M rows the scan alone took 40 ms on one. Their sums are the counts.
	parts := make([]map[string]int, cores.Parts(ix.Len(), minChunk))
	cores.Split(len(parts), ix.Len(), func(part, lo, hi int) {
		counts := make(map[string]int)
		for k := lo; k < hi; k++ {
			v := ix.field(k, ix.row(k), t.slot)
			if len(v) <= len(t.pat) || !bytes.HasPrefix(v, t.pat) {
				continue
			}
			if n, ok := counts[string(v)]; ok {
				counts[string(v)] = n + 1
			} else if len(counts) < maxDistinct {
				counts[string(v)] = 1
			}
		}
		parts[part] = counts
	})
	counts := make(map[string]int)
	for _, part := range parts {
		for v, n := range part {
			counts[v] += n
		}
	}
	values := make([]string, 0, len(counts))
	for v := range counts {
		values = append(values, v)
	}
	slices.SortFunc(values, func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b))
	})
	values = values[:min(limit, len(values))]
	if upper(t.value) {
		for i, v := range values {
			values[i] = strings.ToUpper(v)
		}
	}
	return values
}

// upper says s has an upper-case letter and no lower-case one.
func upper(s string) bool {
	seen := false
	for _, r := range s {
		if unicode.IsLower(r) {
			return false
		}
		seen = seen || unicode.IsUpper(r)
	}
	return seen
}
