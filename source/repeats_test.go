package source_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/model"
	. "github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/window"
)

// loadRepeats loads the file at path through a source (Load, or LoadLocated as scan does),
// with batches of batch records (0: a parsed chunk at a time), and returns what it handed
// over and how many records it dropped as repeats.
func loadRepeats(t *testing.T, path string, located bool, batch int) ([]model.Execution, int) {
	t.Helper()
	src, err := Open(context.Background(), Options{File: path, BatchSize: batch})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var got []model.Execution
	if located {
		err = src.(Located).LoadLocated(context.Background(), 0, func(b []model.Execution, _ []Ref) error {
			got = append(got, b...)
			return nil
		})
	} else {
		err = src.Load(context.Background(), 0, func(b []model.Execution) error {
			got = append(got, slices.Clone(b)...)
			return nil
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	return got, src.(Repeater).Repeats()
}

// shapes writes records (JSON objects) as each export shape a file may take.
var shapes = map[string]func(recs []string) string{
	"jsonl": func(recs []string) string { return strings.Join(recs, "\n") + "\n" },
	"array": func(recs []string) string { return "[" + strings.Join(recs, ",\n") + "]\n" },
	"pretty": func(recs []string) string { // one object after another, not one a line
		return strings.Join(recs, "\n\n") + "\n"
	},
	"list responses": func(recs []string) string { // JSON Lines of pages of three records
		var b strings.Builder
		for len(recs) > 0 {
			k := min(3, len(recs))
			fmt.Fprintf(&b, `{"logs":[%s],"next_cursor":null}`+"\n", strings.Join(recs[:k], ","))
			recs = recs[k:]
		}
		return b.String()
	},
}

// TestRepeatedRecordsAreReadOnce: a file that repeats a few records millions of times (a
// 2.4 MB gzip of 22 million tiny records took scan to 1.1 GB and list, two ids in turn, to
// 19 GB: every copy held until the load was in) hands each over once, whatever their order,
// as long as each comes again within the last RecentIDs ids (all a gzip stream can repeat);
// the drops are counted, so the copies a front reports stay the same.
func TestRepeatedRecordsAreReadOnce(t *testing.T) {
	for name, shape := range shapes {
		for _, k := range []int{1, 2, 7, 300, RecentIDs} {
			const rounds = 12
			var recs []string
			for range rounds {
				for i := range k {
					recs = append(recs, fmt.Sprintf(`{"id":"log_%d","status":"success","data":{"request":{"arguments":{"n":%d}}}}`, i, i))
				}
			}
			path := filepath.Join(t.TempDir(), "export")
			if err := os.WriteFile(path, []byte(shape(recs)), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, located := range []bool{false, true} {
				for _, batch := range []int{0, 5} {
					got, dropped := loadRepeats(t, path, located, batch)
					// (at most k, but for a chance of a few in a million that nine ids share a
					// set of the table: then those nine are handed over each time)
					if len(got) > k+9*rounds || dropped != len(recs)-len(got) {
						t.Errorf("%s, %d ids in turn %d times (located %v, batch %d): %d records handed over, %d dropped; want at most %d, the rest dropped",
							name, k, rounds, located, batch, len(got), dropped, k)
					}
				}
			}
		}
	}
}

// TestDroppedRepeatsKeepTheSameCopies: whatever the order of an id's copies (list entries,
// whole records, another status, other arguments, the same record again near or far), the
// records a file hands over keep, by the rule every front applies (window.LatestCopies), the
// copies the whole file keeps, and the count of copies is the same.
func TestDroppedRepeatsKeepTheSameCopies(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 39))
	rec := func(id, status string, arg int, detailed bool) string {
		if !detailed { // a list entry: no arguments
			return fmt.Sprintf(`{"id":"%s","status":"%s"}`, id, status)
		}
		return fmt.Sprintf(`{"id":"%s","status":"%s","data":{"request":{"arguments":{"n":%d}}}}`, id, status, arg)
	}
	key := func(e model.Execution) string {
		return fmt.Sprintf("%s:%s:%v:%s", e.ID, e.Status, e.Detailed, e.Arguments)
	}
	kept := func(execs []model.Execution) ([]string, int) {
		dead, n := window.LatestCopies(len(execs), func(i int) string { return execs[i].ID }, func(i int) bool { return execs[i].Detailed })
		var out []string
		for i, e := range execs {
			if dead == nil || dead[i/64]&(1<<(i%64)) == 0 {
				out = append(out, key(e))
			}
		}
		slices.Sort(out)
		return out, n
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range shapes {
			if !yield(n) {
				return
			}
		}
	})
	dir := t.TempDir()
	for round := range 300 {
		n := 1 + rng.IntN(40)
		ids := 1 + rng.IntN(5)
		recs := make([]string, n)
		for i := range recs {
			recs[i] = rec(fmt.Sprintf("log_%d", rng.IntN(ids)), []string{"success", "failed"}[rng.IntN(2)], rng.IntN(2), rng.IntN(3) > 0)
		}
		name := names[round%len(names)]
		path := filepath.Join(dir, fmt.Sprintf("export-%d", round))
		if err := os.WriteFile(path, []byte(shapes[name](recs)), 0o600); err != nil {
			t.Fatal(err)
		}
		var all []model.Execution
		for _, r := range recs {
			e, err := model.ParseRecord([]byte(r))
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, e)
		}
		want, wantCopies := kept(all)
		got, dropped := loadRepeats(t, path, false, rng.IntN(3))
		have, copies := kept(got)
		if !slices.Equal(have, want) || copies+dropped != wantCopies {
			t.Fatalf("round %d (%s): kept %v (%d copies + %d dropped), want %v (%d)\n%s", round, name, have, copies, dropped, want, wantCopies, strings.Join(recs, "\n"))
		}
	}
}

// TestAnIDThatKeepsChangingIsRefused: one log id whose status flips millions of times fits a
// small gzip and would hold a row a copy; past MaxChanges other contents the file is refused
// with an error naming the id, in every shape, rather than held.
func TestAnIDThatKeepsChangingIsRefused(t *testing.T) {
	for name, shape := range shapes {
		var recs []string
		for i := range MaxChanges + 2 {
			recs = append(recs, fmt.Sprintf(`{"id":"log_1","status":"%s"}`, []string{"success", "failed"}[i%2]))
		}
		path := filepath.Join(t.TempDir(), "export")
		if err := os.WriteFile(path, []byte(shape(recs)), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, batch := range []int{0, 5} {
			src, err := Open(context.Background(), Options{File: path, BatchSize: batch})
			if err != nil {
				t.Fatal(err)
			}
			err = src.Load(context.Background(), 0, func([]model.Execution) error { return nil })
			src.Close()
			var fe *FileError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), `log id "log_1" comes more than 1000 times`) {
				t.Errorf("%s (batch %d): %v, want a file error naming log_1", name, batch, err)
			}
		}
		// at the limit, it is read
		path = filepath.Join(t.TempDir(), "export")
		if err := os.WriteFile(path, []byte(shape(recs[:MaxChanges+1])), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, _ := loadRepeats(t, path, false, 0); len(got) != MaxChanges+1 {
			t.Errorf("%s: %d records at the limit, want %d", name, len(got), MaxChanges+1)
		}
	}
}
