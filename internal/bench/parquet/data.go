package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// Row is the benchmark's record: five leaf columns, three fixed-width
// numbers, a 40-byte string and a list of 12 to 20 (16 on average) int32s.
type Row struct {
	ID    int64   `parquet:"id"`
	Small int32   `parquet:"small"`
	Score float64 `parquet:"score"`
	Text  string  `parquet:"text"`
	Tags  []int32 `parquet:"tags,list"`
}

// Numeric is the projection of Row onto its int64 and float64 columns.
type Numeric struct {
	ID    int64   `parquet:"id"`
	Score float64 `parquet:"score"`
}

// rowGroupRows is the number of rows of every row group the benchmark
// writes: the source's default MaxRows, so that a fragment is a row group.
const rowGroupRows = 65536

// makeRow returns row i. Its contents follow from i alone.
func makeRow(i int) Row {
	x := mix(uint64(i))
	tags := make([]int32, 12+(x>>56)%9)
	for k := range tags {
		tags[k] = int32(x>>(2*k)) & 0xfffff
	}
	return Row{
		ID:    int64(i),
		Small: int32(x % 1000),
		Score: float64(x%1_000_000) / 7,
		Text:  fmt.Sprintf("row %010d text %016x pad", i, x), // 40 bytes
		Tags:  tags,
	}
}

// mix is SplitMix64's finaliser: a well-spread function of i.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// makeRows returns rows [from, from+n).
func makeRows(from, n int) []Row {
	rows := make([]Row, n)
	for i := range rows {
		rows[i] = makeRow(from + i)
	}
	return rows
}

// writerOptions are the options of every Parquet file the benchmark
// writes: zstd at its default level, row groups of rowGroupRows rows.
func writerOptions() []parquet.WriterOption {
	return []parquet.WriterOption{parquet.Compression(&zstd.Codec{Level: zstd.DefaultLevel}),
		parquet.MaxRowsPerRowGroup(rowGroupRows)}
}

// writeFile writes rows [0, n) to path with parquet-go's GenericWriter,
// in row groups of groupRows rows (at most rowGroupRows), generating them
// one row group at a time, with writerOptions and then extra.
func writeFile(path string, n, groupRows int, extra ...parquet.WriterOption) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := parquet.NewGenericWriter[Row](f, append(writerOptions(), extra...)...)
	for lo := 0; lo < n; lo += groupRows {
		if _, err := w.Write(makeRows(lo, min(groupRows, n-lo))); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return w.Close()
}
