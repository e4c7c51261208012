package text_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// jsonRow is what the JSON Lines memory test and benchmark read.
type jsonRow struct {
	ID    int64   `json:"id"`
	Score float64 `json:"score"`
	Name  string  `json:"name"`
	N     int32   `json:"n"`
	Ok    bool    `json:"ok"`
}

// writeJSONRows writes rows lines of jsonRow, the names with an escape
// in every tenth, into dir/a.jsonl.
func writeJSONRows(t testing.TB, dir string, rows int) {
	var b strings.Builder
	for i := range rows {
		name := fmt.Sprintf("name_%d", i%977)
		if i%10 == 0 {
			name += `\t\u00e9`
		}
		fmt.Fprintf(&b, `{"id":%d,"score":%d.%03d,"name":"%s","n":%d,"ok":%t}`+"\n", i*7, i%100000, i%1000, name, i*31%100000, i%3 == 0)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestJSONLReadsWithoutAllocationPerRow: a line of short values read by
// the fast path costs no allocation of its own, as a struct or as a
// record (its names are the last record's, its values, their text and
// the anys holding them are in the chunk's blocks). Through
// encoding/json, a struct line took 6.1 allocations and a record 79.
func TestJSONLReadsWithoutAllocationPerRow(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 40,000 lines four times")
	}
	dir := t.TempDir()
	const rows = 40000
	writeJSONRows(t, dir, rows)
	recs := allocsPerRow(t, func() flow.Source[sources.Record] { return text.JSONL[sources.Record](dir) }, rows)
	structs := allocsPerRow(t, func() flow.Source[jsonRow] { return text.JSONL[jsonRow](dir) }, rows)
	t.Logf("allocations per row: %.3f as records, %.3f as structs", recs, structs)
	if recs > 0.1 {
		t.Errorf("records: %.3f allocations per row, want at most 0.1", recs)
	}
	if structs > 0.05 {
		t.Errorf("structs: %.3f allocations per row, want at most 0.05", structs)
	}
}

// BenchmarkJSONLRead reads a JSON Lines file of 200,000 lines of five
// short values as structs and as records, on one worker and two.
func BenchmarkJSONLRead(b *testing.B) {
	dir := b.TempDir()
	const rows = 200000
	writeJSONRows(b, dir, rows)
	benchReads(b, rows, func() flow.Source[jsonRow] { return text.JSONL[jsonRow](dir) },
		func() flow.Source[sources.Record] { return text.JSONL[sources.Record](dir) })
}

// benchReads measures reading rows rows from structs and records, on
// one worker and two, and reports the time per row.
func benchReads[T any](b *testing.B, rows int64, structs func() flow.Source[T], records func() flow.Source[sources.Record]) {
	run := func(b *testing.B, p *flow.Pipeline, n *int64) {
		for b.Loop() {
			*n = 0
			if err := p.Run(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
		if *n != rows {
			b.Fatalf("read %d rows, want %d", *n, rows)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
	}
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("structs/p%d", par), func(b *testing.B) {
			var n int64
			run(b, flow.From(structs()).Parallel(par).To(sinks.Count[T](&n)), &n)
		})
		b.Run(fmt.Sprintf("records/p%d", par), func(b *testing.B) {
			var n int64
			run(b, flow.From(records()).Parallel(par).To(sinks.Count[sources.Record](&n)), &n)
		})
	}
}
