package shards_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/shopspring/decimal"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

const benchRowCount = 2_000_000

var benchRows = sync.OnceValue(func() []pqRow { return pqRows(benchRowCount) })

// writeBare writes rows to one file with a bare GenericWriter: the same
// codec, level and row-group size as the sink's defaults, fsynced.
func writeBare(dir string, rows []pqRow) error {
	f, err := os.Create(filepath.Join(dir, "bare.parquet"))
	if err != nil {
		return err
	}
	defer f.Close()
	w := parquet.NewGenericWriter[pqRow](f, parquet.Compression(&zstd.Codec{Level: zstd.DefaultLevel}),
		parquet.MaxRowsPerRowGroup(shards.DefaultRowGroupRows))
	if _, err := w.Write(rows); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

func writeShards(dir string, rows []pqRow, writers int) error {
	return flow.From(sources.Slice(rows)).
		To(shards.Parquet[pqRow](filepath.Join(dir, "out"), shards.Writers(writers))).Run(context.Background())
}

// BenchmarkParquetShards writes 2M rows with a bare GenericWriter and
// with the sink on one and two writers. Each iteration runs the three, in
// a rotating order so that noise from other processes falls on all
// alike. The metrics give each one's rows/s, the sink's speed relative to
// the bare writer (x-bare-…, above 1 is faster) and its CPU time relative
// to the bare writer's (cpu-x-bare-…, above 1 is more work). For a table,
// run go run ./internal/shardbench.
func BenchmarkParquetShards(b *testing.B) {
	rows := benchRows()
	type variant struct {
		name  string
		write func(dir string) error
		total time.Duration
		cpu   time.Duration
	}
	vs := []*variant{
		{name: "bare", write: func(dir string) error { return writeBare(dir, rows) }},
		{name: "shards1", write: func(dir string) error { return writeShards(dir, rows, 1) }},
		{name: "shards2", write: func(dir string) error { return writeShards(dir, rows, 2) }},
	}
	base := b.TempDir()
	b.ResetTimer()
	for i := range b.N {
		for j := range vs {
			v := vs[(i+j)%len(vs)]
			dir := filepath.Join(base, fmt.Sprint(v.name, i))
			if err := os.Mkdir(dir, 0o777); err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			start, cpu := time.Now(), cpuTime()
			if err := v.write(dir); err != nil {
				b.Fatal(err)
			}
			v.total += time.Since(start)
			v.cpu += cpuTime() - cpu
			b.StopTimer()
			os.RemoveAll(dir)
			b.StartTimer()
		}
	}
	n := float64(b.N) * benchRowCount
	for _, v := range vs {
		b.ReportMetric(n/v.total.Seconds(), "rows/s-"+v.name)
	}
	b.ReportMetric(vs[0].total.Seconds()/vs[1].total.Seconds(), "x-bare-shards1")
	b.ReportMetric(vs[0].total.Seconds()/vs[2].total.Seconds(), "x-bare-shards2")
	if vs[0].cpu > 0 {
		// CPU time relative to bare: the overhead, which other work on the
		// machine disturbs less than wall time.
		b.ReportMetric(vs[1].cpu.Seconds()/vs[0].cpu.Seconds(), "cpu-x-bare-shards1")
		b.ReportMetric(vs[2].cpu.Seconds()/vs[0].cpu.Seconds(), "cpu-x-bare-shards2")
	}
}

// BenchmarkStructWriters writes 200k structs through the sink with
// rowflow's struct writer and with parquet-go's (the reference, in the
// same iteration, in alternating order): rows of pqRow (the typed
// GenericWriter), and of an int64 and two decimals, with and without the
// row-ID columns (parquet-go's dynamic rows). x-<case> is parquet-go's
// time over rowflow's: above 1, rowflow's writer is faster.
func BenchmarkStructWriters(b *testing.B) {
	type priced struct {
		ID    int64           `parquet:"id"`
		Price decimal.Decimal `parquet:"price,decimal(2:9)"`
		Qty   decimal.Decimal `parquet:"qty,decimal(3:18)"`
	}
	const n = 200_000
	rows := benchRows()[:n]
	prices := make([]priced, n)
	for i := range prices {
		prices[i] = priced{ID: int64(i), Price: decimal.New(int64(i%100000), -2), Qty: decimal.New(int64(i*7), -3)}
	}
	cases := []struct {
		name  string
		write func(dir string) error
	}{
		{"pqRow", func(dir string) error {
			return flow.From(sources.Slice(rows)).To(shards.Parquet[pqRow](dir)).Run(context.Background())
		}},
		{"pqRow-row-ids", func(dir string) error {
			return flow.From(sources.Slice(rows)).To(shards.Parquet[pqRow](dir, shards.RowIDColumn("rid"))).Run(context.Background())
		}},
		{"decimals", func(dir string) error {
			return flow.From(sources.Slice(prices)).To(shards.Parquet[priced](dir)).Run(context.Background())
		}},
	}
	base := b.TempDir()
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var took [2]time.Duration // rowflow's, parquet-go's
			for i := range b.N {
				for j := range 2 {
					own := (i+j)%2 == 0
					restore := shards.SetOwnStructWriter(own)
					dir := filepath.Join(base, fmt.Sprint(c.name, i, own))
					runtime.GC()
					start := time.Now()
					err := c.write(dir)
					d := time.Since(start)
					restore()
					if err != nil {
						b.Fatal(err)
					}
					if own {
						took[0] += d
					} else {
						took[1] += d
					}
					os.RemoveAll(dir)
				}
			}
			b.ReportMetric(float64(took[0].Nanoseconds())/float64(b.N*n), "ns/row-rowflow")
			b.ReportMetric(float64(took[1].Nanoseconds())/float64(b.N*n), "ns/row-parquet-go")
			b.ReportMetric(took[1].Seconds()/took[0].Seconds(), "x-"+c.name)
		})
	}
}
