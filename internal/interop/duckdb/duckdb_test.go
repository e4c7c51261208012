package duckdb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// matrix lists the files DuckDB writes: every row count, across RLE run
// and page boundaries, with V1 and V2 encodings; every codec at two row
// counts; and row groups of 100 rows.
func matrix() []struct {
	rows int
	opts writeOptions
} {
	type file = struct {
		rows int
		opts writeOptions
	}
	var out []file
	for _, n := range []int{0, 1, 2, 40, 100, 127, 128, 129, 1000, 4097, 100000} {
		out = append(out, file{n, writeOptions{version: "V1", codec: "snappy"}}, file{n, writeOptions{version: "V2", codec: "zstd"}})
	}
	for _, n := range []int{129, 4097} {
		for _, codec := range []string{"uncompressed", "snappy", "gzip", "zstd", "brotli", "lz4_raw"} {
			for _, v := range []string{"V1", "V2"} {
				if n == 4097 && (codec == "snappy" && v == "V1" || codec == "zstd" && v == "V2") {
					continue // written above
				}
				out = append(out, file{n, writeOptions{version: v, codec: codec}})
			}
		}
	}
	for _, n := range []int{1000, 4097} {
		for _, v := range []string{"V1", "V2"} {
			out = append(out, file{n, writeOptions{version: v, codec: "zstd", rowGroup: 100}})
		}
	}
	return out
}

// TestDuckDBWrites has DuckDB write the matrix of files and reads each with
// rowflow's records source and with DuckDB: every value must be the same.
func TestDuckDBWrites(t *testing.T) {
	db := openDuckDB(t)
	dir := t.TempDir()
	tables := []struct {
		name string
		cols []column
	}{{"scalars", withNulls(scalars)}, {"nested", withNulls(nested)}}
	files, values := 0, 0
	for _, f := range matrix() {
		for _, tb := range tables {
			name := fmt.Sprintf("%s-%d-%s.parquet", tb.name, f.rows, f.opts)
			path := filepath.Join(dir, name)
			duckWrite(t, db, path, tb.cols, f.rows, f.opts)
			leaves := leavesOf(t, path)
			want := duckRead(t, db, path, leaves)
			got, err := rowflowRecords(t, path, leaves)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			compareRows(t, name, leaves, got, want)
			files++
			values += len(want) * len(leaves)
			os.Remove(path)
		}
	}
	t.Logf("%d files, %d values compared", files, values)
}

// TestDuckDBNullArrays reads what DuckDB writes for fixed-size ARRAY
// columns with null arrays: levels that continue a list the entry before
// left null, which the format does not allow. rowflow refuses the file with
// an error that names the file, the column and the levels expected.
func TestDuckDBNullArrays(t *testing.T) {
	db := openDuckDB(t)
	dir := t.TempDir()
	for _, v := range []string{"V1", "V2"} {
		path := filepath.Join(dir, "null-arrays-"+v+".parquet")
		duckWrite(t, db, path, nullArrays, 10, writeOptions{version: v, codec: "snappy"})
		_, err := rowflowRecords(t, path, leavesOf(t, path))
		if !errors.Is(err, pqcol.ErrCorrupt) {
			t.Fatalf("%s: got %v, want pqcol.ErrCorrupt", v, err)
		}
		for _, want := range []string{filepath.Base(path), `column "arr.list.element"`, "repetition level 1",
			"null or empty", "must follow one of definition level 2 or more"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: the error does not say %q: %v", v, want, err)
			}
		}
		t.Logf("%s: %v", v, err)
	}
}
