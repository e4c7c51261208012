package pqcol

import (
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/internal/testutil"
)

// TestPartialPagesHoldOnlyTheirRows reads thirds of a row group whose
// column chunks are one page each, as DuckDB writes them, so that each
// read takes part of a page, in every encoding parquet-go writes (PLAIN,
// dictionary, DELTA_*, BYTE_STREAM_SPLIT, RLE booleans): every read gives
// the rows of the whole chunk's read, and a read into a new Column holds
// the values of its rows only, not the page's (a page of a whole row
// group, read by three fragments, was decoded whole by each).
func TestPartialPagesHoldOnlyTheirRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "onepage.parquet")
	writeGenerated(t, path, genRows(3000, 9), parquet.PageBufferSize(64<<20), parquet.MaxRowsPerRowGroup(3000))
	r := openTest(t, path, "onepage.parquet")
	whole, err := readAll(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]func(*Column) (int, int){
		"id":                func(c *Column) (int, int) { return len(c.Int64), cap(c.Int64) },
		"small":             func(c *Column) (int, int) { return len(c.Int32), cap(c.Int32) },
		"score":             func(c *Column) (int, int) { return len(c.Double), cap(c.Double) },
		"name":              func(c *Column) (int, int) { return len(c.Bytes), cap(c.Bytes) },
		"list":              func(c *Column) (int, int) { return len(c.Int32), cap(c.Int32) },
		"opt":               func(c *Column) (int, int) { return len(c.Int64), cap(c.Int64) },
		"flag":              func(c *Column) (int, int) { return len(c.Boolean), cap(c.Boolean) },
		"split":             func(c *Column) (int, int) { return len(c.Float), cap(c.Float) },
		"delta":             func(c *Column) (int, int) { return len(c.Int64), cap(c.Int64) },
		"dname":             func(c *Column) (int, int) { return len(c.Bytes), cap(c.Bytes) },
		"tags.list.element": func(c *Column) (int, int) { return len(c.Bytes), cap(c.Bytes) },
	}
	checked := 0
	for c, leaf := range r.Leaves() {
		for _, s := range splits(r.NumRows(0), 3) {
			var col Column
			if err := r.ReadColumnRange(t.Context(), 0, c, s[0], s[1], &col); err != nil {
				t.Fatalf("%s, rows [%d, %d): %v", leaf.PathString(), s[0], s[1], err)
			}
			if err := equalFlat(normalize(flatOf(&col)), sliceRows(whole[0][c], &leaf, s[0], s[1])); err != nil {
				t.Fatalf("%s, rows [%d, %d): %v", leaf.PathString(), s[0], s[1], err)
			}
			if f, ok := held[leaf.PathString()]; ok {
				n, capacity := f(&col)
				if n == 0 || capacity > n+n/2+64 {
					t.Errorf("%s, rows [%d, %d): %d values held in a buffer of %d", leaf.PathString(), s[0], s[1], n, capacity)
				}
				checked++
			}
		}
	}
	if checked != 3*len(held) {
		t.Fatalf("checked %d reads, want %d: a column is missing", checked, 3*len(held))
	}
}

// TestPartialReadsOfOtherWriters reads every row group of the files
// parquet-go ships (Impala's INT96, Spark's and parquet-mr's fixed-length
// decimals, Arrow, DuckDB, …) in thirds and compares each read with the
// slice of the whole chunk's.
func TestPartialReadsOfOtherWriters(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testutil.ParquetGoTestdata(t), "*.parquet"))
	if len(files) < 40 {
		t.Fatalf("%d files", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			whole, r, err := readWithDeadline(t, path)
			if err != nil {
				t.Fatal(err)
			}
			var col Column
			for rg := range r.NumRowGroups() {
				for c, leaf := range r.Leaves() {
					for _, s := range splits(r.NumRows(rg), 3) {
						if err := r.ReadColumnRange(t.Context(), rg, c, s[0], s[1], &col); err != nil {
							t.Fatalf("row group %d, %s, rows [%d, %d): %v", rg, leaf.PathString(), s[0], s[1], err)
						}
						if err := equalFlat(normalize(flatOf(&col)), sliceRows(whole[rg][c], &leaf, s[0], s[1])); err != nil {
							t.Fatalf("row group %d, %s, rows [%d, %d): %v", rg, leaf.PathString(), s[0], s[1], err)
						}
					}
				}
			}
		})
	}
}
