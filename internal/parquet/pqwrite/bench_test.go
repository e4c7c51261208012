package pqwrite

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
)

// benchRow is the benchmark's schema: int64, optional string, double and
// LIST<int32>.
type benchRow struct {
	ID    int64   `parquet:"id"`
	Name  *string `parquet:"name,optional"`
	Score float64 `parquet:"score"`
	Ints  []int32 `parquet:"ints,list"`
}

// benchData is the benchmark's input, typed and unboxed, as a source's
// column batch would hold it.
type benchData struct {
	ids    []int64
	names  []string
	valid  []bool
	scores []float64
	lists  [][]int32
}

const (
	benchRows      = 1 << 20
	benchGroupRows = 1 << 17
)

func newBenchData(n int) *benchData {
	rng := rand.New(rand.NewPCG(1, 2))
	d := &benchData{}
	for i := range n {
		d.ids = append(d.ids, int64(i)*3+rng.Int64N(3))
		d.names = append(d.names, fmt.Sprintf("customer-%d", rng.IntN(50000)))
		d.valid = append(d.valid, rng.IntN(10) != 0)
		d.scores = append(d.scores, float64(rng.IntN(1_000_000))/100)
		l := make([]int32, rng.IntN(4))
		for j := range l {
			l[j] = rng.Int32N(1 << 17)
		}
		d.lists = append(d.lists, l)
	}
	return d
}

// fill puts rows [lo, hi) into the four columns.
func (d *benchData) fill(cols []*Column, lo, hi int) {
	for _, c := range cols {
		c.Reset()
	}
	cols[0].Int64 = append(cols[0].Int64, d.ids[lo:hi]...)
	cols[2].Double = append(cols[2].Double, d.scores[lo:hi]...)
	name, ints := cols[1], cols[3]
	for i := lo; i < hi; i++ {
		if d.valid[i] {
			name.AppendString(d.names[i])
			name.DefLevels = append(name.DefLevels, 1)
		} else {
			name.DefLevels = append(name.DefLevels, 0)
		}
		if len(d.lists[i]) == 0 {
			ints.DefLevels, ints.RepLevels = append(ints.DefLevels, 0), append(ints.RepLevels, 0)
			continue
		}
		ints.Int32 = append(ints.Int32, d.lists[i]...)
		for j := range d.lists[i] {
			ints.DefLevels, ints.RepLevels = append(ints.DefLevels, 1), append(ints.RepLevels, byte(min(j, 1)))
		}
	}
}

// writeOwn writes the data with a Writer.
func (d *benchData) writeOwn(b *testing.B, buf *bytes.Buffer, cols []*Column, opts ...Option) {
	w, err := NewWriter(buf, parquet.SchemaOf(benchRow{}), opts...)
	if err != nil {
		b.Fatal(err)
	}
	for lo := 0; lo < len(d.ids); lo += benchGroupRows {
		d.fill(cols, lo, min(lo+benchGroupRows, len(d.ids)))
		if err := w.WriteRowGroup(context.Background(), cols); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// writeParquetGo writes the data with parquet-go's GenericWriter[any],
// rows boxed into parquet.Values as rowflow's record sink does.
func (d *benchData) writeParquetGo(b *testing.B, buf *bytes.Buffer, codec *Zstd) {
	w := parquet.NewGenericWriter[any](buf, parquet.SchemaOf(benchRow{}),
		parquet.Compression(codec), parquet.MaxRowsPerRowGroup(benchGroupRows))
	rows := make([]parquet.Row, 1024)
	for lo := 0; lo < len(d.ids); lo += len(rows) {
		n := min(len(rows), len(d.ids)-lo)
		for k := range n {
			i := lo + k
			r := rows[k][:0]
			r = append(r, parquet.Int64Value(d.ids[i]).Level(0, 0, 0))
			if d.valid[i] {
				r = append(r, parquet.ByteArrayValue([]byte(d.names[i])).Level(0, 1, 1))
			} else {
				r = append(r, parquet.NullValue().Level(0, 0, 1))
			}
			r = append(r, parquet.DoubleValue(d.scores[i]).Level(0, 0, 2))
			if len(d.lists[i]) == 0 {
				r = append(r, parquet.NullValue().Level(0, 0, 3))
			}
			for j, v := range d.lists[i] {
				r = append(r, parquet.Int32Value(v).Level(min(j, 1), 1, 3))
			}
			rows[k] = r
		}
		if _, err := w.WriteRows(rows[:n]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkColumnWriter writes 1M rows of (int64, optional string, double,
// LIST<int32>) in row groups of 128 Ki rows with zstd, with a Writer at
// concurrency 1 and at GOMAXPROCS and with parquet-go's GenericWriter[any],
// and reports each one's time and size and the Writer's speed-ups.
func BenchmarkColumnWriter(b *testing.B) {
	d := newBenchData(benchRows)
	codec := NewZstd(zstd.SpeedDefault)
	cols := make([]*Column, 4)
	for i := range cols {
		cols[i] = new(Column)
	}
	var buf bytes.Buffer
	var own1, ownN, pq time.Duration
	var ownSize, pqSize int
	for b.Loop() {
		buf.Reset()
		t0 := time.Now()
		d.writeOwn(b, &buf, cols, Codec(codec), Concurrency(1))
		t1 := time.Now()
		ownSize = buf.Len()
		buf.Reset()
		d.writeOwn(b, &buf, cols, Codec(codec))
		t2 := time.Now()
		buf.Reset()
		d.writeParquetGo(b, &buf, codec)
		t3 := time.Now()
		pqSize = buf.Len()
		own1, ownN, pq = own1+t1.Sub(t0), ownN+t2.Sub(t1), pq+t3.Sub(t2)
	}
	n := float64(b.N)
	b.ReportMetric(own1.Seconds()*1e3/n, "pqwrite-1-ms")
	b.ReportMetric(ownN.Seconds()*1e3/n, "pqwrite-N-ms")
	b.ReportMetric(pq.Seconds()*1e3/n, "parquetgo-ms")
	b.ReportMetric(pq.Seconds()/own1.Seconds(), "speedup-1")
	b.ReportMetric(pq.Seconds()/ownN.Seconds(), "speedup-N")
	b.ReportMetric(float64(ownSize)/1e6, "pqwrite-MB")
	b.ReportMetric(float64(pqSize)/1e6, "parquetgo-MB")
}
