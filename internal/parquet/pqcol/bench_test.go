package pqcol

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// benchRow is the five-column shape of the benchmark: int64, int32,
// float64, a ~40-byte string and a list of ~16 int32.
type benchRow struct {
	ID    int64   `parquet:"id"`
	Small int32   `parquet:"small"`
	Score float64 `parquet:"score"`
	Name  string  `parquet:"name"`
	List  []int32 `parquet:"list"`
}

// benchPair is the two-column projection of benchRow.
type benchPair struct {
	ID   int64  `parquet:"id"`
	Name string `parquet:"name"`
}

const benchRows = 200_000

func writeBenchFile(b *testing.B) string {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]benchRow, benchRows)
	for i := range rows {
		list := make([]int32, 12+rng.IntN(9))
		for j := range list {
			list[j] = rng.Int32()
		}
		rows[i] = benchRow{
			ID:    int64(i),
			Small: rng.Int32N(1 << 20),
			Score: rng.Float64(),
			Name:  fmt.Sprintf("name-%010d-%024x", i, rng.Uint64()),
			List:  list,
		}
	}
	path := filepath.Join(b.TempDir(), "bench.parquet")
	writeGenerated(b, path, rows, parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(50_000))
	return path
}

// BenchmarkDecode decodes a 200,000-row zstd file (four row groups) of the
// five columns of benchRow: with pqcol into reused Column buffers, and with
// parquet-go's GenericReader into structs, for all columns and for two.
// Each pqcol result reports its rows/s and its speed relative to the
// GenericReader run just before it ("x-generic").
func BenchmarkDecode(b *testing.B) {
	path := writeBenchFile(b)
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	r, err := Open("bench.parquet", f, st.Size())
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		columns []string
		generic func(*testing.B, *os.File, int64)
	}{
		{"all", []string{"id", "small", "score", "name", "list"}, benchGeneric[benchRow]},
		{"two", []string{"id", "name"}, benchGeneric[benchPair]},
	} {
		var genericRate float64
		b.Run("generic/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			start := time.Now()
			for range b.N {
				tc.generic(b, f, st.Size())
			}
			genericRate = rowsPerSecond(b, start)
		})
		b.Run("pqcol/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			leaves := make([]int, len(tc.columns))
			for i, name := range tc.columns {
				if leaves[i], _ = r.LookupLeaf(name); leaves[i] < 0 {
					b.Fatalf("no column %s", name)
				}
			}
			cols := make([]Column, len(leaves))
			start := time.Now()
			for range b.N {
				for rg := range r.NumRowGroups() {
					for i, leaf := range leaves {
						if err := r.ReadColumn(b.Context(), rg, leaf, &cols[i]); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			rate := rowsPerSecond(b, start)
			if genericRate > 0 {
				b.ReportMetric(rate/genericRate, "x-generic")
			}
		})
	}
}

func rowsPerSecond(b *testing.B, start time.Time) float64 {
	rate := float64(benchRows) * float64(b.N) / time.Since(start).Seconds()
	b.ReportMetric(rate, "rows/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(benchRows*b.N), "ns/row")
	return rate
}

func benchGeneric[T any](b *testing.B, f *os.File, size int64) {
	pf, err := parquet.OpenFile(f, size)
	if err != nil {
		b.Fatal(err)
	}
	rd := parquet.NewGenericReader[T](pf)
	defer rd.Close()
	buf := make([]T, 1024)
	n := 0
	for {
		k, err := rd.Read(buf)
		n += k
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if n != benchRows {
		b.Fatalf("read %d rows", n)
	}
}
