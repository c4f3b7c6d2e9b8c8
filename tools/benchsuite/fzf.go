package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
)

// fzfReference times `fzf --filter QUERY` (Debian's fzf, a whole process reading the rows'
// search text from a file) beside the filter over the same rows, the 1M export's, in this
// process. One full query each, not typed key by key: fzf has no incremental mode
// from the command line.
func (s *suite) fzfReference(ctx context.Context) error {
	fzf, err := exec.LookPath("fzf")
	if err != nil {
		s.rows = append(s.rows, row{figure: "filter vs fzf --filter over the same rows",
			pending: "fzf not installed (apt-get install fzf)"})
		return nil
	}
	f, err := os.Open(filepath.Join(s.data, "1m.jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	hay, err := os.CreateTemp("", "exectriage-hay-*.txt")
	if err != nil {
		return err
	}
	defer os.Remove(hay.Name())
	w := bufio.NewWriterSize(hay, 1<<20)
	ix := filter.NewIndex(1_000_000)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		e, err := model.ParseRecord(sc.Bytes())
		if err != nil {
			continue
		}
		fs := filter.FieldsOf(&filter.Row{Exec: &e})
		ix.AppendFields(fs)
		io.WriteString(w, filter.Haystack(fs))
		w.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	hay.Close()
	for _, q := range []string{"gmsend", "timedout"} { // free text: what fzf matches too
		query, err := filter.Parse(q)
		if err != nil {
			return err
		}
		var ours, ranked, theirs, ratio, rankRatio []float64
		for range s.count {
			start := time.Now()
			rows := ix.Filter(query)
			o := time.Since(start).Seconds() * 1000
			// fzf --filter sorts its matches by score: the TUI's best match does the same
			// (filter.Index.Rank), so that is the like-for-like figure
			start = time.Now()
			ix.Rank(query, rows)
			r := o + time.Since(start).Seconds()*1000
			in, err := os.Open(hay.Name())
			if err != nil {
				return err
			}
			cmd := exec.CommandContext(ctx, fzf, "--filter", q)
			cmd.Stdin, cmd.Stdout = in, io.Discard
			start = time.Now()
			err = cmd.Run()
			in.Close()
			if err != nil {
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 { // 1: no match
					return fmt.Errorf("fzf: %v", err)
				}
			}
			th := time.Since(start).Seconds() * 1000
			ours, theirs, ratio = append(ours, o), append(theirs, th), append(ratio, th/o)
			ranked, rankRatio = append(ranked, r), append(rankRatio, th/r)
		}
		s.rows = append(s.rows,
			row{figure: fmt.Sprintf("filter, one full query %q over the 1M export's rows (in process)", q), values: ours, unit: "ms",
				format: "%.1f"},
			row{figure: fmt.Sprintf("  fzf --filter %q over the same rows' text (whole process)", q), values: theirs, unit: "ms",
				format: "%.0f"},
			row{figure: "  fzf / filter", values: ratio, unit: "×", format: "%.0f"},
			row{figure: fmt.Sprintf("filter + best-match ranking %q, as fzf sorts by score (in process)", q), values: ranked, unit: "ms",
				format: "%.1f"},
			row{figure: "  fzf / (filter + ranking)", values: rankRatio, unit: "×", format: "%.0f"},
		)
	}
	return nil
}
