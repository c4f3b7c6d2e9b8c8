package ui

import (
	"cmp"
	"context"
	"maps"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/window"
)

// selector is the list's selection, a sub-model of the root as the loader is: which rows of
// which dataset a query and a view select, made off the loop (selectCmd) and installed when
// they come (take), each request tagged so that a stale one is dropped; the rows a query
// narrows from (the last result, recent results on the same dataset); and the dataset waiting
// for its rows.
type selector struct {
	ctx     context.Context    // the program's: a selection's work stops when it ends
	stop    context.CancelFunc // ends the last selection asked for (the next one makes it stale)
	nextDS  *window.Dataset    // a dataset waiting for its rows (installed with them)
	tag     int                // of the last selection asked for
	done    int                // tag of the last selection installed
	user    int                // tag of the last selection a key asked for (pending)
	lastQ   filter.Query       // the query of the installed rows
	lastV   window.View        // the view of the installed rows
	lastPos []int              // the installed query's matches
	lastDS  *window.Dataset    // the dataset of the installed rows
	matches matchCache         // recent filter results on lastDS, reused when the query returns
	ranked  bool               // the installed rows are in best-match order
	hidden  int                // matches the ranking cut as scattered letters
}

// request asks for the rows of query and view over the dataset waiting (else ds), keeping the
// execution keepID (of kind keepKind) selected, else the row at (-1: the top).
func (s *selector) request(
	ds *window.Dataset,
	view window.View,
	query filter.Query,
	keepID string,
	keepKind window.ItemKind,
	at int,
) tea.Cmd {
	s.tag++
	if s.nextDS != nil {
		ds = s.nextDS
	}
	var from cachedMatches
	exact := false
	if s.matches.ds == ds && !query.Empty() {
		from, exact = s.matches.lookup(query)
	}
	if from.pos == nil && s.lastDS == ds && s.lastPos != nil && !s.lastQ.Empty() && query.Refines(s.lastQ) {
		from.pos = s.lastPos
	}
	v := view
	v.Collapsed = maps.Clone(view.Collapsed)
	if s.stop != nil {
		s.stop() // the selection asked for before is stale now: its search stops
	}
	ctx, stop := context.WithCancel(cmp.Or[context.Context](s.ctx, context.Background()))
	s.stop = stop
	return selectCmd(ctx, s.tag, ds, v, query, from, exact, keepID, keepKind, at)
}

// asked marks the last request as a key's: until it is installed, keys that act on rows wait.
func (s *selector) asked() { s.user = s.tag }

// pending says a selection a key asked for is not installed yet.
func (s *selector) pending() bool { return s.done < s.user }

// take installs a selection's result (ok false: a stale one, dropped); byKey says a key asked
// for it (not rows that moved by themselves).
func (s *selector) take(msg selectedMsg) (ok, byKey bool) {
	if msg.tag != s.tag {
		return false, false
	}
	if s.nextDS == msg.ds {
		s.nextDS = nil
	}
	s.lastDS, s.lastQ, s.lastV, s.lastPos, s.done = msg.ds, msg.q, msg.v, msg.pos, msg.tag
	s.ranked, s.hidden = msg.ranked, msg.hidden
	s.matches.add(msg.ds, cachedMatches{q: msg.q, pos: msg.pos, best: msg.best, hidden: msg.hidden})
	return true, msg.tag <= s.user
}

// behind says the installed rows were selected for another query or view than query and
// view: a selection for them is on its way.
func (s *selector) behind(query filter.Query, view window.View) bool {
	if s.done >= s.tag {
		return false
	}
	a, b := s.lastV, view
	return s.lastQ.String() != query.String() || a.FlaggedOnly != b.FlaggedOnly || a.WritesOnly != b.WritesOnly ||
		a.Duplicates != b.Duplicates || a.BestMatch != b.BestMatch
}

// matchCache holds the filter's recent results on one dataset (the queries typed on the way
// to the current one), so that erasing a character reuses the shorter query's matches
// instead of filtering every execution again, and a query narrows from the smallest cached
// result it refines.
type matchCache struct {
	ds      *window.Dataset
	entries []cachedMatches // oldest first
}

// cachedMatches are a query's matches and, once a selection ranked them, their best-match
// order (best, nil when not ranked) and how many the ranking cut.
type cachedMatches struct {
	q      filter.Query
	pos    []int
	best   []int
	hidden int
}

// size is the positions an entry holds: its matches and their ranked order.
func (m cachedMatches) size() int { return len(m.pos) + len(m.best) }

// Bounds on what the cache keeps (the newest result is always kept).
const (
	matchCacheEntries   = 8
	matchCachePositions = 4 << 20
)

// lookup returns the cached matches of q (exact) or, failing that, the smallest cached result
// q refines (its pos only; nil when there is none).
func (c *matchCache) lookup(q filter.Query) (from cachedMatches, exact bool) {
	raw := q.String()
	for i := len(c.entries) - 1; i >= 0; i-- {
		e := &c.entries[i]
		if e.q.String() == raw {
			return *e, true
		}
		if q.Refines(e.q) && (from.pos == nil || len(e.pos) < len(from.pos)) {
			from = cachedMatches{pos: e.pos}
		}
	}
	return from, false
}

// add records q's matches on ds, forgetting another dataset's results and evicting the oldest
// entries beyond the bounds.
func (c *matchCache) add(ds *window.Dataset, m cachedMatches) {
	if c.ds != ds {
		c.ds, c.entries = ds, nil
	}
	if m.q.Empty() || m.pos == nil {
		return
	}
	raw := m.q.String()
	c.entries = slices.DeleteFunc(c.entries, func(e cachedMatches) bool {
		if e.q.String() != raw {
			return false
		}
		if m.best == nil { // the same matches selected unranked keep the order ranked before
			m.best, m.hidden = e.best, e.hidden
		}
		return true
	})
	c.entries = append(c.entries, m)
	total := 0
	for _, e := range c.entries {
		total += e.size()
	}
	drop := 0
	for len(c.entries)-drop > 1 && (len(c.entries)-drop > matchCacheEntries || total > matchCachePositions) {
		total -= c.entries[drop].size()
		drop++
	}
	if drop > 0 {
		c.entries = slices.Delete(c.entries, 0, drop)
	}
}
