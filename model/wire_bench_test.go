package model_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/exectriage/exectriage/internal/testkit/benchdata"
	"github.com/exectriage/exectriage/model"
)

// benchLines returns n generated detail records, one per element.
func benchLines(b *testing.B, n int) ([][]byte, int64) {
	b.Helper()
	var buf bytes.Buffer
	st, err := benchdata.Write(context.Background(), &buf, benchdata.Config{N: n, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n")), st.Bytes
}

// BenchmarkParseRecord parses realistic detail records on one core, through a Parser (as
// the file loader does) and through the reference parser on encoding/json.
func BenchmarkParseRecord(b *testing.B) {
	lines, size := benchLines(b, 10_000)
	b.Run("parser", func(b *testing.B) {
		var p model.Parser
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				if _, err := p.Parse(l); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("ParseRecord", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				if _, err := model.ParseRecord(l); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("reference", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				if _, err := model.ParseRecordReference(l); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
