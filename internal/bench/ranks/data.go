package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
)

// row is a row of the generated datasets; Text's length varies with N so
// that text lines are not all of one size.
type row struct {
	N    int64  `parquet:"n" json:"n"`
	Text string `parquet:"text" json:"text"`
}

func rows(from, n int) []row {
	out := make([]row, n)
	for i := range out {
		k := from + i
		out[i] = row{N: int64(k), Text: fmt.Sprintf("%0*d", 8+k%23, k)}
	}
	return out
}

// layout is a dataset of uneven files: a few large ones and many small.
type layout struct {
	large []int // rows of each large file
	small []int // rows of each small file
}

// uneven is the layout the benchmark and the bound's test use: three
// large files (the first 37% of the rows) and 30 small ones, 61,000 rows.
var uneven = layout{
	large: []int{22_000, 15_000, 9_000},
	small: []int{200, 300, 400, 500, 600, 700, 800, 900, 150, 250, 350, 450, 550, 650, 750,
		200, 300, 400, 500, 600, 700, 800, 900, 150, 250, 350, 450, 550, 650, 750},
}

func (l layout) files() [][2]int {
	var out [][2]int
	at := 0
	for _, n := range append(append([]int(nil), l.large...), l.small...) {
		out = append(out, [2]int{at, n})
		at += n
	}
	return out
}

// writeParquet writes l as Parquet files under dir, in row groups of 1,000
// rows.
func writeParquet(dir string, l layout) (int, error) {
	total := 0
	for i, f := range l.files() {
		var b bytes.Buffer
		w := parquet.NewGenericWriter[row](&b)
		rs := rows(f[0], f[1])
		for len(rs) > 0 {
			n := min(1000, len(rs))
			if _, err := w.Write(rs[:n]); err != nil {
				return 0, err
			}
			if err := w.Flush(); err != nil {
				return 0, err
			}
			rs = rs[n:]
		}
		if err := w.Close(); err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.parquet", i)), b.Bytes(), 0o644); err != nil {
			return 0, err
		}
		total += f[1]
	}
	return total, nil
}

// writeJSONL writes l as JSON Lines files under dir: the large files and
// most small ones plain, every fifth small file compressed, alternately
// with gzip and zstd.
func writeJSONL(dir string, l layout) (int, error) {
	total := 0
	for i, f := range l.files() {
		var b bytes.Buffer
		for _, r := range rows(f[0], f[1]) {
			fmt.Fprintf(&b, `{"n":%d,"text":%q}`+"\n", r.N, r.Text)
		}
		name, data := fmt.Sprintf("f%02d.jsonl", i), b.Bytes()
		if i >= len(l.large) && i%5 == 0 {
			var z bytes.Buffer
			var w interface {
				Write([]byte) (int, error)
				Close() error
			}
			if i%10 == 0 {
				name, w = name+".gz", gzip.NewWriter(&z)
			} else {
				zw, err := zstd.NewWriter(&z)
				if err != nil {
					return 0, err
				}
				name, w = name+".zst", zw
			}
			if _, err := w.Write(data); err != nil {
				return 0, err
			}
			if err := w.Close(); err != nil {
				return 0, err
			}
			data = z.Bytes()
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return 0, err
		}
		total += f[1]
	}
	return total, nil
}
