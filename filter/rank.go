package filter

import (
	"bytes"
	"context"
	"slices"
	"sync"

	"github.com/exectriage/exectriage/internal/cores"
)

// Match quality, best first, as fzf's scoring orders it: a free-text term that is a whole
// word of the row's own names (tool, toolkit, log id; a word ends at '_', '-', '.', '/' or a
// space), then one inside those names, then one inside another field (user, account, request
// id, error text), then the term's letters scattered inside one field, then letters scattered
// across fields. A row's quality is that of its worst term; its score the sum over its terms.
const (
	qualityAcross    = iota // letters scattered across fields
	qualityScattered        // letters scattered inside one field
	qualityInField          // a run of the term inside another field
	qualityInName           // a run of the term inside the tool, toolkit or log id
	qualityWord             // the term is a whole word of the tool, toolkit or log id
)

// rankChunk is the fewest rows worth a goroutine of their own when ranking: each costs a
// search of the whole row's text, some fifty times a filter's mask check.
const rankChunk = 2048

// nameSlots are the fields that name a row.
var nameSlots = [...]int{slotTool, slotToolkit, slotID}

// Rank orders rows (positions in the index, e.g. a Filter result) by how well the query's
// positive free-text terms match, best first (see qualityWord); equal scores keep their input
// order (newest first). Rows whose letters only scatter (quality below a run of the term) are
// the tail of noise a long row's text makes: when any row holds the term as a run, they are
// cut, and when any row holds it inside one field, those scattered across fields are; hidden
// counts them. A query without free text returns rows unchanged.
func (ix *Index) Rank(q Query, rows []int) (ranked []int, hidden int) {
	ranked, hidden, _ = ix.RankContext(context.Background(), q, rows)
	return ranked, hidden
}

// RankContext is Rank that stops when ctx ends (returning ctx's error and no rows).
func (ix *Index) RankContext(ctx context.Context, q Query, rows []int) (ranked []int, hidden int, err error) {
	if !q.Scored() {
		return slices.Clone(rows), 0, nil
	}
	score := make([]int32, len(rows))
	worst := make([]int8, len(rows))
	var mu sync.Mutex
	best := int8(qualityAcross)
	cores.Split(cores.Parts(len(rows), rankChunk), len(rows), func(_, lo, hi int) {
		top := int8(qualityAcross)
		for r := lo; r < hi; r++ {
			if r%rankChunk == 0 && ctx.Err() != nil {
				return
			}
			m := ix.row(rows[r])
			w, sum := int8(qualityWord), int32(0)
			for i := range q.terms {
				t := &q.terms[i]
				if t.field != fieldText || t.neg {
					continue
				}
				qv := ix.quality(m, t.pat, t.ascii)
				w = min(w, qv)
				sum += int32(qv)
			}
			score[r], worst[r] = sum, w
			top = max(top, min(w, qualityInField))
		}
		mu.Lock()
		best = max(best, top)
		mu.Unlock()
	})
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	order := make([]int, 0, len(rows))
	for r := range rows {
		if min(worst[r], qualityInField) >= best {
			order = append(order, r)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(score[b] - score[a]) })
	ranked = make([]int, len(order))
	for i, o := range order {
		ranked[i] = rows[o]
	}
	return ranked, len(rows) - len(order), nil
}

// quality is how well the folded pattern matches row m (see qualityWord).
func (ix *Index) quality(m *rowMeta, pat []byte, ascii bool) int8 {
	if len(pat) == 0 {
		return qualityWord
	}
	inName := false
	for _, slot := range nameSlots {
		v := ix.slot(m, slot)
		for from := 0; from <= len(v)-len(pat); {
			i := bytes.Index(v[from:], pat)
			if i < 0 {
				break
			}
			at := from + i
			if (at == 0 || wordBreak(v[at-1])) && (at+len(pat) == len(v) || wordBreak(v[at+len(pat)])) {
				return qualityWord
			}
			inName = true
			from = at + 1
		}
	}
	if inName {
		return qualityInName
	}
	hay := ix.text(m, 0, int(m.ends[slotError]))
	if bytes.Contains(hay, pat) {
		return qualityInField
	}
	lo := 0
	for slot := range nHaySlots {
		hi := int(m.ends[slot])
		if lo <= hi && subsequence(hay[lo:hi], pat, ascii) {
			return qualityScattered
		}
		lo = hi + 1
	}
	return qualityAcross
}

// wordBreak: a byte that ends a word of a name (TOOL_SLUG, tool-kit, a.b, a/b, spaces).
func wordBreak(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c == '/' || c == ' '
}
