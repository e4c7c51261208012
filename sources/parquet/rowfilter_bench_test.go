package parquet_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

type benchRow struct {
	ID    int64   `parquet:"id"`
	Score float64 `parquet:"score"`
	Name  string  `parquet:"name"`
}

func BenchmarkRowFilter(b *testing.B) {
	root := b.TempDir()
	rows := make([]benchRow, 1<<20)
	for i := range rows {
		rows[i] = benchRow{ID: int64(i), Score: float64(i % 1000), Name: "some text of a row"}
	}
	testutil.WriteParquet(b, filepath.Join(root, "b.parquet"), rows, 1<<17)
	for _, c := range []struct {
		name string
		opts []parquet.Option
	}{
		{"none", nil},
		{"all-kept", []parquet.Option{parquet.RowFilter(sources.Ge("id", 0))}},
		{"half-by-row", []parquet.Option{parquet.RowFilter(sources.Lt("score", 500))}},
		{"eighth-by-stats", []parquet.Option{parquet.RowFilter(sources.Lt("id", 131072))}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				var n int64
				if err := flow.From(parquet.Read[benchRow](root, c.opts...)).To(sinks.Count[benchRow](&n)).Run(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rows)), "ns/row")
		})
	}
}
