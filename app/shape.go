package app

import (
	"context"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
)

// ShapeField is one field of a log record triage reads, and how many of the records read
// carried it.
type ShapeField struct {
	Field string `json:"field"`
	Found int    `json:"found"`
	// Without names what triage cannot do when no record carries the field.
	Without string `json:"without"`
}

// Shape is what a project's logs actually carry, over the newest records: counts only, no
// value (they may be secrets). It is what a first real user runs and shares.
type Shape struct {
	Source      string       `json:"source"`
	Records     int          `json:"records"`
	Detailed    int          `json:"detailed"` // of which the detail could be read
	Fields      []ShapeField `json:"fields"`
	Unavailable []string     `json:"unavailable"` // triage signals no record makes possible
	// NoStoredData: no detail keeps arguments or a response ("Don't store data").
	NoStoredData bool `json:"no_stored_data"`
}

// shapeFields are the fields in the order they are reported, and how a record shows it
// carries one (what is lost without it is phrase.Without's).
var shapeFields = []struct {
	name string
	has  func(e *model.Execution) bool
}{
	{"tool", func(e *model.Execution) bool { return e.ToolSlug != "" }},
	{"toolkit", func(e *model.Execution) bool { return e.ToolkitSlug != "" }},
	{"arguments", func(e *model.Execution) bool { return len(e.Arguments) > 0 }},
	{"response", func(e *model.Execution) bool { return len(e.Response) > 0 }},
	{"error kind", func(e *model.Execution) bool { return e.Error != nil && e.Error.Kind != "" }},
	{"upstream status", func(e *model.Execution) bool { return e.Error != nil && e.Error.HTTPStatus != 0 }},
	{"duration", func(e *model.Execution) bool { return e.HasDuration }},
	{"SDK version", func(e *model.Execution) bool { return e.SDKVersion != "" }},
	{"SDK language", func(e *model.Execution) bool { return e.Source.Language != "" }},
	{"retry count", func(e *model.Execution) bool { return e.RetryCount >= 0 }},
	{"session id", func(e *model.Execution) bool { return e.SessionID != "" }},
	{"request id", func(e *model.Execution) bool { return e.RequestID != "" }},
	{"tool version", func(e *model.Execution) bool { return e.ToolVersion != "" }},
}

// ShapeReport reads the newest n records of the source (their details too) and reports which
// fields they carry.
func (a *App) ShapeReport(ctx context.Context, n int) (Shape, error) {
	sh := Shape{Source: a.SourceName()}
	var recs []model.Execution
	stop := errStop{}
	err := a.src.Load(ctx, a.Window(), func(b []model.Execution) error {
		for i := range b {
			if len(recs) >= n {
				return stop
			}
			recs = append(recs, b[i])
		}
		if len(recs) >= n {
			return stop
		}
		return nil
	})
	if err != nil && err != error(stop) {
		return sh, err
	}
	for i := range recs {
		if !recs[i].Detailed {
			if d, err := a.src.Get(ctx, recs[i].ID); err == nil {
				recs[i] = d
			}
		}
		if recs[i].Detailed {
			sh.Detailed++
		}
	}
	sh.Records = len(recs)
	for _, f := range shapeFields {
		sf := ShapeField{Field: f.name, Without: phrase.Without(f.name)}
		for i := range recs {
			if f.has(&recs[i]) {
				sf.Found++
			}
		}
		sh.Fields = append(sh.Fields, sf)
		if sf.Found == 0 && sh.Records > 0 {
			sh.Unavailable = append(sh.Unavailable, f.name+": "+sf.Without)
		}
	}
	// A project with "Don't store data" on keeps audit metadata only: no detail carries its
	// arguments or its response. Said once, in those words, first.
	if sh.Detailed > 0 && sh.field("arguments") == 0 && sh.field("response") == 0 {
		sh.NoStoredData = true
		sh.Unavailable = append([]string{phrase.NoStoredData}, sh.Unavailable...)
	}
	if sh.Unavailable == nil {
		sh.Unavailable = []string{}
	}
	return sh, nil
}

// field is how many records carry the named field.
func (sh *Shape) field(name string) int {
	for _, f := range sh.Fields {
		if f.Field == name {
			return f.Found
		}
	}
	return 0
}

// errStop ends a load early.
type errStop struct{}

func (errStop) Error() string { return "enough records" }
