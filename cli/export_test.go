package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
)

// TestNewCmdExport: export's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdExport(t *testing.T) {
	newCmdTable(t, NewCmdExport, []argvCase[ExportOptions]{
		{argv: "--since 2h --details -o w.jsonl", want: func(o *ExportOptions) string {
			return differs("Out", o.Out, "w.jsonl", "Details", o.Details, true, "since", o.Source.since, 2*time.Hour)
		}},
		{argv: "--file in.jsonl", want: func(o *ExportOptions) string { return differs("file", o.Source.file, "in.jsonl", "Out", o.Out, "") }},
		{argv: "extra", wantErr: "unexpected argument"},
		{argv: "--json", wantErr: "unknown flag: --json"},
	})
}

// TestExportOfAnExportWritesWhatTheWholeLoadHeld: export of an export file reads
// where each record is, then each again in order, instead of holding them; for every shape an
// export comes in, it writes what the whole load it replaced held, record for record.
func TestExportOfAnExportWritesWhatTheWholeLoadHeld(t *testing.T) {
	ctx := context.Background()
	for name, file := range scanVariants(t, t.TempDir(), 31, 1500) {
		t.Run(name, func(t *testing.T) {
			env := newTestEnv(nil)
			a, l := openLoaded(t, app.Options{File: file, Getenv: env.Getenv, Now: env.Now})
			var want bytes.Buffer
			for i := range l.Execs {
				b, _ := json.Marshal(model.ToWire(&l.Execs[i], l.Execs[i].Detailed))
				want.Write(append(b, '\n'))
			}
			var got bytes.Buffer
			w, err := a.Each(ctx, false, func(e *model.Execution) error {
				b, err := json.Marshal(model.ToWire(e, e.Detailed))
				got.Write(append(b, '\n'))
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if w.Executions != len(l.Execs) || w.Duplicates != l.Duplicates {
				t.Errorf("walked %d executions, %d copies; the whole load %d, %d", w.Executions, w.Duplicates, len(l.Execs), l.Duplicates)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				gl, wl := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
				for k := range min(len(gl), len(wl)) {
					if gl[k] != wl[k] {
						t.Fatalf("line %d:\n%s\nthe whole load's\n%s", k+1, gl[k], wl[k])
					}
				}
				t.Fatalf("%d lines, the whole load's %d", len(gl), len(wl))
			}
		})
	}
}
