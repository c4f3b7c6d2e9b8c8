package filter

import (
	"fmt"
	"strings"
)

// Hint says, for a query that keeps matched rows, what a person typing it may not expect, or
// "" when nothing: a field named with no value matches every row (it is a query being typed);
// an identifier term that matches nothing is a whole value, so the same text with a '*' is
// offered (a tool slug being typed, the first block of a pasted request id).
func (q Query) Hint(matched int) string {
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
		return fmt.Sprintf("%s:%s is a whole value and none is; %s:%s* matches those that start so", name, t.value, name, t.value)
	}
	return ""
}
